import { describe, expect, it, vi } from 'vitest';
import type { CompactionRecord } from '../core/compaction-record.js';
import { assistant, user } from '../core/factories.js';

import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { MemorySessionStore } from './memory-session-store.js';
import {
  archivedSummaryOf,
  LAST_SUMMARY_KEY,
  loadReplayedSession,
  replayBudget,
  replayMaxMessages,
  replaySession,
} from './replay-session.js';
import { COMPACTIONS_METADATA_KEY } from './session-compactions.js';
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

describe('replayMaxMessages', () => {
  it('is one message per 100 window tokens, between 120 and 2000 (nanobot)', () => {
    expect(replayMaxMessages(8_000)).toBe(120);
    expect(replayMaxMessages(32_768)).toBe(327);
    expect(replayMaxMessages(200_000)).toBe(2_000);
    expect(replayMaxMessages(0)).toBe(2_000);
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

  it('replays by tokens only, as the model loop does, and by count too when given maxMessages', () => {
    const messages = Array.from({ length: 300 }, (_, index) =>
      index % 2 === 0 ? user(`u${index}`, { id: `m${index}` }) : assistant(`a${index}`, { id: `m${index}` }),
    );
    const budget = {
      tokenCounter: new SimpleTokenCounter(),
      contextWindowTokens: 8_000,
      maxOutputTokens: 100,
    };
    const replayed = replaySession({ ...record({}), messages }, budget);
    expect(replayed.history).toHaveLength(300);
    const capped = replaySession(
      { ...record({}), messages },
      { ...budget, maxMessages: replayMaxMessages(budget.contextWindowTokens) },
    );
    expect(capped.history.map((message) => message.id)).toEqual(
      messages.slice(180).map((message) => message.id),
    );
  });
});

describe('loadReplayedSession', () => {
  const options = {
    tokenCounter: new SimpleTokenCounter(),
    contextWindowTokens: 16_000,
    maxOutputTokens: 1_000,
  };
  const turns = (count: number) =>
    Array.from({ length: count }, (_, index) =>
      index % 2 === 0
        ? user(`question ${index}`, { id: `m${index}` })
        : assistant(`answer ${index}`, { id: `m${index}` }),
    );

  it('loads only the newest messages the replay can use, and replays what a whole load replays', async () => {
    const store = new MemorySessionStore();
    await store.append('k', turns(1_000));
    await store.setMetadata('k', {
      [LAST_SUMMARY_KEY]: { text: 'earlier', last_active: '2026-01-01T00:00:00Z' },
    });
    const loaded = await loadReplayedSession(store, { sessionKey: 'k', ...options });
    expect(loaded.record.firstIndex).toBeUndefined(); // 1,000 messages: the first load holds them all
    const long = new MemorySessionStore();
    await long.append('k', turns(5_000));
    const newest = await loadReplayedSession(long, { sessionKey: 'k', ...options });
    // The token budget (13,976) stops inside the newest 2,000 messages: they are all it loads.
    expect(newest.record.firstIndex).toBe(3_000);
    expect(newest.history.length).toBeLessThan(2_000);
    expect(newest.history).toEqual(replaySession(await long.load('k'), options).history);
    const capped = await loadReplayedSession(long, { sessionKey: 'k', ...options, maxMessages: 160 });
    expect(capped.record.firstIndex).toBe(4_840);
    expect(capped.history).toHaveLength(160);
    const whole = replaySession(await store.load('k'), options);
    expect(loaded.history).toEqual(whole.history);
    expect(loaded.summary).toEqual(whole.summary);
  });

  it('warns for a compaction record that no longer fits (a rewind), replaying its messages raw', async () => {
    const store = new MemorySessionStore();
    await store.append('k', turns(6));
    const record: CompactionRecord = {
      id: 'cmp-1',
      kind: 'summary',
      replaces: ['m0', 'm1', 'gone'],
      summary: user('summary of the start', { id: 'cmp-1-summary' }),
      depth: 1,
      parents: [],
      producer: { strategy: 'summarize' },
      tokensBefore: 30,
      tokensAfter: 5,
      trigger: 'manual',
      createdAt: '2026-12-07T00:00:00.000Z',
    };
    await store.setMetadata('k', { [COMPACTIONS_METADATA_KEY]: [record] });
    const loaded = await loadReplayedSession(store, { sessionKey: 'k', ...options });
    expect(loaded.history.map((message) => message.id)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5']);
    expect(loaded.record.warnings).toHaveLength(1);
    expect(loaded.record.warnings[0]).toMatch(/Compaction record cmp-1 is not applied \(unknown-id: .*gone/);
  });

  it('loads past the newest 2,000 messages when they fit the budget whole, replaying them all', async () => {
    const store = new MemorySessionStore();
    await store.append('k', turns(2_400));
    const loaded = await loadReplayedSession(store, {
      sessionKey: 'k',
      ...options,
      contextWindowTokens: 200_000,
    });
    expect(loaded.record.firstIndex).toBeUndefined();
    expect(loaded.history).toHaveLength(2_400);
  });

  it('loads the unconsolidated tail, not the archived part, when that is what the replay needs', async () => {
    const store = new MemorySessionStore();
    await store.append('k', turns(6_000));
    await store.setLastConsolidated('k', 3_000);
    const loads = vi.spyOn(store, 'load');
    const loaded = await loadReplayedSession(store, {
      sessionKey: 'k',
      ...options,
      contextWindowTokens: 200_000,
    });
    expect(loads.mock.calls.map((call) => call[1]?.lastMessages)).toEqual([2_000, 3_016]);
    expect(loaded.history).toHaveLength(3_000);
    expect(loaded.history).toEqual(
      replaySession(await store.load('k'), { ...options, contextWindowTokens: 200_000 }).history,
    );
  });

  it('loads the whole session when the replay reaches back further (an archived tail without a user turn)', async () => {
    const store = new MemorySessionStore();
    const steps = Array.from({ length: 200 }, (_, index) => assistant(`step ${index}`, { id: `s${index}` }));
    await store.append('k', [...turns(300), ...steps]);
    await store.setLastConsolidated('k', 500);
    const loaded = await loadReplayedSession(store, { sessionKey: 'k', ...options });
    expect(loaded.record.firstIndex).toBeUndefined();
    expect(loaded.record.messages).toHaveLength(500);
    expect(loaded.history).toEqual(replaySession(await store.load('k'), options).history);
    expect(loaded.history[0]?.id).toBe('m298');
  });
});
