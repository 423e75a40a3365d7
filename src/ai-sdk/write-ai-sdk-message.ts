import type { AdapterWarning } from '../adapters/adapter-warning.js';
import type { Message, ToolCall } from '../core/message.js';
import type { AiSdkDialect, AiSdkMessageLike, AiSdkPartLike } from './ai-sdk-message-like.js';
import type { AiSdkOrigin, AiSdkOrigins } from './ai-sdk-origins.js';
import { AI_SDK_PROVIDER_KEY } from './read-ai-sdk-messages.js';
import { writeContentPart, writeToolCallPart } from './write-ai-sdk-parts.js';

/** What {@link writeAiSdkMessage} needs besides the message. */
export type WriteAiSdkMessageRun = {
  readonly index: number;
  readonly warnings: AdapterWarning[];
  readonly dialect: AiSdkDialect;
  readonly origins: AiSdkOrigins | undefined;
  /** Source parts ctxloom read into content parts (the others are kept wherever a message is rebuilt). */
  readonly readParts: ReadonlySet<AiSdkPartLike>;
  readonly carry: boolean;
};

/**
 * Writes a system, user or assistant message. Read from the AI SDK and unchanged: the original
 * object. Changed: the original with only what ctxloom owns replaced (content, reasoning, tool calls),
 * every other field and part kept in place. Not read from the AI SDK: a new message of the dialect.
 */
export function writeAiSdkMessage(message: Message, run: WriteAiSdkMessageRun): AiSdkMessageLike {
  const origin = originOf(message, run.origins);
  if (origin?.message === message) return origin.source;
  if (origin !== undefined) return rebuild(message, { ...run, origin });
  return fresh(message, run);
}

/** The origin of a ctxloom message, when it was read from the AI SDK with the same role. */
export function originOf(message: Message, origins: AiSdkOrigins | undefined): AiSdkOrigin | undefined {
  const origin = origins?.messages.get(message.id);
  return origin?.message.role === message.role ? origin : undefined;
}

function rebuild(
  message: Message,
  run: WriteAiSdkMessageRun & { readonly origin: AiSdkOrigin },
): AiSdkMessageLike {
  const source = run.origin.source;
  if (message.role === 'system') return { ...source, content: systemText(message, run) };
  if (message.role === 'assistant' && typeof source.content !== 'string')
    return rebuildAssistant(message, run);
  if (typeof message.content === 'string' && typeof source.content === 'string') {
    return { ...source, content: message.content };
  }
  return {
    ...source,
    content: spliceContent(source.content, { ...run, replacement: contentParts(message, run) }),
  };
}

function rebuildAssistant(
  message: Message,
  run: WriteAiSdkMessageRun & { readonly origin: AiSdkOrigin },
): AiSdkMessageLike {
  const before = run.origin.message;
  const sourceParts = typeof run.origin.source.content === 'string' ? [] : run.origin.source.content;
  const calls = callParts(message, { ...run, sourceParts });
  const isSameReasoning = message.reasoning === before.reasoning;
  const reasoning: AiSdkPartLike[] =
    isSameReasoning || message.reasoning === undefined || message.reasoning === ''
      ? []
      : [{ type: 'reasoning', text: message.reasoning }];
  if (
    !isSameReasoning &&
    sourceParts.some((part) => part.type === 'reasoning' && part['providerOptions'] !== undefined)
  ) {
    run.warnings.push({
      type: 'dropped-field',
      index: run.index,
      message: 'reasoning changed by ctxloom: its provider signature no longer applies and was not sent',
    });
  }
  let parts = spliceContent(sourceParts, {
    ...run,
    replacement: message.content === before.content ? undefined : contentParts(message, run),
  });
  parts = parts.flatMap((part): AiSdkPartLike[] => {
    if (part.type === 'reasoning') return isSameReasoning ? [part] : [];
    if (part.type === 'tool-call') return calls.bySource.get(part) ?? [];
    const callId = part['toolCallId'];
    return typeof callId === 'string' && calls.droppedIds.has(callId) ? [] : [part];
  });
  return { ...run.origin.source, content: [...reasoning, ...parts, ...calls.added] };
}

/** Each tool call of the message as a part: the original when unchanged, else the original with its new fields. */
function callParts(
  message: Message,
  run: WriteAiSdkMessageRun & {
    readonly origin: AiSdkOrigin;
    readonly sourceParts: readonly AiSdkPartLike[];
  },
): {
  readonly bySource: ReadonlyMap<AiSdkPartLike, AiSdkPartLike[]>;
  readonly added: readonly AiSdkPartLike[];
  readonly droppedIds: ReadonlySet<string>;
} {
  const sourceCalls = run.sourceParts.filter((part) => part.type === 'tool-call');
  const byId = new Map(sourceCalls.map((part) => [String(part['toolCallId']), part]));
  const before = new Map((run.origin.message.toolCalls ?? []).map((call) => [call.id, call]));
  const bySource = new Map<AiSdkPartLike, AiSdkPartLike[]>();
  const added: AiSdkPartLike[] = [];
  for (const call of message.toolCalls ?? []) {
    const source = run.origins?.parts.get(call) ?? byId.get(call.id);
    if (source === undefined || bySource.has(source)) {
      added.push(writeToolCallPart(call, { carry: run.carry }));
      continue;
    }
    bySource.set(source, [
      changedCall(call, {
        source,
        before: before.get(call.id),
        isSame: run.origins?.parts.get(call) === source,
      }),
    ]);
  }
  const droppedIds = new Set(
    sourceCalls.filter((part) => !bySource.has(part)).map((part) => String(part['toolCallId'])),
  );
  return { bySource, added, droppedIds };
}

