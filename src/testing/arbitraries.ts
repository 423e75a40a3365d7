/**
 * fast-check arbitraries shared by the property tests (and by third-party filters): messages,
 * well-formed conversations with tool transactions (parallel calls included), malformed
 * conversations, tool definitions and budgets. Ids are deterministic (`m-1`, `call-1`, …) so a
 * failing case is easy to read and to save as a regular test.
 *
 * This file is over 150 lines because it holds the whole vocabulary of generated data in one place;
 * split it when a second family of arbitraries appears.
 * @module ctxloom/testing/arbitraries
 */
import * as fc from 'fast-check';
import type { ContentPart, Message, Role, ToolCall } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { DEFAULT_PLACEHOLDER_TEXTS } from '../filters/governor-constants.js';

/** The text nanobot writes in place of an assistant message it had to omit. */
export const PLACEHOLDER_ASSISTANT_TEXT = DEFAULT_PLACEHOLDER_TEXTS[0] ?? '';

/** Options for {@link conversationArbitrary}. */
export type ConversationArbitraryOptions = {
  /** Fewest units (single messages or tool transactions) after the system prefix. @default 0 */
  readonly minUnits?: number;
  /** Most units after the system prefix. @default 12 */
  readonly maxUnits?: number;
  /** Most leading system messages (the pinned prefix). @default 2 */
  readonly maxSystemMessages?: number;
  /** Most calls in one assistant message (parallel calls). @default 3 */
  readonly maxParallelCalls?: number;
  /** Most characters in one text. @default 120 */
  readonly maxTextLength?: number;
  /** End with a user message (`true`), never (`false`), or either (`undefined`). @default undefined */
  readonly endsWithUser?: boolean;
};

/** A text: ASCII, any Unicode grapheme (CJK, emoji), code-like, or blank. */
export function textArbitrary(maxLength = 120): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.string({ maxLength }), weight: 3 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength }), weight: 2 },
    { arbitrary: fc.lorem({ maxCount: Math.max(1, Math.floor(maxLength / 6)) }), weight: 3 },
    { arbitrary: fc.constantFrom('', ' ', '\n'), weight: 1 },
  );
}

/** Message content: a text, or parts (text, a `data:` image, a file). */
export function contentArbitrary(maxLength = 120): fc.Arbitrary<Message['content']> {
  const part: fc.Arbitrary<ContentPart> = fc.oneof(
    textArbitrary(maxLength).map((text) => ({ type: 'text' as const, text })),
    fc.base64String({ maxLength: 400 }).map((data) => ({
      type: 'image' as const,
      url: `data:image/png;base64,${data}`,
      mediaType: 'image/png',
    })),
    fc.constant({
      type: 'file' as const,
      url: 'https://example.test/report.pdf',
      mediaType: 'application/pdf',
    }),
  );
  return fc.oneof(
    { arbitrary: textArbitrary(maxLength), weight: 4 },
    { arbitrary: fc.array(part, { maxLength: 3 }), weight: 1 },
  );
}

/** Tool names, JSON arguments (sometimes malformed, as models produce them). */
const toolNameArbitrary = fc.constantFrom('read_file', 'exec', 'web_search', 'write_file', 'list_dir');
const argumentsArbitrary = fc.oneof(
  { arbitrary: fc.json({ maxDepth: 2 }), weight: 4 },
  { arbitrary: fc.constantFrom('{"path": "a.md"', '', 'not json'), weight: 1 },
);

/** One message of any role with arbitrary fields; not tool-consistent (use conversations for that). */
export function messageArbitrary(): fc.Arbitrary<Message> {
  return fc
    .record({
      id: fc.uuid({ version: 4 }),
      role: fc.constantFrom<Role>('system', 'user', 'assistant', 'tool'),
      content: contentArbitrary(),
      name: fc.option(toolNameArbitrary, { nil: undefined }),
      toolCallId: fc.option(fc.string({ minLength: 1, maxLength: 12 }), { nil: undefined }),
      reasoning: fc.option(textArbitrary(60), { nil: undefined }),
    })
    .map((record) => {
      const { name, toolCallId, reasoning, ...base } = record;
      return {
        ...base,
        ...(name === undefined ? {} : { name }),
        ...(toolCallId === undefined || base.role !== 'tool' ? {} : { toolCallId }),
        ...(reasoning === undefined || base.role !== 'assistant' ? {} : { reasoning }),
      };
    });
}

type DraftCall = { readonly name: string; readonly arguments: string; readonly result: string };
type DraftUnit =
  | { readonly kind: 'user'; readonly content: Message['content'] }
  | { readonly kind: 'assistant'; readonly content: string }
  | {
      readonly kind: 'transaction';
      readonly content: string;
      readonly calls: readonly DraftCall[];
      readonly order: readonly number[];
    };

