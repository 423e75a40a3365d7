import { describe, expect, it } from 'vitest';
import { assistant, user } from '../core/factories.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { archivedSummaryOf, replayBudget, replaySession } from './replay-session.js';
import type { SessionRecord } from './session-store.js';

const record = (metadata: SessionRecord['metadata']): SessionRecord => ({
  key: 'cli:direct',
  messages: [user('hi', { id: 'u1' }), assistant('hello', { id: 'a1' })],
  metadata,
  lastConsolidated: 0,
  updatedAt: '2026-11-30T10:00:00.000Z',
  exists: true,
  warnings: [],
});

describe('replayBudget', () => {
  it('is window − max(1, output) − 1024, else max(128, window / 2)', () => {
    expect(replayBudget({ contextWindowTokens: 65_536, maxOutputTokens: 8_192 })).toBe(56_320);
    expect(replayBudget({ contextWindowTokens: 65_536, maxOutputTokens: 0 })).toBe(64_511);
    expect(replayBudget({ contextWindowTokens: 2_000, maxOutputTokens: 4_096 })).toBe(1_000);
    expect(replayBudget({ contextWindowTokens: 100, maxOutputTokens: 4_096 })).toBe(128);
  });
});

describe('archivedSummaryOf', () => {
  it('reads _last_summary and falls back to updatedAt for a malformed last_active', () => {
    expect(
      archivedSummaryOf(record({ _last_summary: { text: 'S', last_active: '2026-11-29T08:00:00Z' } })),
    ).toEqual({
      text: 'S',
      lastActive: '2026-11-29T08:00:00Z',
    });
    expect(archivedSummaryOf(record({ _last_summary: { text: 'S', last_active: 'yesterday' } }))).toEqual({
      text: 'S',
      lastActive: '2026-11-30T10:00:00.000Z',
    });
  });

  it('has no summary for a missing or blank text', () => {
    expect(archivedSummaryOf(record({}))).toBeUndefined();
    expect(archivedSummaryOf(record({ _last_summary: { text: '  ' } }))).toBeUndefined();
    expect(archivedSummaryOf(record({ _last_summary: 'text' }))).toBeUndefined();
  });
});

describe('replaySession', () => {
  it('replays the history and the summary', () => {
    const replayed = replaySession(
      record({ _last_summary: { text: 'S', last_active: '2026-11-29T08:00:00Z' } }),
      {
        tokenCounter: new SimpleTokenCounter(),
        contextWindowTokens: 65_536,
        maxOutputTokens: 8_192,
      },
    );
    expect(replayed.history.map((message) => message.content)).toEqual(['hi', 'hello']);
    expect(replayed.summary?.text).toBe('S');
  });
});
