import { test } from '@fast-check/vitest';
import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { ContextError } from '../core/errors.js';
import { user } from '../core/factories.js';
import { textArbitrary } from '../testing/arbitraries.js';
import { resolveTiktokenEncoding } from './tiktoken-encoding.js';
import { TiktokenTokenCounter } from './tiktoken-token-counter.js';

const samples = [
  'Hello, world!',
  'The quick brown fox jumps over the lazy dog. '.repeat(20),
  '今天天气很好，我们去公园散步吧。',
  'function add(a: number, b: number): number {\n  return a + b; // sum\n}\n',
  '🙂👍🏽 emoji and accents: café, naïve, Ångström',
  '{"path": "notes/today.md", "limit": 200}',
];

describe('TiktokenTokenCounter', () => {
  it("matches gpt-tokenizer's own counts for o200k_base and cl100k_base", async () => {
    const counters = [
      { counter: await TiktokenTokenCounter.create({ encoding: 'o200k_base' }), reference: o200k },
      { counter: await TiktokenTokenCounter.create({ encoding: 'cl100k_base' }), reference: cl100k },
    ];
    for (const { counter, reference } of counters) {
      for (const text of samples) {
        expect(counter.countText(text)).toBe(reference.countTokens(text));
        expect(counter.countText(text)).toBe(reference.encode(text).length);
        expect(counter.encode(text)).toEqual(reference.encode(text));
      }
    }
    expect(counters[0]?.counter.countText(samples[2] as string)).not.toBe(
      counters[1]?.counter.countText(samples[2] as string),
    );
  });

  it('counts a message as its text plus the 4-token overhead', async () => {
    const counter = await TiktokenTokenCounter.create({ model: 'gpt-4o' });
    expect(counter.countMessage(user('Hello, world!'))).toBe(o200k.countTokens('Hello, world!') + 4);
  });

  it('counts special-token strings in user text as plain text instead of throwing', async () => {
    const counter = await TiktokenTokenCounter.create({ model: 'gpt-4o' });
    const text = 'ignore <|endoftext|> this';
    expect(counter.countText(text)).toBe(o200k.encode(text, { disallowedSpecial: new Set() }).length);
    expect(counter.countText(text)).toBeGreaterThan(3);
  });

  it('round-trips text through encode and decode', async () => {
    const counter = await TiktokenTokenCounter.create({ encoding: 'o200k_base' });
    for (const text of samples) expect(counter.decode(counter.encode(text))).toBe(text);
  });

  it('chooses the encoding from the model name', async () => {
    expect((await TiktokenTokenCounter.create({ model: 'gpt-4o-mini' })).id).toBe('tiktoken:o200k_base');
    expect((await TiktokenTokenCounter.create({ model: 'gpt-3.5-turbo' })).id).toBe('tiktoken:cl100k_base');
    const cases: Record<string, string> = {
      'gpt-4o': 'o200k_base',
      'openai/gpt-4o-2024-08-06': 'o200k_base',
      'GPT-4.1-mini': 'o200k_base',
      o1: 'o200k_base',
      'o3-mini': 'o200k_base',
      'o4-mini': 'o200k_base',
      'gpt-5': 'o200k_base',
      'gpt-5.1-codex': 'o200k_base',
      'gpt-4': 'cl100k_base',
      'gpt-4-turbo': 'cl100k_base',
      'gpt-4-0613': 'cl100k_base',
      'gpt-3.5-turbo-0125': 'cl100k_base',
    };
    for (const [model, encoding] of Object.entries(cases))
      expect([model, resolveTiktokenEncoding(model)]).toEqual([model, encoding]);
  });

  it('rejects an unknown model with INVALID_OPTIONS listing the known families', async () => {
    const error = await TiktokenTokenCounter.create({ model: 'llama-3-70b' }).catch(
      (caught: unknown) => caught,
    );
    expect(ContextError.isInstance(error) && error.code).toBe('INVALID_OPTIONS');
    expect((error as Error).message).toContain("Unknown OpenAI model 'llama-3-70b'");
    expect((error as Error).message).toContain('gpt-4o* → o200k_base');
    expect((error as Error).message).toContain('gpt-3.5* → cl100k_base');
    expect(() => resolveTiktokenEncoding('o10')).toThrow(/Unknown OpenAI model/);
  });

  it('is usable with a preloaded encoder through the constructor', () => {
    const counter = new TiktokenTokenCounter({
      encoder: cl100k,
      encoding: 'cl100k_base',
      messageOverheadTokens: 3,
    });
    expect(counter.id).toBe('tiktoken:cl100k_base');
    expect(counter.countMessage(user('hi'))).toBe(cl100k.countTokens('hi') + 3);
  });

  it('throws ABORTED when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await TiktokenTokenCounter.create({
      encoding: 'o200k_base',
      signal: controller.signal,
    }).catch((caught: unknown) => caught);
    expect(ContextError.isInstance(error) && error.code).toBe('ABORTED');
  });

  test.prop([textArbitrary(300)], { numRuns: 100 })(
    "equals gpt-tokenizer's encode().length on random text, both encodings",
    async (text) => {
      const [o200kCounter, cl100kCounter] = await Promise.all([
        TiktokenTokenCounter.create({ encoding: 'o200k_base' }),
        TiktokenTokenCounter.create({ encoding: 'cl100k_base' }),
      ]);
      const plain = { disallowedSpecial: new Set<string>() };
      expect(o200kCounter.countText(text)).toBe(o200k.encode(text, plain).length);
      expect(cl100kCounter.countText(text)).toBe(cl100k.encode(text, plain).length);
    },
  );
});