function changedCall(
  call: ToolCall,
  run: { readonly source: AiSdkPartLike; readonly before: ToolCall | undefined; readonly isSame: boolean },
): AiSdkPartLike {
  if (run.isSame) return run.source;
  const input =
    run.before?.arguments === call.arguments
      ? run.source['input']
      : writeToolCallPart(call, { carry: false })['input'];
  return { ...run.source, toolCallId: call.id, toolName: call.name, input };
}

/**
 * The source parts with the ones ctxloom read replaced by `replacement` (placed where the first of
 * them was, or first when there was none); parts ctxloom did not read stay where they were.
 */
function spliceContent(
  parts: string | readonly AiSdkPartLike[],
  run: WriteAiSdkMessageRun & { readonly replacement: readonly AiSdkPartLike[] | undefined },
): AiSdkPartLike[] {
  const source = typeof parts === 'string' ? textParts(parts) : parts;
  const replacement = run.replacement;
  if (replacement === undefined) return [...source];
  const isRead = (part: AiSdkPartLike): boolean => typeof parts === 'string' || run.readParts.has(part);
  const out: AiSdkPartLike[] = [];
  let placed = false;
  for (const part of source) {
    if (!isRead(part)) {
      out.push(part);
      continue;
    }
    if (!placed) out.push(...replacement);
    placed = true;
  }
  if (!placed) {
    const firstCall = out.findIndex((part) => part.type === 'tool-call');
    out.splice(firstCall === -1 ? out.length : firstCall, 0, ...replacement);
  }
  return out;
}

function contentParts(message: Message, run: WriteAiSdkMessageRun): AiSdkPartLike[] {
  if (typeof message.content === 'string') return textParts(message.content);
  return message.content.flatMap((part): AiSdkPartLike[] => {
    const known = run.origins?.parts.get(part);
    if (known !== undefined) return [known];
    if (message.role === 'assistant' && part.type === 'image') {
      run.warnings.push({
        type: 'unsupported-part',
        index: run.index,
        message: 'image in an assistant message left out',
      });
      return [];
    }
    return [writeContentPart(part, run.dialect)];
  });
}

function textParts(text: string): AiSdkPartLike[] {
  return text === '' ? [] : [{ type: 'text', text }];
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

function fresh(message: Message, run: WriteAiSdkMessageRun): AiSdkMessageLike {
  const carried: Record<string, unknown> = { id: message.id };
  if (message.name !== undefined) carried['name'] = message.name;
  if (message.metadata !== undefined) carried['metadata'] = message.metadata;
  const providerOptions = run.carry ? { providerOptions: { [AI_SDK_PROVIDER_KEY]: carried } } : {};
  if (message.role === 'system')
    return { role: 'system', content: systemText(message, run), ...providerOptions };
  if (message.role === 'user') {
    const content =
      typeof message.content === 'string' && run.dialect === 'model-message'
        ? message.content
        : contentParts(message, run);
    const paths = pathsOf(message.content);
    if (paths !== undefined) carried['paths'] = paths;
    return { role: 'user', content, ...providerOptions };
  }
  return { ...freshAssistant(message, { ...run, carried }), ...providerOptions };
}

function freshAssistant(
  message: Message,
  run: WriteAiSdkMessageRun & { readonly carried: Record<string, unknown> },
): AiSdkMessageLike {
  const calls = message.toolCalls ?? [];
  if (typeof message.content === 'string' && calls.length === 0 && message.reasoning === undefined) {
    return {
      role: 'assistant',
      content: run.dialect === 'model-message' ? message.content : textParts(message.content),
    };
  }
  const parts: AiSdkPartLike[] = [];
  if (message.reasoning !== undefined) parts.push({ type: 'reasoning', text: message.reasoning });
  if (typeof message.content !== 'string') run.carried['partsContent'] = 'true';
  parts.push(...contentParts(message, run));
  for (const call of calls) parts.push(writeToolCallPart(call, { carry: run.carry }));
  return { role: 'assistant', content: parts };
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

/** Content parts read from the AI SDK: the set {@link WriteAiSdkMessageRun.readParts} is made of. */
export function readPartsOf(origins: AiSdkOrigins | undefined): ReadonlySet<AiSdkPartLike> {
  return new Set(origins?.parts.values() ?? []);
}
