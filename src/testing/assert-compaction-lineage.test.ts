import { describe, expect, it } from 'vitest';
import type { CompactionRecord } from '../core/compaction-record.js';
import { assistant, user } from '../core/factories.js';
import { assertCompactionLineage } from './index.js';

const messages = [
  user('rule: never push to main', { id: 'u1' }),
  assistant('ok', { id: 'a1' }),
  user('step 2', { id: 'u2' }),
  assistant('done 2', { id: 'a2' }),
  user('step 3', { id: 'u3' }),
];

const record = (
  over: Partial<CompactionRecord> & Pick<CompactionRecord, 'id' | 'replaces'>,
): CompactionRecord => ({
  kind: 'summary',
  summary: user(`summary ${over.id}`, { id: `${over.id}-summary` }),
  depth: 1,
  parents: [],
  producer: { strategy: 'summarize' },
  tokensBefore: 10,
  tokensAfter: 2,
  trigger: 'manual',
  createdAt: '2026-12-07T00:00:00.000Z',
  ...over,
});

describe('assertCompactionLineage (ctxloom/testing)', () => {
  it('returns the view of sound records: chained, with a pin shown once after its summary', () => {
    const first = record({ id: 'c1', replaces: ['a1', 'u2'], pinned: ['u1'] });
    const second = record({ id: 'c2', replaces: ['c1', 'u1', 'a2'], depth: 2, parents: ['c1'] });
    expect(assertCompactionLineage(messages, [first]).map((message) => message.id)).toEqual([
      'c1-summary',
      'u1',
      'a2',
      'u3',
    ]);
    expect(assertCompactionLineage(messages, [first, second]).map((message) => message.id)).toEqual([
      'c2-summary',
      'u3',
    ]);
  });

  it('throws with every violation: an unknown id, an id covered twice', () => {
    expect(() => assertCompactionLineage(messages, [record({ id: 'c1', replaces: ['a1', 'zz'] })])).toThrow(
      /record c1: unknown-id/,
    );
    expect(() =>
      assertCompactionLineage(messages, [
        record({ id: 'c1', replaces: ['a1', 'u2'] }),
        record({ id: 'c2', replaces: ['u2', 'a2'] }),
      ]),
    ).toThrow(/record c2: covered-twice/);
  });
});
