import { describe, expect, it } from 'vitest';
import type { PromptCacheBlock, PromptCacheRequest } from '../adapters/prompt-cache-request.js';
import { simulatePromptCache } from './simulate-prompt-cache.js';

type Spec = readonly [tokens: number, text: string, ttl?: '5m' | '1h'];
const MINUTE = 60_000;

/** A request of message blocks; a third tuple entry puts a breakpoint on the block. */
function request(specs: readonly Spec[], at = 0): PromptCacheRequest {
  const blocks = specs.map(
    ([tokens, text, ttl], index): PromptCacheBlock => ({
      area: index === 0 ? 'system' : 'messages',
      index,
      part: 0,
      text,
      tokens,
      ...(ttl === undefined
        ? {}
        : { cacheControl: ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' } }),
    }),
  );
  return { blocks, at };
}

/** n blocks of `tokens` each, named `prefix-i`, with a breakpoint on the listed (1-based) positions. */
function blocks(
  count: number,
  options: { readonly tokens: number; readonly marks: readonly number[] },
): Spec[] {
  return Array.from(
    { length: count },
    (_, index): Spec =>
      options.marks.includes(index + 1)
        ? [options.tokens, `block-${index + 1}`, '5m']
        : [options.tokens, `block-${index + 1}`],
  );
}

describe('simulatePromptCache (Anthropic rules)', () => {
  it('writes the prefix up to a breakpoint at 1.25× and reads it back at 0.1× on the next request', () => {
    const sim = simulatePromptCache(
      [
        request(
          [
            [2_000, 'system', '5m'],
            [100, 'question 1'],
          ],
          0,
        ),
        request(
          [
            [2_000, 'system', '5m'],
            [100, 'question 2'],
          ],
          MINUTE,
        ),
      ],
      { provider: 'anthropic' },
    );
    expect(
      sim.requests.map(({ cacheReadTokens, cacheWriteTokens, uncachedTokens, cost }) => ({
        cacheReadTokens,
        cacheWriteTokens,
        uncachedTokens,
        cost,
      })),
    ).toEqual([
      { cacheReadTokens: 0, cacheWriteTokens: 2_000, uncachedTokens: 100, cost: 2_600 },
      { cacheReadTokens: 2_000, cacheWriteTokens: 0, uncachedTokens: 100, cost: 300 },
    ]);
    expect(sim.totals.costRatio).toBeCloseTo(2_900 / 4_200);
  });

  it('does not cache a prefix below the model minimum (1,024 Sonnet, 2,048 Haiku 3.5, 4,096 Haiku 4.5)', () => {
    const pair = (tokens: number) => [
      request([
        [tokens, 'system', '5m'],
        [10, 'q'],
      ]),
      request([
        [tokens, 'system', '5m'],
        [10, 'q'],
      ]),
    ];
    const read = (tokens: number, model: string) =>
      simulatePromptCache(pair(tokens), { provider: 'anthropic', model }).totals.cacheReadTokens;
    expect(read(1_000, 'claude-sonnet-4-5')).toBe(0);
    expect(read(1_500, 'claude-sonnet-4-5')).toBe(1_500);
    expect(read(1_500, 'claude-3-5-haiku-latest')).toBe(0);
    expect(read(3_000, 'claude-3-5-haiku-latest')).toBe(3_000);
    expect(read(3_000, 'claude-haiku-4-5')).toBe(0);
    expect(read(3_000, 'claude-opus-4-5')).toBe(0);
  });

  it('expires a 5 minute entry after 5 minutes without use, refreshes it on every read, and keeps a 1 h one', () => {
    const at = (minutes: number, ttl: '5m' | '1h' = '5m') =>
      request(
        [
          [2_000, 'system', ttl],
          [10, 'q'],
        ],
        minutes * MINUTE,
      );
    const reads = (requests: PromptCacheRequest[]) =>
      simulatePromptCache(requests, { provider: 'anthropic' }).requests.map((step) => step.cacheReadTokens);
    expect(reads([at(0), at(6)])).toEqual([0, 0]);
    expect(reads([at(0), at(4), at(8), at(12)])).toEqual([0, 2_000, 2_000, 2_000]);
    expect(reads([at(0, '1h'), at(50, '1h'), at(109, '1h')])).toEqual([0, 2_000, 2_000]);
  });

  it('charges 1 h writes at 2× and 5 min writes at 1.25×, and refuses a 1 h breakpoint after a 5 min one', () => {
    const mixed = simulatePromptCache(
      [
        request([
          [2_000, 'system', '1h'],
          [1_000, 'history', '5m'],
          [10, 'q'],
        ]),
      ],
      {
        provider: 'anthropic',
      },
    );
    expect(mixed.requests[0]).toMatchObject({
      cacheWriteTokens: 3_000,
      cacheWrite1hTokens: 2_000,
      cost: 4_000 + 1_250 + 10,
    });
    const wrongOrder = simulatePromptCache(
      [
        request([
          [2_000, 'system', '5m'],
          [1_000, 'history', '1h'],
        ]),
      ],
      {
        provider: 'anthropic',
      },
    );
    expect(wrongOrder.totals.illegalRequests).toBe(1);
    expect(wrongOrder.requests[0]?.cacheWriteTokens).toBe(0);
  });

  it('refuses a request with five breakpoints ("Found 5") and caches nothing for it', () => {
    const sim = simulatePromptCache([request(blocks(6, { tokens: 500, marks: [2, 3, 4, 5, 6] }))], {
      provider: 'anthropic',
    });
    expect(sim.requests[0]?.problems[0]).toContain('Found 5');
    expect(sim.requests[0]?.cost).toBe(3_000);
  });

  it('finds an earlier entry within 20 blocks of a breakpoint, not beyond', () => {
    const first = blocks(30, { tokens: 100, marks: [30] });
    const second = [...blocks(35, { tokens: 100, marks: [35] })];
    const third = blocks(60, { tokens: 100, marks: [60] });
    const thirdWithAnchor = blocks(60, { tokens: 100, marks: [35, 60] });
    const sim = (requests: Spec[][]) =>
      simulatePromptCache(
        requests.map((specs) => request(specs)),
        { provider: 'anthropic' },
      ).requests.map((step) => step.cacheReadTokens);
    // 35 − 30 = 5 blocks back: the entry written at block 30 is found.
    expect(sim([first, second])).toEqual([0, 3_000]);
    // 60 − 35 = 25 blocks back: out of the lookback, so nothing is read ...
    expect(sim([first, second, third])).toEqual([0, 3_000, 0]);
    // ... unless a second breakpoint sits on block 35.
    expect(sim([first, second, thirdWithAnchor])).toEqual([0, 3_000, 3_500]);
  });

  it('reads nothing after a change in the prefix (the hash covers every earlier block)', () => {
    const sim = simulatePromptCache(
      [
        request([
          [2_000, 'system v1'],
          [500, 'history', '5m'],
        ]),
        request([
          [2_000, 'system v2'],
          [500, 'history', '5m'],
        ]),
      ],
      { provider: 'anthropic' },
    );
    expect(sim.requests[1]?.cacheReadTokens).toBe(0);
  });
});

describe('simulatePromptCache (OpenAI rules)', () => {
  it('caches nothing below 1,024 tokens', () => {
    const sim = simulatePromptCache([request([[1_000, 'system']]), request([[1_000, 'system']])], {
      provider: 'openai',
    });
    expect(sim.totals.cacheReadTokens).toBe(0);
  });

  it('reads the shared prefix automatically, as 1,024 tokens plus whole 128-token steps', () => {
    const sim = simulatePromptCache(
      [
        request([
          [2_000, 'system'],
          [100, 'q1'],
        ]),
        request([
          [2_000, 'system'],
          [100, 'q1'],
          [50, 'a1'],
          [70, 'q2'],
        ]),
      ],
      { provider: 'openai' },
    );
    // 2,100 shared tokens: 1,024 + 8 × 128 = 2,048.
    expect(sim.requests[1]?.cacheReadTokens).toBe(2_048);
    expect(sim.requests[1]?.cost).toBeCloseTo(2_048 * 0.1 + (2_220 - 2_048));
    expect(sim.totals.cacheWriteTokens).toBe(0);
  });

  it('forgets in-memory prefixes after the retention time and keeps them a day with 24h retention', () => {
    const requests = [request([[2_000, 'system']], 0), request([[2_000, 'system']], 6 * MINUTE)];
    expect(simulatePromptCache(requests, { provider: 'openai' }).requests[1]?.cacheReadTokens).toBe(0);
    expect(
      simulatePromptCache(requests, { provider: 'openai', retention: '24h' }).requests[1]?.cacheReadTokens,
    ).toBe(1_920);
  });

  it('reports the steady-state hit rate without the warm-up requests', () => {
    const requests = [0, 1, 2].map((turn) =>
      request([
        [4_096, 'system'],
        [128, `q${turn}`],
      ]),
    );
    const { totals } = simulatePromptCache(requests, { provider: 'openai' });
    expect(totals.steadyStateHitRate).toBeCloseTo(4_096 / 4_224);
    expect(totals.hitRate).toBeCloseTo((2 * 4_096) / (3 * 4_224));
  });
});
