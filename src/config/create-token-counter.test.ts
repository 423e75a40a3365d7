import { describe, expect, it } from 'vitest';
import { createTokenCounter } from './create-token-counter.js';

const workspace = '/tmp';

describe('createTokenCounter', () => {
  it('makes the configured counter', async () => {
    expect((await createTokenCounter({ workspace, config: { type: 'simple' } })).id).toBe('simple');
    expect((await createTokenCounter({ workspace, config: { type: 'byte' } })).id).toBe('bytes');
    const tiktoken = await createTokenCounter({
      workspace,
      config: { type: 'tiktoken', encoding: 'cl100k_base' },
    });
    expect(tiktoken.id).toBe('tiktoken:cl100k_base');
  });

  it('derives the tiktoken encoding from the model when the config names none', async () => {
    expect((await createTokenCounter({ workspace, config: { type: 'tiktoken' }, model: 'gpt-4' })).id).toBe(
      'tiktoken:cl100k_base',
    );
    expect((await createTokenCounter({ workspace, model: 'gpt-4o' })).id).toBe('tiktoken:o200k_base');
    expect((await createTokenCounter({ workspace, model: 'llama-3-70b' })).id).toBe('estimate:o200k');
  });

  it('says what is missing for hf', async () => {
    await expect(createTokenCounter({ workspace, config: { type: 'hf' } })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('tokenizerPath'),
    });
    await expect(
      createTokenCounter({ workspace, config: { type: 'hf', tokenizerPath: 'missing/tokenizer.json' } }),
    ).rejects.toMatchObject({ code: 'TOKENIZER_UNAVAILABLE' });
  });
});