function unitArbitrary(
  options: Required<Omit<ConversationArbitraryOptions, 'endsWithUser'>>,
): fc.Arbitrary<DraftUnit> {
  const call = fc.record({
    name: toolNameArbitrary,
    arguments: argumentsArbitrary,
    result: textArbitrary(options.maxTextLength * 2),
  });
  const transaction = fc.array(call, { minLength: 1, maxLength: options.maxParallelCalls }).chain((calls) =>
    fc.record({
      kind: fc.constant('transaction' as const),
      content: fc.oneof(fc.constant(''), textArbitrary(options.maxTextLength)),
      calls: fc.constant(calls),
      order: fc.shuffledSubarray(
        calls.map((_, index) => index),
        { minLength: calls.length, maxLength: calls.length },
      ),
    }),
  );
  return fc.oneof(
    fc.record({ kind: fc.constant('user' as const), content: contentArbitrary(options.maxTextLength) }),
    fc.record({ kind: fc.constant('assistant' as const), content: textArbitrary(options.maxTextLength) }),
    transaction,
  );
}

/**
 * A conversation whose tool calls and results are well formed: an optional system prefix, then
 * user messages, assistant texts and tool transactions (an assistant message with 1..n calls and one
 * result per call, in any order). `validateToolCallIntegrity` finds nothing in it.
 */
export function conversationArbitrary(
  options: ConversationArbitraryOptions = {},
): fc.Arbitrary<readonly Message[]> {
  const resolved = {
    minUnits: options.minUnits ?? 0,
    maxUnits: options.maxUnits ?? 12,
    maxSystemMessages: options.maxSystemMessages ?? 2,
    maxParallelCalls: options.maxParallelCalls ?? 3,
    maxTextLength: options.maxTextLength ?? 120,
  };
  return fc
    .record({
      system: fc.array(textArbitrary(resolved.maxTextLength), { maxLength: resolved.maxSystemMessages }),
      units: fc.array(unitArbitrary(resolved), {
        minLength: resolved.minUnits,
        maxLength: resolved.maxUnits,
      }),
      current:
        options.endsWithUser === undefined
          ? fc.option(textArbitrary(resolved.maxTextLength), { nil: undefined })
          : fc.constant(options.endsWithUser ? 'What next?' : undefined),
    })
    .map(({ system, units, current }) => materialise(system, units, current));
}

function materialise(
  system: readonly string[],
  units: readonly DraftUnit[],
  current: string | undefined,
): readonly Message[] {
  const messages: Message[] = [];
  let callCount = 0;
  const nextId = (): string => `m-${messages.length + 1}`;
  for (const content of system) messages.push({ id: nextId(), role: 'system', content });
  for (const unit of units) {
    if (unit.kind !== 'transaction') {
      messages.push({ id: nextId(), role: unit.kind, content: unit.content });
      continue;
    }
    const calls: ToolCall[] = unit.calls.map((draft) => {
      callCount += 1;
      return { id: `call-${callCount}`, name: draft.name, arguments: draft.arguments };
    });
    messages.push({ id: nextId(), role: 'assistant', content: unit.content, toolCalls: calls });
    for (const index of unit.order) {
      const toolCall = calls[index] as ToolCall;
      const content = (unit.calls[index] as DraftCall).result;
      messages.push({ id: nextId(), role: 'tool', content, toolCallId: toolCall.id, name: toolCall.name });
    }
  }
  if (current !== undefined) messages.push({ id: nextId(), role: 'user', content: current });
  return messages;
}

/** The ways {@link malformedConversationArbitrary} breaks a conversation. */
export type Corruption =
  | 'drop-result'
  | 'duplicate-result'
  | 'orphan-result'
  | 'move-result'
  | 'blank-call-id'
  | 'blank-result-id'
  | 'duplicate-call-id'
  | 'empty-tool-calls'
  | 'empty-tool-name'
  | 'null-tool-name'
  | 'placeholder-assistant'
  | 'same-role-run'
  | 'empty-content';

/** Every {@link Corruption}. */
export const CORRUPTIONS: readonly Corruption[] = [
  'drop-result',
  'duplicate-result',
  'orphan-result',
  'move-result',
  'blank-call-id',
  'blank-result-id',
  'duplicate-call-id',
  'empty-tool-calls',
  'empty-tool-name',
  'null-tool-name',
  'placeholder-assistant',
  'same-role-run',
  'empty-content',
];

/**
 * A conversation broken the ways real stored histories are: a well-formed conversation with 1..4
 * {@link Corruption}s applied at random places (orphan, duplicate, missing or moved results, calls
 * without ids, duplicate call ids, empty or null tool names, empty `toolCalls`, placeholder
 * assistants, consecutive same-role messages, empty contents). Some corruptions may find nothing to
 * break in a short conversation, so the result is sometimes still legal.
 */
