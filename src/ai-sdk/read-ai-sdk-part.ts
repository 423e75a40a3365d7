import type { JsonObject } from '../core/json.js';
import type { ContentPart, ReasoningPart, ToolCall } from '../core/message.js';
import { aiSdkJson, aiSdkJsonObject } from './ai-sdk-json.js';
import type { AiSdkPartLike } from './ai-sdk-message-like.js';
import { fieldOf, stringOf } from './ai-sdk-message-like.js';
import { AI_SDK_FORMAT, type AiSdkNative, nativeEntry, providerOptionsEntry } from './ai-sdk-native.js';
import { readAiSdkMedia } from './read-ai-sdk-media.js';
import { carriedOf } from './read-ai-sdk-options.js';
import { readCarries } from './read-ai-sdk-part-carries.js';

const TEXT_KNOWN = new Set(['type', 'text', 'providerOptions']);
const TOOL_CALL_KNOWN = new Set(['type', 'toolCallId', 'toolName', 'input', 'providerOptions']);

/**
 * Reads a part of AI SDK message content other than a tool call: text, reasoning (Anthropic signature
 * and redacted data, OpenAI encrypted content lifted into the typed fields), image and file parts;
 * anything else (approvals, custom parts, provider-executed calls and results, provider references)
 * as a provider part of format `ai-sdk`, kept whole.
 */
export function readAiSdkPart(part: AiSdkPartLike): ContentPart {
  if (part.type === 'text' && typeof part['text'] === 'string') {
    const { providerOptions, fields } = readCarries(part, TEXT_KNOWN);
    return {
      type: 'text',
      text: part['text'],
      ...providerOptionsEntry(providerOptions),
      ...nativeEntry({ fields }),
    };
  }
  if (part.type === 'reasoning' && typeof part['text'] === 'string') return readReasoning(part, part['text']);
  if (part.type === 'image' || part.type === 'file') {
    const media = readAiSdkMedia(part, part.type === 'image' ? 'image' : 'data');
    if (media !== undefined) return media;
  }
  return aiSdkProviderPart(part);
}

/** A part ctxloom does not model, kept whole as a provider part of format `ai-sdk` (its data as JSON). */
export function aiSdkProviderPart(part: object): ContentPart {
  const value = aiSdkJsonObject(part);
  const kind = value['type'];
  return { type: 'provider', format: AI_SDK_FORMAT, kind: typeof kind === 'string' ? kind : '', value };
}

const REASONING_KNOWN = new Set(['type', 'text', 'providerOptions']);

function readReasoning(part: AiSdkPartLike, text: string): ReasoningPart {
  const { providerOptions, fields } = readCarries(part, REASONING_KNOWN);
  const anthropic = providerOptions?.['anthropic'];
  const openai = providerOptions?.['openai'];
  const signature = typeof anthropic?.['signature'] === 'string' ? anthropic['signature'] : undefined;
  const redactedData =
    typeof anthropic?.['redactedData'] === 'string' ? anthropic['redactedData'] : undefined;
  const encrypted =
    typeof openai?.['reasoningEncryptedContent'] === 'string'
      ? openai['reasoningEncryptedContent']
      : undefined;
  const rest: Record<string, JsonObject> = { ...providerOptions };
  if (anthropic !== undefined && (signature !== undefined || redactedData !== undefined)) {
    const { signature: _signature, redactedData: _redacted, ...others } = anthropic;
    if (Object.keys(others).length === 0) delete rest['anthropic'];
    else rest['anthropic'] = others;
  }
  if (openai !== undefined && encrypted !== undefined) {
    const { reasoningEncryptedContent: _encrypted, ...others } = openai;
    if (Object.keys(others).length === 0) delete rest['openai'];
    else rest['openai'] = others;
  }
  const lifted = signature !== undefined || redactedData !== undefined;
  const provider = lifted ? 'anthropic' : encrypted === undefined ? undefined : 'openai';
  const keepsOptions =
    providerOptions !== undefined && (Object.keys(rest).length > 0 || !(lifted || encrypted !== undefined));
  return {
    type: 'reasoning',
    text,
    ...(provider === undefined ? {} : { provider }),
    ...(signature === undefined ? {} : { signature }),
    ...(redactedData === undefined ? {} : { redactedData }),
    ...(encrypted === undefined ? {} : { encryptedContent: encrypted }),
    ...(keepsOptions ? { providerOptions: rest } : {}),
    ...nativeEntry({ fields }),
  };
}

/**
 * Reads a `tool-call` part (not provider-executed) as a ctxloom tool call: `input` as its JSON text
 * (a string input as it is, marked so it is written back as a string); the exact arguments carried
 * by `toAiSdkMessages` win.
 */
export function readAiSdkToolCall(part: AiSdkPartLike): ToolCall {
  const carried = carriedOf(part);
  const exact = carried?.['arguments'];
  const input = part['input'];
  const { providerOptions, fields } = readCarries(part, TOOL_CALL_KNOWN);
  const native: AiSdkNative = {
    ...(fields === undefined ? {} : { fields }),
    ...(typeof input === 'string' && typeof exact !== 'string' ? { stringInput: true } : {}),
  };
  const raw = typeof input === 'string' ? input : JSON.stringify(input === undefined ? {} : aiSdkJson(input));
  return {
    id: stringOf(part, 'toolCallId') ?? '',
    name: stringOf(part, 'toolName') ?? '',
    arguments: typeof exact === 'string' ? exact : raw,
    ...providerOptionsEntry(providerOptions),
    ...nativeEntry(native),
  };
}

/** Whether a part is a tool call ctxloom reads as a `ToolCall` (provider-executed ones stay provider parts). */
export function isClientToolCall(part: AiSdkPartLike): boolean {
  return part.type === 'tool-call' && fieldOf(part, 'providerExecuted') !== true;
}
