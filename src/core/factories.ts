import { ContextError } from './errors.js';
import { generateMessageId, type IdGenerator } from './ids.js';
import type { Content, Message, Metadata, Role, ToolCall } from './message.js';

/** A tool call as callers write it: `arguments` may be an object, which is serialised to JSON. */
export type ToolCallInput = {
  readonly id: string;
  readonly name: string;
  readonly arguments?: string | Readonly<Record<string, unknown>>;
};

/** Fields every factory accepts. */
export type MessageOptions = {
  /** The message id. @default a new id from `generateId` */
  readonly id?: string;
  /** Makes the id when `id` is not given. @default random 32-hex ids */
  readonly generateId?: IdGenerator;
  /** Free metadata. */
  readonly metadata?: Metadata;
  /** The participant name (OpenAI `name`). */
  readonly name?: string;
};

/** Options for {@link assistant}. */
export type AssistantMessageOptions = MessageOptions & {
  /** The tool calls this message makes. */
  readonly toolCalls?: readonly ToolCallInput[];
  /** The model's reasoning text. */
  readonly reasoning?: string;
};

/** Options for {@link tool}. */
export type ToolMessageOptions = MessageOptions & {
  /** The id of the call this result answers. */
  readonly toolCallId: string;
};

/** Makes a system message. */
export function system(content: string, options: MessageOptions = {}): Message {
  return make({ role: 'system', content }, options);
}

/** Makes a user message from text or parts. */
export function user(content: Content, options: MessageOptions = {}): Message {
  return make({ role: 'user', content }, options);
}

/** Makes an assistant message, optionally with tool calls and reasoning. */
export function assistant(content: Content, options: AssistantMessageOptions = {}): Message {
  const base = make({ role: 'assistant', content }, options);
  const toolCalls = options.toolCalls?.map(toToolCall);
  return {
    ...base,
    ...(toolCalls === undefined || toolCalls.length === 0 ? {} : { toolCalls }),
    ...(options.reasoning === undefined ? {} : { reasoning: options.reasoning }),
  };
}

/** Makes a tool result message answering `toolCallId`. */
export function tool(content: Content, options: ToolMessageOptions): Message {
  const toolCallId: unknown = (options as Partial<ToolMessageOptions> | undefined)?.toolCallId;
  if (typeof toolCallId !== 'string') {
    throw new ContextError({
      code: 'INVALID_INPUT',
      message:
        `a tool message needs the id of the call it answers: got ${describeValue(toolCallId)} for options.toolCallId. ` +
        "Pass it as tool(text, { toolCallId: 'call_1' }).",
    });
  }
  return { ...make({ role: 'tool', content }, options), toolCallId };
}

/** Another name for {@link user} (`human`, as LangChain-style code calls it). */
export const human = user;
/** Another name for {@link assistant} (`ai`, as LangChain-style code calls it). */
export const ai = assistant;

/**
 * The message factories in one object, so that they never collide with the AI SDK's `tool` or with
 * the `ai` package name in your code: `msg.user('hi')`, `msg.tool(text, { toolCallId })`.
 */
export const msg = { system, user, assistant, tool, human, ai } as const;

/** Normalises a {@link ToolCallInput} into a {@link ToolCall}. */
export function toToolCall(input: ToolCallInput): ToolCall {
  const args = input.arguments;
  return {
    id: input.id,
    name: input.name,
    arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
  };
}

function make(
  { role, content }: { readonly role: Role; readonly content: Content },
  options: MessageOptions,
): Message {
  const id = options.id ?? (options.generateId ?? generateMessageId)();
  return {
    id,
    role,
    content,
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
  };
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  return `${value === null ? 'null' : typeof value} ${JSON.stringify(value) ?? String(value)}`;
}
