import type { HistoryRow } from './align-history-rows.js';
import type { SessionInspection } from './session-inspector.js';

/** A page of the aligned stored-versus-sent rows. */
export type RowsPage = {
  readonly rows: readonly HistoryRow[];
  readonly totalRows: number;
  readonly offset: number;
  readonly limit: number;
};

/** The context view the page draws: the inspection without the full message lists, plus one page of rows. */
export type ContextView = Omit<SessionInspection, 'messages' | 'diff'> &
  RowsPage & {
    /** Stored messages by status, over the whole session. */
    readonly statusCounts: Readonly<Record<string, number>>;
  };

/** Default and largest page of rows. */
export const ROWS_PAGE = Object.freeze({ limit: 200, maxLimit: 1_000 });

/**
 * One page of rows: `offset` from the start, or the last page when `offset` is absent (the newest
 * messages are what a person debugging an agent looks at first).
 */
export function pageRows(
  rows: readonly HistoryRow[],
  options: { readonly offset?: number | undefined; readonly limit?: number | undefined },
): RowsPage {
  const limit = Math.min(Math.max(1, options.limit ?? ROWS_PAGE.limit), ROWS_PAGE.maxLimit);
  const last = Math.max(0, rows.length - limit);
  const offset = Math.min(Math.max(0, options.offset ?? last), last);
  return { rows: rows.slice(offset, offset + limit), totalRows: rows.length, offset, limit };
}

/** A search hit: the row and a snippet around the first match. */
export type SearchHit = {
  readonly index: number;
  readonly id: string;
  readonly role: string;
  readonly status: string;
  readonly snippet: string;
};

/** The rows whose text (or tool calls) contain `query`, case-insensitively, at most `limit`. */
export function searchRows(
  rows: readonly HistoryRow[],
  options: { readonly query: string; readonly limit?: number },
): { readonly hits: readonly SearchHit[]; readonly total: number } {
  const needle = options.query.toLowerCase();
  const limit = options.limit ?? 100;
  const hits: SearchHit[] = [];
  let total = 0;
  if (needle === '') return { hits, total };
  for (const row of rows) {
    const entry = row.stored ?? row.sent;
    if (entry === undefined) continue;
    const calls = (entry.toolCalls ?? []).map((call) => `${call.name} ${call.arguments}`).join('\n');
    const text = calls === '' ? entry.text : `${entry.text}\n${calls}`;
    const at = text.toLowerCase().indexOf(needle);
    if (at === -1) continue;
    total += 1;
    if (hits.length >= limit) continue;
    const start = Math.max(0, at - 40);
    hits.push({
      index: row.index,
      id: entry.id,
      role: entry.role,
      status: entry.status,
      snippet: `${start > 0 ? '…' : ''}${text.slice(start, at + needle.length + 60)}`,
    });
  }
  return { hits, total };
}

/** How many stored messages have each status. */
export function statusCounts(rows: readonly HistoryRow[]): Readonly<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const row of rows) {
    const status = row.stored?.status ?? (row.sent === undefined ? undefined : 'added');
    if (status !== undefined) counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}
