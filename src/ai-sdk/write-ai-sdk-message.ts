import type { AdapterWarning } from '../adapters/adapter-warning.js';
import type { ContentPart, Message } from '../core/message.js';
import type { AiSdkDialect, AiSdkMessageLike, AiSdkPartLike } from './ai-sdk-message-like.js';
import { type AiSdkNative, aiSdkNativeOf, providerOptionsEntry } from './ai-sdk-native.js';
import type { AiSdkOrigin, AiSdkOrigins } from './ai-sdk-origins.js';
import { AI_SDK_PROVIDER_KEY, mergeProviderOptions } from './read-ai-sdk-options.js';
import { writeContentPart, writeMediaPart, writeToolCallPart } from './write-ai-sdk-parts.js';

/** What {@link writeAiSdkMessage} needs besides the message. */
export type WriteAiSdkMessageRun = {
  readonly index: number;
  readonly warnings: AdapterWarning[];
  readonly dialect: AiSdkDialect;
  readonly origins: AiSdkOrigins | undefined;
  readonly carry: boolean;
};

/**
 * Writes a system, user or assistant message from its data alone: its provider options, parts (each
 * the part it was read from while it is the same object), tool calls in the places they were read
 * at, and the native fields read with it. A message that is the very object read from the AI SDK
 * (with `origins`) is given back as the original object.
 */
export function writeAiSdkMessage(message: Message, run: WriteAiSdkMessageRun): AiSdkMessageLike {
  const origin = originOf(message, run.origins);
  if (origin?.message === message) return origin.source;
  const native = aiSdkNativeOf(message);
  const written = writeBody(message, { ...run, native });
  const carried = run.carry ? carriedFields(message, { native, parts: written.parts }) : undefined;
  const providerOptions = mergeProviderOptions(
    message.providerOptions,
    carried === undefined ? {} : { [AI_SDK_PROVIDER_KEY]: carried },
  );
  return {
    ...native.fields,
    role: message.role,
    content: written.content,
    ...providerOptionsEntry(providerOptions),
  };
}

/** The origin of a ctxloom message, when it was read from the AI SDK with the same role. */
export function originOf(message: Message, origins: AiSdkOrigins | undefined): AiSdkOrigin | undefined {
  const origin = origins?.messages.get(message.id);
  return origin?.message.role === message.role ? origin : undefined;
}

type Body = { readonly content: AiSdkMessageLike['content']; readonly parts: boolean };

function writeBody(message: Message, run: WriteAiSdkMessageRun & { readonly native: AiSdkNative }): Body {
  if (message.role === 'system') return { content: systemText(message, run), parts: false };
  const isString = typeof message.content === 'string';
  if (message.role === 'user') {
    if (typeof message.content === 'string' && run.dialect === 'model-message')
      return { content: message.content, parts: false };
    return { content: contentParts(message, run), parts: !isString };
  }
  const calls = (message.toolCalls ?? []).map(
    (call) => run.origins?.parts.get(call) ?? writeToolCallPart(call, { carry: run.carry }),
  );
  if (
    typeof message.content === 'string' &&
    calls.length === 0 &&
    message.reasoning === undefined &&
    run.dialect === 'model-message'
  )
    return { content: message.content, parts: false };
  const parts = [
    ...(message.reasoning === undefined ? [] : [{ type: 'reasoning', text: message.reasoning }]),
    ...contentParts(message, run),
  ];
  return { content: placeCalls(parts, { calls, indexes: run.native.callIndexes }), parts: !isString };
}

/** The parts with the calls at the positions they were read at, or after them when those no longer fit. */
function placeCalls(
  parts: readonly AiSdkPartLike[],
  run: { readonly calls: readonly AiSdkPartLike[]; readonly indexes: readonly number[] | undefined },
): AiSdkPartLike[] {
  const { calls, indexes } = run;
  const total = parts.length + calls.length;
  const fits =
    indexes !== undefined &&
    indexes.length === calls.length &&
    indexes.every(
      (at, position) =>
        Number.isInteger(at) && at < total && (position === 0 || at > (indexes[position - 1] ?? -1)),
    );
  if (!fits) return [...parts, ...calls];
  const out: AiSdkPartLike[] = [];
  const slots = new Map(indexes.map((at, position) => [at, calls[position]]));
  let next = 0;
  for (let at = 0; at < total; at += 1) {
    const call = slots.get(at);
    const part = call ?? parts[next];
    if (call === undefined) next += 1;
    if (part !== undefined) out.push(part);
  }
  return out;
}

function contentParts(message: Message, run: WriteAiSdkMessageRun): AiSdkPartLike[] {
  if (typeof message.content === 'string')
    return message.content === '' ? [] : [{ type: 'text', text: message.content }];
  return message.content.flatMap((part): AiSdkPartLike[] => {
    const known = run.origins?.parts.get(part);
    if (known !== undefined) return [known];
    const written = assistantImage(part, { message, run }) ?? writeContentPart(part, run);
    return written === undefined ? [] : [written];
  });
}

/** An image in an assistant message: a `file` part (assistant content takes no `image` part). */
function assistantImage(
  part: ContentPart,
  at: { readonly message: Message; readonly run: WriteAiSdkMessageRun },
): AiSdkPartLike | undefined {
  if (at.message.role !== 'assistant' || part.type !== 'image') return undefined;
  return writeMediaPart(
    { ...part, type: 'file', mediaType: part.mediaType ?? mediaTypeOf(part.url) },
    at.run.dialect,
  );
}

function mediaTypeOf(url: string): string {
  return /^data:([^;,]+)/.exec(url)?.[1] ?? 'image/*';
}

function systemText(message: Message, run: WriteAiSdkMessageRun): string {
  if (typeof message.content === 'string') return message.content;
  if (message.content.some((part) => part.type !== 'text')) {
    run.warnings.push({
      type: 'unsupported-part',
      index: run.index,
      message: 'non-text parts of a system message left out',
    });
  }
  return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

/**
 * What `providerOptions.ctxloom` carries for `fromAiSdkMessages` to restore: the id (unless the
 * reader made it), name, metadata, local image paths, whether assistant text is parts, and the
 * `reasoning` field. `undefined` when there is nothing a plain read would not restore.
 */
function carriedFields(
  message: Message,
  run: { readonly native: AiSdkNative; readonly parts: boolean },
): Readonly<Record<string, unknown>> | undefined {
  const carried: Record<string, unknown> = {};
  if (run.native.generatedId !== true) carried['id'] = message.id;
  if (message.name !== undefined) carried['name'] = message.name;
  if (message.metadata !== undefined) carried['metadata'] = message.metadata;
  const paths = pathsOf(message.content);
  if (paths !== undefined) carried['paths'] = paths;
  if (Object.keys(carried).length === 0) return undefined;
  if (message.role === 'assistant' && run.parts) carried['partsContent'] = 'true';
  if (message.role === 'assistant' && message.reasoning !== undefined) carried['reasoningField'] = true;
  return carried;
}

/** The local paths of the media parts, by position (carried so `fromAiSdkMessages` restores them). */
function pathsOf(content: Message['content']): Readonly<Record<string, string>> | undefined {
  if (typeof content === 'string') return undefined;
  const paths: Record<string, string> = {};
  content.forEach((part, position) => {
    if ((part.type === 'image' || part.type === 'file') && part.path !== undefined)
      paths[String(position)] = part.path;
  });
  return Object.keys(paths).length === 0 ? undefined : paths;
}
