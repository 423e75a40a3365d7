import { ContextError } from '../core/errors.js';
import type { Message, Role, ToolCall } from '../core/message.js';
import { safeParseMessage } from '../core/message-schema.js';
import type { CoerceContext, MessageCoercer } from './message-coercer.js';
import { fromNanobotDict } from './nanobot-message.js';

const ROLE_ALIASES: Readonly<Record<string, Role>> = {
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  ai: 'assistant',
  system: 'system',
  developer: 'system',
  tool: 'tool',
  function: 'tool',
  humanmessage: 'user',
  aimessage: 'assistant',
  aimessagechunk: 'assistant',
  systemmessage: 'system',
  toolmessage: 'tool',
};

/**
 * Makes the best message it can from loose input: a string becomes a user message; a valid
 * `Message` passes as is; OpenAI-style dicts (`role`, `content`, `tool_calls`, `tool_call_id`,
 * `reasoning_content`) and nanobot dicts are converted; `{ type, content }` shapes such as
 * LangChain's `{ type: 'human' }` / `{ type: 'ai', tool_calls: [{ id, name, args }] }` map their type
 * to a role (`human`→user, `ai`→assistant, `developer`→system, `function`→tool); numbers and booleans
 * become user text; non-text content becomes its JSON (`null` content the empty string). `null`,
 * `undefined`, objects with no recognisable role and objects with no `content` (nor `text`) field,
 * unless an assistant message with tool calls, throw `INVALID_INPUT` naming what is missing.
 */
export class LenientMessageCoercer implements MessageCoercer {
  readonly specificationVersion = 'v1';
  readonly id = 'lenient';

  coerce(value: unknown, context: CoerceContext): Message {
    const scalar = scalarMessage(value, context);
    if (scalar !== undefined) return scalar;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw invalid(context, 'it is empty or a list');
    // Checked above: a non-null, non-array object.
    const record = unwrapLangChain(value as Record<string, unknown>);
    const id = typeof record['id'] === 'string' && record['id'] !== '' ? record['id'] : context.generateId();
    const parsed = safeParseMessage({ ...record, id });
    if (parsed.success) return parsed.value;
    const role = ROLE_ALIASES[String(record['role'] ?? record['type'] ?? '').toLowerCase()];
    if (role === undefined) throw invalid(context, 'it has no recognisable role or type');
    if (record['content'] === undefined && record['text'] === undefined && !hasToolCalls(record))
      throw invalid(
        context,
        `it has no "content" field (a ${role} message carries its text or parts in "content"; only an assistant message with tool calls may leave it out)`,
      );
    const dict = {
      ...record,
      role,
      content: normaliseContent(record['content'] ?? record['text']),
      tool_calls: normaliseToolCalls(record['tool_calls'] ?? record['toolCalls']),
      tool_call_id: record['tool_call_id'] ?? record['toolCallId'],
    };
    const message = fromNanobotDict(dict, id);
    if (typeof message === 'string') throw invalid(context, message);
    const checked = safeParseMessage(withoutTransportFields(message));
    if (!checked.success) {
      throw invalid(context, checked.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '));
    }
    return checked.value;
  }
}

/** A string, number, boolean or bigint as a user message; `undefined` for anything else. */
function scalarMessage(value: unknown, context: CoerceContext): Message | undefined {
  if (typeof value === 'string') return { id: context.generateId(), role: 'user', content: value };
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return { id: context.generateId(), role: 'user', content: String(value) };
  return undefined;
}

/**
 * LangChain shapes: a serialised message (`{ lc: 1, type: 'constructor', id: [..., 'HumanMessage'],
 * kwargs }`) or a message instance (with `_getType()` / `getType()`) become a `{ type, content, … }`
 * record; anything else is returned as is.
 */
function unwrapLangChain(record: Record<string, unknown>): Record<string, unknown> {
  const kwargs = record['kwargs'];
  const className = Array.isArray(record['id']) ? record['id'].at(-1) : undefined;
  if (record['lc'] === 1 && typeof className === 'string' && typeof kwargs === 'object' && kwargs !== null) {
    // Serialised LangChain messages keep their fields in a plain `kwargs` object.
    return { ...(kwargs as Record<string, unknown>), type: className };
  }
  const getType = record['_getType'] ?? record['getType'];
  if (typeof getType !== 'function') return record;
  const type: unknown = Reflect.apply(getType, record, []);
  return {
    type,
    content: record['content'],
    tool_calls: record['tool_calls'],
    tool_call_id: record['tool_call_id'],
    name: record['name'],
    ...(typeof record['id'] === 'string' ? { id: record['id'] } : {}),
  };
}

function hasToolCalls(record: Record<string, unknown>): boolean {
  const calls = record['tool_calls'] ?? record['toolCalls'];
  return Array.isArray(calls) && calls.length > 0;
}

function normaliseContent(content: unknown): unknown {
  if (typeof content === 'string' || Array.isArray(content)) return content;
  if (content === undefined || content === null) return '';
  return JSON.stringify(content);
}

function normaliseToolCalls(calls: unknown): unknown {
  if (!Array.isArray(calls)) return undefined;
  return calls.map((call: unknown): unknown => {
    if (typeof call !== 'object' || call === null || 'function' in call) return call;
    const { id, name, args, arguments: raw } = call as Partial<ToolCall> & { args?: unknown };
    const text = typeof raw === 'string' ? raw : JSON.stringify(args ?? raw ?? {});
    return { id, type: 'function', function: { name, arguments: text } };
  });
}

function withoutTransportFields(message: Message): Message {
  const extra = message.metadata?.['nanobot'];
  if (typeof extra !== 'object' || extra === null) return message;
  const {
    type: _type,
    text: _text,
    toolCalls: _calls,
    toolCallId: _id,
    ...rest
  } = extra as Record<string, unknown>;
  const { nanobot: _old, ...metadata } = message.metadata ?? {};
  const merged = Object.keys(rest).length > 0 ? { ...metadata, nanobot: rest } : metadata;
  const { metadata: _metadata, ...base } = message;
  return Object.keys(merged).length > 0 ? { ...base, metadata: merged } : base;
}

function invalid(context: CoerceContext, why: string): ContextError {
  return new ContextError({
    code: 'INVALID_INPUT',
    message: `Cannot make a message from ${context.path}: ${why}. Pass a string, a Message, an OpenAI-style dict or a { type, content } object.`,
    details: { path: context.path },
  });
}
