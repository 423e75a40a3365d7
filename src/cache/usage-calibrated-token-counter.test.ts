import { describe, expect, it } from 'vitest';
import { catchError } from '../testing/catch-error.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import {
  type TokenCalibrationSnapshot,
  UsageCalibratedTokenCounter,
} from './usage-calibrated-token-counter.js';

const inner = new SimpleTokenCounter();
const text = 'x'.repeat(400);

describe('UsageCalibratedTokenCounter', () => {
  it('learns the ratio to the billed input tokens per model once enough samples are in', () => {
    const counter = new UsageCalibratedTokenCounter(inner, { model: 'claude', minSamples: 3 });
    const base = inner.countText(text);
    for (const billed of [1.2, 1.3])
      counter.record({ countedTokens: 1_000, usage: { input_tokens: billed * 1_000 } });
    expect(counter.countText(text)).toBe(base);
    counter.record({ countedTokens: 1_000, usage: { input_tokens: 1_250 } });
    expect(counter.ratio()).toBeCloseTo(1.25);
    expect(counter.countText(text)).toBe(Math.round(base * 1.25));
    expect(counter.forModel('other').ratio()).toBe(1);
  });

  it('uses the median, ignores samples beyond the bounds, and keeps a bounded window', () => {
    const counter = new UsageCalibratedTokenCounter(inner, { minSamples: 1, window: 5, maxRatio: 3 });
    for (const ratio of [1.1, 1.1, 1.1, 2.9, 1.1])
      counter.record({ countedTokens: 100, usage: { prompt_tokens: ratio * 100 } });
    expect(counter.ratio()).toBeCloseTo(1.1);
    expect(counter.record({ countedTokens: 100, usage: { prompt_tokens: 5_000 } })).toBe(false);
    for (let index = 0; index < 10; index += 1)
      counter.record({ countedTokens: 100, usage: { prompt_tokens: 150 } });
    expect(counter.snapshot().models['default']).toHaveLength(5);
    expect(counter.ratio()).toBeCloseTo(1.5);
  });

  it('counts the messages and tools of a sample itself, and persists through a snapshot', () => {
    const saved: TokenCalibrationSnapshot[] = [];
    const counter = new UsageCalibratedTokenCounter(inner, {
      minSamples: 1,
      onUpdate: (snapshot) => saved.push(snapshot),
    });
    const messages = [{ id: 'm', role: 'user' as const, content: text }];
    const counted = inner.countMessages(messages);
    counter.record({ messages, usage: { inputTokens: counted * 2, inputTokenDetails: {} } });
    expect(counter.ratio()).toBeCloseTo(2);
    const restored = new UsageCalibratedTokenCounter(inner, {
      minSamples: 1,
      snapshot: saved.at(-1) as TokenCalibrationSnapshot,
    });
    expect(restored.countMessages(messages)).toBe(counted * 2);
  });

  it('rejects impossible options', () => {
    expect(catchError(() => new UsageCalibratedTokenCounter(inner, { maxRatio: 1 }))).toMatchObject({
      code: 'INVALID_OPTIONS',
    });
  });
});
