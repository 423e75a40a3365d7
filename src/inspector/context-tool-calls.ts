import { CONTEXT_TOOL_NAMES } from '../context-tools/index.js';
import type { Message } from '../index.js';
import type { RecordedRequest } from '../recorder/index.js';

/** A context tool's call (recall, compact_now, new_context, …) answered in a recorded request. */
export type TimelineContextToolCall = {
  readonly callId: string;
  readonly name: string;
  /** The call's arguments, cut at 200 characters. */
  readonly arguments: string;
  /** The start of its result (240 characters), when the request holds it. */
  readonly result?: string;
};

const NAMES: ReadonlySet<string> = new Set(CONTEXT_TOOL_NAMES);
const MAX_ARGUMENT_CHARS = 200;
const MAX_RESULT_CHARS = 240;

/**
 * The context-tool calls whose messages are new in `request` (not in `previous`), with the start of
 * their results, for the timeline. Empty when the request was recorded without its messages.
 */
export function contextToolCallsOf(
  request: RecordedRequest,
  previous: RecordedRequest | undefined,
): readonly TimelineContextToolCall[] {
  const messages = request.messages ?? [];
  const seen = new Set((previous?.messageHashes ?? []).map((hash) => hash.id));
  const results = new Map<string, Message>();
  for (const message of messages)
    if (message.role === 'tool' && message.toolCallId !== undefined) results.set(message.toolCallId, message);
  return messages
    .filter((message) => message.role === 'assistant' && !seen.has(message.id))
    .flatMap((message) => message.toolCalls ?? [])
    .filter((call) => NAMES.has(call.name))
    .map((call) => {
      const result = results.get(call.id);
      return {
        callId: call.id,
        name: call.name,
        arguments: cut(call.arguments, MAX_ARGUMENT_CHARS),
        ...(result === undefined ? {} : { result: cut(textOf(result), MAX_RESULT_CHARS) }),
      };
    });
}

function textOf(message: Message): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
