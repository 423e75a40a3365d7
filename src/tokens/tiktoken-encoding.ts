import { ContextError } from '../core/errors.js';

/** The OpenAI encodings ctxloom counts exactly. */
export type TiktokenEncodingName = 'o200k_base' | 'cl100k_base';

/**
 * What a tiktoken counter needs from an encoding: gpt-tokenizer's per-encoding modules
 * (`gpt-tokenizer/encoding/o200k_base`) have exactly these members.
 */
export interface TiktokenEncoder {
  encode(text: string, options?: { readonly disallowedSpecial?: Set<string> }): number[];
  decode(tokens: Iterable<number>): string;
  countTokens(text: string, options?: { readonly disallowedSpecial?: Set<string> }): number;
}

/** Model families and their encodings, checked in order (the first matching prefix wins). */
export const TIKTOKEN_MODEL_FAMILIES: readonly {
  readonly prefix: string;
  readonly encoding: TiktokenEncodingName;
}[] = Object.freeze([
  { prefix: 'gpt-4o', encoding: 'o200k_base' },
  { prefix: 'chatgpt-4o', encoding: 'o200k_base' },
  { prefix: 'gpt-4.1', encoding: 'o200k_base' },
  { prefix: 'gpt-4.5', encoding: 'o200k_base' },
  { prefix: 'gpt-5', encoding: 'o200k_base' },
  { prefix: 'gpt-oss', encoding: 'o200k_base' },
  { prefix: 'o1', encoding: 'o200k_base' },
  { prefix: 'o3', encoding: 'o200k_base' },
  { prefix: 'o4', encoding: 'o200k_base' },
  { prefix: 'gpt-4', encoding: 'cl100k_base' },
  { prefix: 'gpt-3.5', encoding: 'cl100k_base' },
  { prefix: 'text-embedding-3', encoding: 'cl100k_base' },
  { prefix: 'text-embedding-ada-002', encoding: 'cl100k_base' },
]);

/**
 * The encoding of an OpenAI model name: gpt-4o, gpt-4.1, gpt-4.5, gpt-5, gpt-oss, o1, o3, o4 →
 * `o200k_base`; gpt-4, gpt-3.5, text-embedding-3 / ada-002 → `cl100k_base`. Case-insensitive; a
 * provider prefix such as `openai/` is ignored; dated and sized variants (`gpt-4o-mini-2024-07-18`)
 * match their family.
 * @throws ContextError `INVALID_OPTIONS` for an unknown model, listing the known families.
 */
export function resolveTiktokenEncoding(model: string): TiktokenEncodingName {
  const name = model
    .trim()
    .toLowerCase()
    .replace(/^openai\//, '');
  for (const family of TIKTOKEN_MODEL_FAMILIES) {
    const rest = name.slice(family.prefix.length);
    if (name.startsWith(family.prefix) && (rest === '' || /^[-.:_]/.test(rest))) return family.encoding;
  }
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message:
      `Unknown OpenAI model '${model}': no tiktoken encoding is known for it. Known families: ` +
      `${TIKTOKEN_MODEL_FAMILIES.map((family) => `${family.prefix}* → ${family.encoding}`).join(', ')}. ` +
      "Pass { encoding: 'o200k_base' | 'cl100k_base' } instead, or use HFTokenCounter for open models.",
    details: { model, families: TIKTOKEN_MODEL_FAMILIES.map((family) => family.prefix) },
  });
}

/**
 * Loads one gpt-tokenizer encoding with a dynamic `import()` (its vocabulary is several MB and takes
 * about half a second to load, so nothing is loaded until a counter asks for it).
 * @throws ContextError `DEPENDENCY_MISSING` when gpt-tokenizer is not installed.
 */
export async function loadTiktokenEncoder(encoding: TiktokenEncodingName): Promise<TiktokenEncoder> {
  try {
    return encoding === 'o200k_base'
      ? await import('gpt-tokenizer/encoding/o200k_base')
      : await import('gpt-tokenizer/encoding/cl100k_base');
  } catch (error) {
    throw new ContextError({
      code: 'DEPENDENCY_MISSING',
      message: `Could not load the ${encoding} encoding from the 'gpt-tokenizer' package; install it: npm install gpt-tokenizer`,
      cause: error,
    });
  }
}
