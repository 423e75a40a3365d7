import type { JsonValue } from './json.js';
import type { ContentPart, Message, ProviderPart } from './message.js';

/** Keys of a provider part's value whose strings are encrypted payloads, counted by their decoded bytes. */
const ENCRYPTED_KEYS: ReadonlySet<string> = new Set(['encrypted_content', 'encryptedContent', 'data']);
/** Keys whose strings are neither read nor counted: identifiers, kinds, statuses and signatures. */
const SILENT_KEYS: ReadonlySet<string> = new Set([
  'type',
  'id',
  'call_id',
  'tool_use_id',
  'toolCallId',
  'status',
  'signature',
  'url',
  'media_type',
  'mediaType',
]);

/**
 * The tokens an encrypted payload of `length` base64 characters costs, by ctxloom's stated rule: the
 * payload's decoded bytes (3 per 4 characters) at 4 bytes a token, rounded up. Encrypted reasoning and
 * compaction summaries hold about as many tokens as the text they encrypt, and base64 counted as text
 * would count about three times that.
 */
export function encryptedPayloadTokens(length: number): number {
  return Math.ceil((length * 3) / 16);
}

/**
 * The tokens of the encrypted and redacted payloads of a message's reasoning and provider parts, by
 * {@link encryptedPayloadTokens}; counters add it to the text they count. Signatures cost nothing.
 */
export function opaquePayloadTokens(message: Message): number {
  if (typeof message.content === 'string') return 0;
  let tokens = 0;
  for (const part of message.content) tokens += partPayloadTokens(part);
  return tokens;
}

function partPayloadTokens(part: ContentPart): number {
  if (part.type === 'reasoning')
    return encryptedPayloadTokens((part.redactedData?.length ?? 0) + (part.encryptedContent?.length ?? 0));
  if (part.type === 'provider') return valuePayloadTokens(part.value, undefined);
  return 0;
}

function valuePayloadTokens(value: JsonValue, key: string | undefined): number {
  if (typeof value === 'string')
    return key !== undefined && ENCRYPTED_KEYS.has(key) ? encryptedPayloadTokens(value.length) : 0;
  if (value === null || typeof value !== 'object') return 0;
  let tokens = 0;
  if (Array.isArray(value)) for (const item of value) tokens += valuePayloadTokens(item, key);
  else for (const [name, field] of Object.entries(value)) tokens += valuePayloadTokens(field, name);
  return tokens;
}

/**
 * The readable text of a provider part, counted as text: its string fields (nested ones too) other
 * than encrypted payloads, identifiers, kinds, statuses, URLs and signatures, joined by `"\n"`.
 */
export function providerPartText(part: ProviderPart): string {
  const texts: string[] = [];
  collectText(part.value, { key: undefined, texts });
  return texts.join('\n');
}

function collectText(
  value: JsonValue,
  { key, texts }: { readonly key: string | undefined; readonly texts: string[] },
): void {
  if (typeof value === 'string') {
    if (value !== '' && (key === undefined || !(ENCRYPTED_KEYS.has(key) || SILENT_KEYS.has(key))))
      texts.push(value);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) for (const item of value) collectText(item, { key, texts });
  else for (const [name, field] of Object.entries(value)) collectText(field, { key: name, texts });
}