export function malformedConversationArbitrary(
  options: ConversationArbitraryOptions = {},
): fc.Arbitrary<readonly Message[]> {
  return fc
    .record({
      messages: conversationArbitrary({ minUnits: 1, ...options }),
      corruptions: fc.array(fc.record({ kind: fc.constantFrom(...CORRUPTIONS), at: fc.nat() }), {
        minLength: 1,
        maxLength: 4,
      }),
    })
    .map(({ messages, corruptions }) =>
      corruptions.reduce<readonly Message[]>(
        (list, corruption, step) => corrupt(list, { ...corruption, step }),
        messages,
      ),
    );
}

/** Where a corruption applies: the list, a chosen tool result, assistant with calls and message. */
type Target = {
  readonly messages: readonly Message[];
  readonly result: number;
  readonly caller: number;
  readonly any: number;
  readonly freshId: string;
};

const CORRUPT: Readonly<Record<Corruption, (target: Target) => readonly Message[]>> = {
  'drop-result': (t) => replaceAt(t, t.result, () => []),
  'duplicate-result': (t) => replaceAt(t, t.result, (m) => [m, { ...m, id: t.freshId }]),
  'orphan-result': (t) =>
    replaceAt(t, t.any, (m) => [
      m,
      { id: t.freshId, role: 'tool', content: 'stray', toolCallId: 'call-orphan', name: 'exec' },
    ]),
  'move-result': (t) =>
    t.result < 0 ? t.messages : [...replaceAt(t, t.result, () => []), t.messages[t.result] as Message],
  'blank-result-id': (t) => replaceAt(t, t.result, (m) => [{ ...m, toolCallId: '' }]),
  'blank-call-id': (t) =>
    replaceAt(t, t.caller, (m) => [
      withCalls(m, (call, index) => (index === 0 ? { ...call, id: '' } : call)),
    ]),
  'duplicate-call-id': (t) =>
    replaceAt(t, t.caller, (m) => [withCalls(m, (call) => ({ ...call, id: 'call-1' }))]),
  'empty-tool-calls': (t) => replaceAt(t, t.caller, (m) => [{ ...m, toolCalls: [] }]),
  'empty-tool-name': (t) => replaceAt(t, t.caller, (m) => [withCalls(m, (call) => ({ ...call, name: '' }))]),
  // Untrusted stored data can carry `null` where the type says string; the filters must survive it.
  'null-tool-name': (t) =>
    replaceAt(t, t.caller, (m) => [withCalls(m, (call) => ({ ...call, name: null as unknown as string }))]),
  'placeholder-assistant': (t) =>
    replaceAt(t, t.any, (m) => [
      m,
      { id: t.freshId, role: 'assistant', content: PLACEHOLDER_ASSISTANT_TEXT },
    ]),
  'same-role-run': (t) =>
    replaceAt(t, t.any, (m) =>
      m.role === 'tool' || m.toolCalls !== undefined ? [m] : [m, { ...m, id: t.freshId }],
    ),
  'empty-content': (t) => replaceAt(t, t.any, (m) => [{ ...m, content: '' }]),
};

function corrupt(
  messages: readonly Message[],
  corruption: { readonly kind: Corruption; readonly at: number; readonly step: number },
): readonly Message[] {
  const pick = (predicate: (message: Message) => boolean): number => {
    const indexes = messages.flatMap((message, index) => (predicate(message) ? [index] : []));
    return indexes.length === 0 ? -1 : (indexes[corruption.at % indexes.length] as number);
  };
  return CORRUPT[corruption.kind]({
    messages,
    result: pick((message) => message.role === 'tool'),
    caller: pick((message) => (message.toolCalls?.length ?? 0) > 0),
    any: messages.length === 0 ? -1 : corruption.at % messages.length,
    freshId: `x-${corruption.step + 1}-${corruption.kind}`,
  });
}

/** Replaces the message at `index` by what `make` returns; no change when `index` is -1. */
function replaceAt(
  target: Target,
  index: number,
  make: (message: Message) => readonly Message[],
): readonly Message[] {
  const { messages } = target;
  if (index < 0) return messages;
  return [...messages.slice(0, index), ...make(messages[index] as Message), ...messages.slice(index + 1)];
}

function withCalls(message: Message, map: (call: ToolCall, index: number) => ToolCall): Message {
  return { ...message, toolCalls: (message.toolCalls ?? []).map(map) };
}

/** Tool definitions as sent with a request (0..4 tools with small JSON schemas). */
export function toolDefinitionsArbitrary(): fc.Arbitrary<readonly ToolDefinition[]> {
  return fc.uniqueArray(
    fc.record({
      name: toolNameArbitrary,
      description: textArbitrary(80),
      parameters: fc.constant({
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
      }),
    }),
    { maxLength: 4, selector: (definition) => definition.name },
  );
}

/** A token budget, from impossible (0) to roomy. */
export function budgetArbitrary(maxTokens = 3000): fc.Arbitrary<number> {
  return fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: maxTokens }));
}
