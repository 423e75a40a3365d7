import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from '@fast-check/vitest';
import * as fc from 'fast-check';
import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import { beforeAll, describe, expect, it } from 'vitest';
import { ContextError } from '../core/errors.js';
import { textArbitrary } from '../testing/arbitraries.js';
import { BpeEncoder } from './bpe-encoder.js';
import { generateMixedCorpus } from './token-corpus.js';

const PLAIN = { disallowedSpecial: new Set<string>() };
const ALL_SPECIAL = { allowedSpecial: 'all' as const };

/** Each encoding, gpt-tokenizer's module for it (the reference), and an id that is not a token. */
const ENCODINGS = [
  { name: 'o200k_base', reference: o200k, outside: 199_998 },
  { name: 'cl100k_base', reference: cl100k, outside: 100_256 },
] as const;

describe.each(ENCODINGS)('BpeEncoder $name', ({ name, reference, outside }) => {
  const referenceCount = (text: string) => reference.countTokens(text, PLAIN);
  let encoder: BpeEncoder;
  beforeAll(async () => {
    encoder = await BpeEncoder.load(name);
  });

  it('counts 10 MB of generated English, code, JSON, Chinese and mixed text exactly as gpt-tokenizer', () => {
    const documents = generateMixedCorpus({ seed: 2026, bytes: 10_000_000 });
    expect(documents.reduce((bytes, text) => bytes + Buffer.byteLength(text), 0)).toBeGreaterThanOrEqual(
      10_000_000,
    );
    const differing = documents.filter((text) => encoder.countTokens(text) !== referenceCount(text));
    expect(differing.map((text) => text.slice(0, 80))).toEqual([]);
  }, 300_000);

  it("encodes 1 MB of mixed text to gpt-tokenizer's token ids and decodes them back", () => {
    for (const text of generateMixedCorpus({ seed: 7, bytes: 1_000_000 })) {
      const tokens = encoder.encode(text);
      expect(tokens).toEqual(reference.encode(text, PLAIN));
      if (!/\p{Cs}/u.test(text)) expect(encoder.decode(tokens)).toBe(text);
    }
  }, 120_000);

  test.prop([fc.oneof(textArbitrary(300), fc.string({ unit: 'binary', maxLength: 60 }))], { numRuns: 500 })(
    'counts and encodes any text as gpt-tokenizer does',
    (text) => {
      expect(encoder.countTokens(text)).toBe(referenceCount(text));
      expect(encoder.encode(text)).toEqual(reference.encode(text, PLAIN));
    },
  );

  it('follows gpt-tokenizer where it drops a byte-order mark while merging', () => {
    for (const text of [
      '\ufeffusing',
      '\ufeff#',
      '\ufeff\ufeff',
      'a\ufeff\n\n',
      '\ufeff//x',
      '\ufeffnamespace Foo',
    ]) {
      expect([text, encoder.countTokens(text)]).toEqual([text, referenceCount(text)]);
      expect(encoder.encode(text)).toEqual(reference.encode(text, PLAIN));
    }
  });

  it('splits every short mix of spaces, line breaks, letters, digits, marks and contractions as gpt-tokenizer', () => {
    // Every string of up to four of these, after and before a word: where the pattern's space and
    // line-break alternatives (trailing runs, runs before a break, runs before a word) decide.
    const atoms = [' ', '\n', '\r', '\t', 'a', 'É', '7', '!', "'s", '中'];
    let texts = [''];
    const all: string[] = [];
    for (let length = 1; length <= 4; length += 1) {
      texts = texts.flatMap((text) => atoms.map((atom) => text + atom));
      all.push(...texts);
    }
    const differing = all
      .flatMap((text) => [text, `x${text}`, `${text}y`])
      .filter((text) => encoder.countTokens(text) !== referenceCount(text));
    expect(differing.map((text) => JSON.stringify(text)).slice(0, 10)).toEqual([]);
  });

  it('merges long pieces (the heap path) exactly as gpt-tokenizer', () => {
    const random = mulberry(3);
    const letters = 'etaoinshrdlucmfwypvbgkqjxz';
    const long = [
      'a'.repeat(3000),
      'ab'.repeat(700),
      Array.from({ length: 1500 }, () => letters[Math.floor(random() * letters.length)]).join(''),
      '的是了我不人在他有这个上们来到时大地为子中你说生国年着就那和要她出也得里后自以会'.repeat(20),
      '='.repeat(500),
      '🙂'.repeat(200),
    ];
    for (const text of long) expect(encoder.countTokens(text)).toBe(referenceCount(text));
  }, 120_000);

  it('counts a piece of hundreds of kilobytes in one go and keeps counting exactly after it', () => {
    expect(encoder.countTokens('a'.repeat(800_000))).toBe(100_000);
    const text = generateMixedCorpus({ seed: 5, bytes: 20_000 }).join('');
    expect(encoder.countTokens(text)).toBe(referenceCount(text));
  }, 60_000);

  it('counts special-token strings as the plain text they are, and decodes special ids', () => {
    expect(encoder.countTokens('<|endoftext|>')).toBe(referenceCount('<|endoftext|>'));
    expect(encoder.countTokens('<|endoftext|>')).toBeGreaterThan(1);
    const special = [
      reference.encode('<|endoftext|>', ALL_SPECIAL),
      reference.encode('<|endofprompt|>', ALL_SPECIAL),
    ].flat();
    expect(special).toHaveLength(2);
    expect(encoder.decode(special)).toBe('<|endoftext|><|endofprompt|>');
  });

  it('rejects a token id outside the encoding with INVALID_INPUT', () => {
    expect(() => encoder.decode([outside])).toThrow(new RegExp(`not in ${name}`));
    let error: unknown;
    try {
      encoder.decode([-1]);
    } catch (caught) {
      error = caught;
    }
    expect(ContextError.isInstance(error) && error.code).toBe('INVALID_INPUT');
  });

  it('fails with DEPENDENCY_MISSING for a missing file and TOKENIZER_UNAVAILABLE for a damaged one', async () => {
    const folder = await mkdtemp(join(tmpdir(), `ctxloom-${name}-`));
    try {
      const missing = await BpeEncoder.fromFile(name, join(folder, 'none.tiktoken')).catch(
        (error: unknown) => error,
      );
      expect(ContextError.isInstance(missing) && missing.code).toBe('DEPENDENCY_MISSING');
      await writeFile(join(folder, 'bad.tiktoken'), 'IQ== 0\nIg== 5\n');
      const damaged = await BpeEncoder.fromFile(name, join(folder, 'bad.tiktoken')).catch(
        (error: unknown) => error,
      );
      expect(ContextError.isInstance(damaged) && damaged.code).toBe('TOKENIZER_UNAVAILABLE');
      expect(String(damaged)).toMatch(/Line 2/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

function mulberry(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = Math.imul(state ^ (state >>> 15), state | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
