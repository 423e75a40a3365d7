import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alignHistoryRows } from './align-history-rows.js';
import type { HistoryDiffEntry, HistoryStatus } from './diff-history.js';

const entry = (id: string, status: HistoryStatus): HistoryDiffEntry => ({
  id,
  role: 'user',
  text: id,
  content: id,
  status,
  reasons: [],
});

/** A stored list and a sent list that shares some of its ids, in any order, plus new ones. */
const diffs = fc
  .uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 30 })
  .chain((stored) =>
    fc.record({
      stored: fc.constant(stored),
      sent: fc.shuffledSubarray([...stored, 100, 101, 102, 103]),
    }),
  )
  .map(({ stored, sent }) => ({
    stored: stored.map((id) => entry(`m${id}`, sent.includes(id) ? 'kept' : 'dropped')),
    sent: sent.map((id) => entry(`m${id}`, stored.includes(id) ? 'kept' : 'added')),
  }));

describe('alignHistoryRows', () => {
  it('shows every stored and every sent message once, each column in its order, same ids side by side', () => {
    fc.assert(
      fc.property(diffs, (diff) => {
        const rows = alignHistoryRows(diff);
        expect(rows.flatMap((row) => (row.stored === undefined ? [] : [row.stored]))).toEqual(diff.stored);
        expect(rows.flatMap((row) => (row.sent === undefined ? [] : [row.sent]))).toEqual(diff.sent);
        expect(rows.map((row) => row.index)).toEqual(rows.map((_, index) => index));
        for (const row of rows) {
          if (row.stored !== undefined && row.sent !== undefined) expect(row.sent.id).toBe(row.stored.id);
        }
      }),
      { numRuns: 200 },
    );
  });
});
