import { COMPACTION_ID_KEY, type CompactionRecord } from '../core/compaction-record.js';
import type { Message } from '../core/message.js';
import { sessionView } from '../core/session-view.js';
import { validateCompactionLineage } from '../core/validate-compaction-lineage.js';

/** The compaction checks of one request of a compacting strategy. */
export type EvalCompactionGrade = {
  /** `validateCompactionLineage(history, records)` found nothing. */
  readonly lineageValid: boolean;
  /**
   * Every message of the history is in the session view exactly once, raw or through exactly one
   * covering summary, and the request represents none of them twice.
   */
  readonly coverageExact: boolean;
  readonly problems: readonly string[];
};

/** What one request of a compacting strategy is graded against. */
export type GradeCompactionInput = {
  /** The append-only history the strategy was given. */
  readonly history: readonly Message[];
  /** The strategy's records after the call. */
  readonly records: readonly CompactionRecord[];
  /** The request it sent. */
  readonly messages: readonly Message[];
  /**
   * `sessionCoverage(history, records)`, when the caller already has it (it depends on the history
   * and records only, so the steps of one turn share it). @default computed
   */
  readonly session?: SessionCoverage;
};

/** What the grade of a session (history and records, without a request) found. */
export type SessionCoverage = {
  readonly lineageProblems: readonly string[];
  readonly viewProblems: readonly string[];
  readonly byId: ReadonlyMap<string, CompactionRecord>;
  readonly original: ReadonlySet<string>;
};

/** The lineage and view-coverage part of {@link gradeCompaction}, for a history and its records. */
export function sessionCoverage(
  history: readonly Message[],
  records: readonly CompactionRecord[],
): SessionCoverage {
  const lineageProblems = validateCompactionLineage(history, records).map(
    (violation) => `lineage: ${violation.message}`,
  );
  const byId = new Map(records.map((record) => [record.id, record]));
  const original = new Set(history.map((message) => message.id));
  const viewCounts = coverCounts(sessionView(history, records), { byId, original });
  const missing = history.filter((message) => viewCounts.get(message.id) !== 1);
  const viewProblems =
    missing.length === 0
      ? []
      : [
          `coverage: ${missing.length} messages are not in the view exactly once (first ${missing[0]?.id}, ${viewCounts.get(missing[0]?.id ?? '') ?? 0} times)`,
        ];
  return { lineageProblems, viewProblems, byId, original };
}

/**
 * Grades lineage and coverage of one request: the records fit the history, the session view holds
 * every original message exactly once (raw, or through the one summary whose records cover it,
 * followed back through chained records), and the request does not show any message twice (raw and
 * summarised, or under two summaries). A budget may still leave messages out of the request. Pure.
 */
export function gradeCompaction(input: GradeCompactionInput): EvalCompactionGrade {
  const session = input.session ?? sessionCoverage(input.history, input.records);
  const { byId, original } = session;
  const problems = [...session.lineageProblems, ...session.viewProblems];
  const sentCounts = coverCounts(input.messages, { byId, original });
  const twice = [...sentCounts].filter(([, count]) => count > 1);
  if (twice.length > 0)
    problems.push(`coverage: the request shows ${twice.length} messages twice (first ${twice[0]?.[0]})`);
  return {
    lineageValid: session.lineageProblems.length === 0,
    coverageExact: session.viewProblems.length === 0 && twice.length === 0,
    problems,
  };
}

/** How many times each original message is represented in `messages` (raw or through summaries). */
function coverCounts(
  messages: readonly Message[],
  known: { readonly byId: ReadonlyMap<string, CompactionRecord>; readonly original: ReadonlySet<string> },
): ReadonlyMap<string, number> {
  const counts = new Map<string, number>();
  const count = (id: string): void => {
    counts.set(id, (counts.get(id) ?? 0) + 1);
  };
  const expand = (recordId: string, seen: ReadonlySet<string>): void => {
    const record = known.byId.get(recordId);
    if (record === undefined || seen.has(recordId)) return;
    for (const id of record.replaces) {
      if (known.byId.has(id)) expand(id, new Set([...seen, recordId]));
      else count(id);
    }
  };
  for (const message of messages) {
    const recordId = message.metadata?.[COMPACTION_ID_KEY];
    if (typeof recordId === 'string') expand(recordId, new Set());
    else if (known.original.has(message.id)) count(message.id);
  }
  return counts;
}
