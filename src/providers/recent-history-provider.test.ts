import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../memory/history-entry.js';
import type { ReadRecentOptions } from '../memory/history-log.js';
import { TiktokenTokenCounter } from '../tokens/tiktoken-token-counter.js';
import { RecentHistoryProvider } from './recent-history-provider.js';
import { testBuildContext } from './test-context.js';

function source(entries: readonly HistoryEntry[], dreamCursor = 0) {
  const calls: ReadRecentOptions[] = [];
  return {
    calls,
    readDreamCursor: async () => dreamCursor,
    readRecent: async (options: ReadRecentOptions = {}) => {
      calls.push(options);
      return entries.filter((entry) => entry.cursor > (options.sinceCursor ?? 0));
    },
  };
}

const entry = (cursor: number, content: string, sessionKey = 'cli:direct'): HistoryEntry => ({
  cursor,
  timestamp: `2026-11-${String(10 + (cursor % 20)).padStart(2, '0')} 10:00`,
  content,
  sessionKey,
});

async function text(provider: RecentHistoryProvider, input = {}): Promise<string | undefined> {
  const [message] = await provider.getMessages({ sessionKey: 'cli:direct', ...input }, testBuildContext());
  return typeof message?.content === 'string' ? message.content : undefined;
}

describe('RecentHistoryProvider', () => {
  it('lists entries after the dream cursor, scoped to the session', async () => {
    const log = source([entry(1, 'old'), entry(2, 'new one'), entry(3, 'newer')], 1);
    const provider = new RecentHistoryProvider({ workspace: '/w', source: log });
    expect(await text(provider)).toBe(
      '# Recent History\n\n- [2026-11-12 10:00] new one\n- [2026-11-13 10:00] newer',
    );
    expect(log.calls).toEqual([{ sinceCursor: 1, sessionKey: 'cli:direct', unified: false }]);
  });

  it('keeps only the newest 50 entries', async () => {
    const entries = Array.from({ length: 60 }, (_, index) => entry(index + 1, `e${index + 1}`));
    const result = await text(new RecentHistoryProvider({ workspace: '/w', source: source(entries) }));
    const lines = result?.split('\n').slice(2) ?? [];
    expect(lines).toHaveLength(50);
    expect(lines[0]).toMatch(/ e11$/);
    expect(lines.at(-1)).toMatch(/ e60$/);
  });

  it('drops the last entry equal to the archived summary of this session', async () => {
    const log = source([entry(1, 'S'), entry(2, 'S', 'other'), entry(3, 'kept'), entry(4, 'S')]);
    const result = await text(new RecentHistoryProvider({ workspace: '/w', source: log }), {
      summary: { text: 'S', lastActive: '2026-11-30T00:00:00Z' },
    });
    expect(
      result
        ?.split('\n')
        .slice(2)
        .map((line) => line.slice(21)),
    ).toEqual(['S', 'S', 'kept']);
  });

  it('caps the text at maxTokens cl100k tokens with the suffix counted inside', async () => {
    const counter = await TiktokenTokenCounter.create({ encoding: 'cl100k_base' });
    const entries = Array.from({ length: 40 }, (_, index) =>
      entry(index + 1, `the quick brown fox ${index} `.repeat(20)),
    );
    const result = await text(
      new RecentHistoryProvider({ workspace: '/w', source: source(entries), maxTokens: 300 }),
    );
    const body = result?.slice('# Recent History\n\n'.length) ?? '';
    expect(body.endsWith('\n... (truncated)')).toBe(true);
    expect(counter.countText(body)).toBeLessThanOrEqual(300);
    expect(counter.countText(body)).toBeGreaterThan(290);
  });

  it('emits nothing when no entry is left', async () => {
    expect(await text(new RecentHistoryProvider({ workspace: '/w', source: source([]) }))).toBeUndefined();
  });

  it('renders and counts again only when the source gives other entries or the summary changes', async () => {
    const entries = [entry(1, 'first'), entry(2, 'second')];
    let encoded = 0;
    const counter = await TiktokenTokenCounter.create({ encoding: 'cl100k_base' });
    const tokenizer = {
      encode: (value: string) => {
        encoded += 1;
        return counter.encode(value);
      },
      decode: (tokens: readonly number[]) => counter.decode(tokens),
    };
    const stable = { readDreamCursor: async () => 0, readRecent: async () => entries };
    const provider = new RecentHistoryProvider({ workspace: '/w', source: stable, tokenizer });
    const once = await text(provider);
    const counted = encoded;
    expect(await text(provider)).toBe(once);
    expect(encoded).toBe(counted);
    expect(await text(provider, { summary: { text: 'second' } })).toBe(
      '# Recent History\n\n- [2026-11-11 10:00] first',
    );
    expect(encoded).toBeGreaterThan(counted);
  });
});
