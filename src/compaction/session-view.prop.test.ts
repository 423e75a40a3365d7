import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { applyCompactions, viewId } from '../core/apply-compactions.js';
import { COMPACTION_ID_KEY, type CompactionRecord } from '../core/compaction-record.js';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { groupTransactions } from '../core/transactions.js';
import { conversationArbitrary } from '../testing/arbitraries.js';

type Step =
  | { readonly kind: 'append'; readonly units: number }
  | { readonly kind: 'compact'; readonly from: number; readonly length: number; readonly pins: number }
  | { readonly kind: 'rewind'; readonly keep: number };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), units: fc.integer({ min: 1, max: 4 }) }),
  {
    arbitrary: fc.record({
      kind: fc.constant('compact' as const),
      from: fc.nat(20),
      length: fc.integer({ min: 1, max: 8 }),
      pins: fc.nat(255),
    }),
    weight: 3,
  },
  fc.record({ kind: fc.constant('rewind' as const), keep: fc.nat(20) }),
);

/** Drives appends, compactions (chained, with pins) and rewinds the way an agent would. */
function run(conversation: readonly Message[], steps: readonly Step[], options: { rewinds: boolean }) {
  const units = groupTransactions(conversation).map((unit) => unit.messages);
  let taken = Math.min(2, units.length);
  const records: CompactionRecord[] = [];
  const history = () => units.slice(0, taken).flat();
  for (const step of steps) {
    if (step.kind === 'append') taken = Math.min(units.length, taken + step.units);
    else if (step.kind === 'rewind') {
      if (options.rewinds) taken = Math.min(taken, step.keep);
    } else {
      const record = compactRecord(applyCompactions(history(), records), { step, records });
      if (record !== undefined) records.push(record);
    }
  }
  return { history: history(), records };
}

function compactRecord(
  current: ReturnType<typeof applyCompactions>,
  run: { readonly step: Extract<Step, { kind: 'compact' }>; readonly records: readonly CompactionRecord[] },
): CompactionRecord | undefined {
  const viewUnits = groupTransactions(current.view);
  if (viewUnits.length === 0) return undefined;
  const from = run.step.from % viewUnits.length;
  const chosen = viewUnits.slice(from, from + run.step.length);
  const pinnedUnits = chosen.filter((_, index) => (run.step.pins >> index) & 1);
  if (pinnedUnits.length === chosen.length) pinnedUnits.pop();
  const pinned = pinnedUnits.flatMap((unit) => unit.messages.map(viewId));
  const pinnedSet = new Set(pinned);
  const replaces = chosen.flatMap((unit) => unit.messages.map(viewId)).filter((id) => !pinnedSet.has(id));
  const byId = new Map(run.records.map((record) => [record.id, record]));
  const parents = replaces.filter((id) => byId.has(id));
  const depth = Math.max(0, ...parents.map((id) => byId.get(id)?.depth ?? 0)) + 1;
  const id = `r-${run.records.length + 1}`;
  return {
    id,
    kind: 'summary',
    replaces,
    ...(pinned.length === 0 ? {} : { pinned }),
    summary: { id: `s-${run.records.length + 1}`, role: 'user', content: `summary of ${replaces.length}` },
    depth,
    parents,
    producer: { strategy: 'test' },
    tokensBefore: 0,
    tokensAfter: 0,
    trigger: 'manual',
    createdAt: '2026-12-07T00:00:00Z',
  };
}

/** The original message ids a view stands for, each summary expanded through its records. */
function expand(view: readonly Message[], records: readonly CompactionRecord[]): string[] {
  const byId = new Map(records.map((record) => [record.id, record]));
  const out: string[] = [];
  const visit = (id: string): void => {
    const record = byId.get(id);
    if (record === undefined) out.push(id);
    else for (const inner of record.replaces) visit(inner);
  };
  for (const message of view) {
    const record = message.metadata?.[COMPACTION_ID_KEY];
    visit(typeof record === 'string' ? record : message.id);
  }
  return out;
}

/** Every history id once; apart from pinned messages (moved after their summary), in history order. */
function expectExactlyOnce(
  shown: readonly string[],
  session: { readonly history: readonly Message[]; readonly records: readonly CompactionRecord[] },
): void {
  const ids = session.history.map((message) => message.id);
  expect([...shown].sort()).toEqual([...ids].sort());
  const pinnedItems = session.records.flatMap((record) => record.pinned ?? []);
  const pinned = new Set(
    expand(
      pinnedItems.map((id) => ({ id, role: 'user', content: '' })),
      session.records,
    ),
  );
  const unpinned = (list: readonly string[]) => list.filter((id) => !pinned.has(id));
  expect(unpinned(shown)).toEqual(unpinned(ids));
}

describe('sessionView', () => {
  test.prop([conversationArbitrary({ maxUnits: 30 }), fc.array(stepArbitrary, { maxLength: 25 })])(
    'shows every message exactly once, raw or through one summary, with valid lineage and whole transactions',
    (conversation, steps) => {
      const { history, records } = run(conversation, steps, { rewinds: false });
      const { view, violations, applied } = applyCompactions(history, records);
      expect(violations).toEqual([]);
      expect(applied).toHaveLength(records.length);
      expectExactlyOnce(expand(view, records), { history, records });
      expect(validateToolCallIntegrity(view)).toEqual(validateToolCallIntegrity(history));
    },
  );

  test.prop([conversationArbitrary({ maxUnits: 30 }), fc.array(stepArbitrary, { maxLength: 25 })])(
    'after a rewind, shows every remaining message exactly once and leaves out the records that no longer fit',
    (conversation, steps) => {
      const { history, records } = run(conversation, steps, { rewinds: true });
      const { view, applied, violations } = applyCompactions(history, records);
      const appliedRecords = records.filter((record) => applied.includes(record.id));
      expectExactlyOnce(expand(view, appliedRecords), { history, records: appliedRecords });
      expect(applied.length + violations.length).toBe(records.length);
      expect(validateToolCallIntegrity(view)).toEqual(validateToolCallIntegrity(history));
    },
  );

  test.prop([conversationArbitrary({ maxUnits: 20 }), fc.array(stepArbitrary, { maxLength: 15 })])(
    'is pure: the same messages and records give equal views, with the same summary objects',
    (conversation, steps) => {
      const { history, records } = run(conversation, steps, { rewinds: false });
      const first = applyCompactions(history, records).view;
      const second = applyCompactions(history, records).view;
      expect(second).toHaveLength(first.length);
      second.forEach((message, index) => {
        expect(message).toBe(first[index]);
      });
    },
  );
});
