import { describe, expect, it } from 'vitest';
import type { CompactionRecord } from '../core/compaction-record.js';
import type { Message } from '../core/message.js';
import { sessionView } from '../core/session-view.js';
import { validateCompactionLineage } from '../core/validate-compaction-lineage.js';

const history: readonly Message[] = [
  { id: 'u1', role: 'user', content: 'Rename the config' },
  { id: 'a1', role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read', arguments: '{}' }] },
  { id: 't1', role: 'tool', content: 'old config', toolCallId: 'c1' },
  { id: 'a2', role: 'assistant', content: 'Done.' },
  { id: 'u2', role: 'user', content: 'Now the tests' },
];

function record(
  overrides: Partial<CompactionRecord> & Pick<CompactionRecord, 'id' | 'replaces'>,
): CompactionRecord {
  return {
    kind: 'summary',
    summary: { id: `${overrides.id}-summary`, role: 'user', content: 'Summary.' },
    depth: 1,
    parents: [],
    producer: { strategy: 'test' },
    tokensBefore: 10,
    tokensAfter: 2,
    trigger: 'manual',
    createdAt: '2026-12-07T00:00:00Z',
    ...overrides,
  };
}

const types = (records: readonly CompactionRecord[]) =>
  validateCompactionLineage(history, records).map((violation) => violation.type);

describe('validateCompactionLineage', () => {
  it('accepts a run of whole transactions and a chained record over it', () => {
    const first = record({ id: 'r1', replaces: ['u1', 'a1', 't1'] });
    const second = record({ id: 'r2', replaces: ['r1', 'a2'], parents: ['r1'], depth: 2 });
    expect(types([first, second])).toEqual([]);
    expect(sessionView(history, [first, second]).map((message) => message.id)).toEqual(['r2-summary', 'u2']);
  });

  it('names every kind of violation', () => {
    expect(types([record({ id: 'u1', replaces: ['a2'] })])).toEqual(['duplicate-record-id']);
    expect(types([record({ id: 'r1', replaces: [] })])).toEqual(['empty-run']);
    expect(types([record({ id: 'r1', replaces: ['nope'] })])).toEqual(['unknown-id']);
    expect(types([record({ id: 'r1', replaces: ['a2'] }), record({ id: 'r2', replaces: ['a2'] })])).toEqual([
      'covered-twice',
    ]);
    expect(types([record({ id: 'r1', replaces: ['u1', 'a2'] })])).toEqual(['not-contiguous']);
    expect(types([record({ id: 'r1', replaces: ['t1', 'u1', 'a1'] })])).toEqual(['not-contiguous']);
    expect(types([record({ id: 'r1', replaces: ['u1', 'a1'] })])).toEqual(['split-transaction']);
    expect(types([record({ id: 'r1', replaces: ['u1', 'a1', 't1'], pinned: ['t1'] })])).toEqual([
      'pinned-in-replaces',
    ]);
    expect(types([record({ id: 'r1', replaces: ['u1', 'a1'], pinned: ['t1'] })])).toEqual([
      'split-transaction',
    ]);
    expect(types([record({ id: 'r1', replaces: ['a2'], depth: 2 })])).toEqual(['bad-lineage']);
  });

  it('shows a pinned message once, with its own id, right after the summary', () => {
    const pinned = record({ id: 'r1', replaces: ['a1', 't1', 'a2'], pinned: ['u1'] });
    const view = sessionView(history, [pinned]);
    expect(view.map((message) => message.id)).toEqual(['r1-summary', 'u1', 'u2']);
    expect(view[0]?.metadata).toEqual({ compactionId: 'r1' });
    expect(view[1]).toBe(history[0]);
  });

  it('leaves out a record that no longer fits and every record that names it', () => {
    const first = record({ id: 'r1', replaces: ['u1', 'a1', 't1'] });
    const second = record({ id: 'r2', replaces: ['r1'], parents: ['r1'], depth: 2 });
    const rewound = history.slice(0, 2);
    expect(
      validateCompactionLineage(rewound, [first, second]).map((violation) => violation.recordId),
    ).toEqual(['r1', 'r2']);
    expect(sessionView(rewound, [first, second])).toEqual(rewound);
  });

  it('returns the history itself when there are no records', () => {
    expect(sessionView(history, [])).toBe(history);
  });
});
