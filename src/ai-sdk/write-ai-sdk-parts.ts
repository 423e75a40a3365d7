import { type AdapterWarning, parseDataUrl } from '../adapters/adapter-warning.js';
import type { ContentPart, FilePart, ImagePart, ReasoningPart, ToolCall } from '../core/message.js';
import type { AiSdkDialect, AiSdkPartLike } from './ai-sdk-message-like.js';
import { AI_SDK_FORMAT, aiSdkNativeOf, providerOptionsEntry } from './ai-sdk-native.js';
import { AI_SDK_PROVIDER_KEY, mergeProviderOptions } from './read-ai-sdk-options.js';

/** Where a part is written: the dialect, and where to report what is left out. */
export type WritePartRun = {
  readonly dialect: AiSdkDialect;
  readonly warnings: AdapterWarning[];
  readonly index: number;
};

/**
 * Writes a ctxloom content part as an AI SDK part of the dialect, from its data alone: text;
 * reasoning with its signature, redacted data or encrypted content back in `providerOptions`; an
 * image as an `image` part (`ModelMessage`) or a `file` part (provider prompts); a file; an `ai-sdk`
 * provider part as its value. The native fields read with it come back; a provider part of another
 * format is left out (`undefined`) with a warning.
 */
export function writeContentPart(part: ContentPart, run: WritePartRun): AiSdkPartLike | undefined {
  switch (part.type) {
    case 'text':
      return {
        ...aiSdkNativeOf(part).fields,
        type: 'text',
        text: part.text,
        ...providerOptionsEntry(part.providerOptions),
      };
    case 'reasoning':
      return writeReasoningPart(part);
    case 'provider':
      return providerValue(part, run);
    case 'image':
    case 'file':
      return writeMediaPart(part, run.dialect);
  }
}

/** The value of an `ai-sdk` provider part; another format's is left out with a warning. */
export function providerValue(
  part: Extract<ContentPart, { type: 'provider' }>,
  run: WritePartRun,
): AiSdkPartLike | undefined {
  if (part.format === AI_SDK_FORMAT && typeof part.value['type'] === 'string') {
    // A part read from the AI SDK, kept whole: its `type` is a string (checked).
    return part.value as AiSdkPartLike;
  }
  run.warnings.push({
    type: 'unsupported-part',
    index: run.index,
    message: `${part.format} ${part.kind} part left out (only the ${part.format} adapter sends it)`,
  });
  return undefined;
}

function writeReasoningPart(part: ReasoningPart): AiSdkPartLike {
  const anthropic = {
    ...(part.signature === undefined ? {} : { signature: part.signature }),
    ...(part.redactedData === undefined ? {} : { redactedData: part.redactedData }),
  };
  const lifted = {
    ...(Object.keys(anthropic).length === 0 ? {} : { anthropic }),
    ...(part.encryptedContent === undefined
      ? {}
      : { openai: { reasoningEncryptedContent: part.encryptedContent } }),
  };
  const providerOptions = mergeProviderOptions(part.providerOptions, lifted);
  return {
    ...aiSdkNativeOf(part).fields,
    type: 'reasoning',
    text: part.text,
    ...providerOptionsEntry(providerOptions),
  };
}

/**
 * Writes an image or file part: `data:` URLs as base64 data, other URLs as `URL` objects (AI SDK 7
 * prompts: the tagged `{ type: 'data' | 'url' }` form), or in the form it was read in (`ModelMessage`).
 */
export function writeMediaPart(part: ImagePart | FilePart, dialect: AiSdkDialect): AiSdkPartLike {
  const native = aiSdkNativeOf(part);
  const parsed = parseDataUrl(part.url);
  const isMessage = dialect === 'model-message';
  const mediaType = part.mediaType ?? parsed?.mediaType;
  const hasMediaType = !(isMessage && native.noMediaType === true);
  const carries = native.fields;
  if (isMessage && part.type === 'image' && native.itemType !== 'file') {
    return {
      ...carries,
      type: 'image',
      image: mediaData(part.url, { form: native.dataForm, dialect }),
      ...(mediaType === undefined || !hasMediaType ? {} : { mediaType }),
      ...providerOptionsEntry(part.providerOptions),
    };
  }
  return {
    ...carries,
    type: 'file',
    data: mediaData(part.url, { form: native.dataForm, dialect }),
    ...(hasMediaType
      ? { mediaType: mediaType ?? (part.type === 'image' ? 'image/*' : 'application/octet-stream') }
      : {}),
    ...(part.type === 'file' && part.filename !== undefined ? { filename: part.filename } : {}),
    ...providerOptionsEntry(part.providerOptions),
  };
}

/** Media data in the dialect's form, or in the form it was read in when the dialect takes it. */
export function mediaData(
  url: string,
  how: { readonly form: string | undefined; readonly dialect: AiSdkDialect },
): unknown {
  const { form, dialect } = how;
  const parsed = parseDataUrl(url);
  if (dialect === 'prompt-v4' || (dialect === 'model-message' && form === 'tagged'))
    return parsed === undefined ? { type: 'url', url: new URL(url) } : { type: 'data', data: parsed.data };
  if (
    dialect === 'model-message' &&
    ((form === 'data-url' && parsed !== undefined) || (form === 'url-string' && parsed === undefined))
  )
    return url;
  return parsed === undefined ? new URL(url) : parsed.data;
}

/**
 * Writes a tool call as a `tool-call` part, with the arguments parsed to `input` (a string input as
 * it was read). Arguments that are not JSON (or not exactly as JSON would write them) are carried in
 * `providerOptions.ctxloom` when `carry` is set, so `fromAiSdkMessages` restores them byte for byte.
 */
export function writeToolCallPart(call: ToolCall, options: { readonly carry: boolean }): AiSdkPartLike {
  const native = aiSdkNativeOf(call);
  let input: unknown = call.arguments;
  let exact = true;
  if (native.stringInput !== true) {
    try {
      input = JSON.parse(call.arguments);
      // A string input is read as the raw arguments: only other JSON reads back the same way.
      exact = typeof input !== 'string' && JSON.stringify(input) === call.arguments;
    } catch {
      input = {};
      exact = false;
    }
  }
  const carried = exact || !options.carry ? {} : { [AI_SDK_PROVIDER_KEY]: { arguments: call.arguments } };
  return {
    ...native.fields,
    type: 'tool-call',
    toolCallId: call.id,
    toolName: call.name,
    input,
    ...providerOptionsEntry(mergeProviderOptions(call.providerOptions, carried)),
  };
}
