import type { HistoryDiff, HistoryDiffEntry } from './diff-history.js';

/** One row of the stored-versus-sent view: the same message on both sides, or one side alone. */
export type HistoryRow = {
  /** The row's place in the whole list, from 0. */
  readonly index: number;
  readonly stored?: HistoryDiffEntry;
  readonly sent?: HistoryDiffEntry;
};

/**
 * Lines up the two columns of a {@link HistoryDiff} by message: a stored message and its sent copy
 * share a row; a stored message that was not sent (dropped, archived, skipped) and a sent message with
 * no stored counterpart (system prompt, current message) get a row of their own, in order. Pure.
 */
export function alignHistoryRows(diff: HistoryDiff): readonly HistoryRow[] {
  const sentIndex = new Map(diff.sent.map((entry, index) => [entry.id, index]));
  const rows: HistoryRow[] = [];
  const push = (row: Omit<HistoryRow, 'index'>) => rows.push({ index: rows.length, ...row });
  let next = 0;
  for (const stored of diff.stored) {
    const at = sentIndex.get(stored.id);
    if (at === undefined || at < next) {
      push({ stored });
      continue;
    }
    for (; next < at; next += 1) push(sentOnly(diff.sent[next]));
    push({ stored, ...sentOnly(diff.sent[at]) });
    next = at + 1;
  }
  for (; next < diff.sent.length; next += 1) push(sentOnly(diff.sent[next]));
  return rows;
}

function sentOnly(entry: HistoryDiffEntry | undefined): Omit<HistoryRow, 'index'> {
  return entry === undefined ? {} : { sent: entry };
}
