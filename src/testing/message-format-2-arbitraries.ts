/**
 * fast-check arbitraries for message format 2: reasoning parts (Anthropic signed and redacted
 * thinking, OpenAI encrypted reasoning, plain), provider parts (native objects kept whole), typed tool
 * outputs, and `providerOptions` / `native` on messages, parts and tool calls. Kept apart from
 * `arbitraries.ts` (already over 300 lines); both are exported from `ctxloom/testing`.
 * @module ctxloom/testing/message-format-2-arbitraries
 */
import * as fc from 'fast-check';
import type { JsonObject, JsonValue } from '../core/json.js';
import type {
  ContentPart,
  Message,
  NativeFields,
  ProviderOptions,
  ProviderPart,
  ReasoningPart,
  Role,
  ToolCall,
  ToolOutputType,
} from '../core/message.js';
import { type ConversationArbitraryOptions, conversationArbitrary, textArbitrary } from './arbitraries.js';

const keyArbitrary = fc.constantFrom(
  'cacheControl',
  'cache_control',
  'itemId',
  'citations',
  'detail',
  'status',
  'x_1',
);
const scalarArbitrary: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -1000, max: 1000 }),
  fc.boolean(),
  fc.constant(null),
);

/** A small JSON object (no `-0`, no special keys, so it survives `JSON.stringify` unchanged). */
export function jsonObjectArbitrary(): fc.Arbitrary<JsonObject> {
  const nested = fc.oneof(
    scalarArbitrary,
    fc.array(scalarArbitrary, { maxLength: 2 }),
    fc.dictionary(keyArbitrary, scalarArbitrary, { maxKeys: 2 }),
  );
  return fc.dictionary(keyArbitrary, nested, { minKeys: 1, maxKeys: 3 });
}

/** `providerOptions` as the AI SDK shapes them: provider name → JSON object. */
export function providerOptionsArbitrary(): fc.Arbitrary<ProviderOptions> {
  return fc.dictionary(fc.constantFrom('anthropic', 'openai', 'google'), jsonObjectArbitrary(), {
    minKeys: 1,
    maxKeys: 2,
  });
}

/** `native`: wire format → the fields of that format ctxloom has no field for. */
export function nativeFieldsArbitrary(): fc.Arbitrary<NativeFields> {
  return fc.dictionary(
    fc.constantFrom('anthropic', 'openai-chat', 'openai-responses', 'ai-sdk'),
    jsonObjectArbitrary(),
    { minKeys: 1, maxKeys: 2 },
  );
}

/** `{ providerOptions?, native? }`, each present about a third of the time. */
function carriesArbitrary(): fc.Arbitrary<{ providerOptions?: ProviderOptions; native?: NativeFields }> {
  return fc
    .record({
      providerOptions: fc.option(providerOptionsArbitrary(), { nil: undefined, freq: 2 }),
      native: fc.option(nativeFieldsArbitrary(), { nil: undefined, freq: 2 }),
    })
    .map(({ providerOptions, native }) => ({
      ...(providerOptions === undefined ? {} : { providerOptions }),
      ...(native === undefined ? {} : { native }),
    }));
}

const signatureArbitrary = fc.base64String({ minLength: 8, maxLength: 64 });
const payloadArbitrary = fc.base64String({ minLength: 4, maxLength: 400 });

/**
 * A reasoning part of every kind: Anthropic signed thinking, Anthropic redacted thinking, OpenAI
 * encrypted reasoning (with its `itemId` in provider options), plain reasoning text; some with
 * provider options or native fields.
 */
export function reasoningPartArbitrary(): fc.Arbitrary<ReasoningPart> {
  const text = textArbitrary(60);
  const kinds: fc.Arbitrary<ReasoningPart> = fc.oneof(
    fc.record({ text, signature: signatureArbitrary }).map(
      ({ text: thinking, signature }): ReasoningPart => ({
        type: 'reasoning',
        text: thinking,
        provider: 'anthropic',
        signature,
      }),
    ),
    payloadArbitrary.map(
      (data): ReasoningPart => ({ type: 'reasoning', text: '', provider: 'anthropic', redactedData: data }),
    ),
    fc.record({ text, payload: payloadArbitrary }).map(
      ({ text: summary, payload }): ReasoningPart => ({
        type: 'reasoning',
        text: summary,
        provider: 'openai',
        encryptedContent: payload,
        providerOptions: { openai: { itemId: 'rs_1' } },
      }),
    ),
    text.map((plain): ReasoningPart => ({ type: 'reasoning', text: plain })),
  );
  return fc
    .tuple(kinds, carriesArbitrary(), fc.boolean())
    .map(([part, carries, plain]) => (plain ? part : { ...part, ...carries }));
}

/** A provider part: an Anthropic compaction or server tool block, a Responses item, an AI SDK part. */
export function providerPartArbitrary(): fc.Arbitrary<ProviderPart> {
  const value: fc.Arbitrary<{ format: string; value: JsonObject }> = fc.oneof(
    fc
      .record({ summary: textArbitrary(60), payload: payloadArbitrary, signature: signatureArbitrary })
      .map(({ summary, payload, signature }) => ({
        format: 'anthropic',
        value: { type: 'compaction', content: summary, encrypted_content: payload, signature },
      })),
    textArbitrary(40).map((query) => ({
      format: 'anthropic',
      value: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query } },
    })),
    payloadArbitrary.map((payload) => ({
      format: 'openai-responses',
      value: { type: 'compaction', id: 'cmp_1', encrypted_content: payload },
    })),
    jsonObjectArbitrary().map((extra) => ({
      format: 'ai-sdk',
      value: { ...extra, type: 'tool-approval-request', approvalId: 'a-1', toolCallId: 'call-1' },
    })),
  );
  return value.map(
    ({ format, value: native }): ProviderPart => ({
      type: 'provider',
      format,
      kind: String(native['type']),
      value: native,
    }),
  );
}

/** A content part of any kind (text, image, file, reasoning, provider), some with provider options or native fields. */
export function anyContentPartArbitrary(): fc.Arbitrary<ContentPart> {
  const media: fc.Arbitrary<ContentPart> = fc.oneof(
    textArbitrary(60).map((text): ContentPart => ({ type: 'text', text })),
    fc.constant<ContentPart>({ type: 'image', url: 'https://example.test/a.png', mediaType: 'image/png' }),
    fc.constant<ContentPart>({
      type: 'file',
      url: 'data:application/pdf;base64,JVBERi0=',
      mediaType: 'application/pdf',
      filename: 'a.pdf',
    }),
  );
  return fc.oneof(
    {
      arbitrary: fc.tuple(media, carriesArbitrary()).map(([part, carries]) => ({ ...part, ...carries })),
      weight: 3,
    },
    { arbitrary: reasoningPartArbitrary(), weight: 2 },
    { arbitrary: providerPartArbitrary(), weight: 1 },
  );
}

/** Every tool output type. */
export const TOOL_OUTPUT_TYPES: readonly ToolOutputType[] = [
  'text',
  'json',
  'error-text',
  'error-json',
  'execution-denied',
  'content',
];

/**
 * One message of any role carrying every message format 2 field that fits its role: content of all
 * part kinds (assistant reasoning first, as providers return it), `output` on tool messages,
 * `providerOptions` and `native` on the message and its tool calls, a timestamp in metadata (so a
 * store that stamps messages leaves it as it is). Not tool-consistent.
 */
export function richMessageArbitrary(): fc.Arbitrary<Message> {
  return fc
    .record({
      id: fc.uuid({ version: 4 }),
      role: fc.constantFrom<Role>('system', 'user', 'assistant', 'tool'),
      leading: fc.array(reasoningPartArbitrary(), { maxLength: 3 }),
      parts: fc.option(fc.array(anyContentPartArbitrary(), { maxLength: 4 }), { nil: undefined, freq: 4 }),
      text: textArbitrary(60),
      calls: fc.array(toolCallArbitrary(), { maxLength: 2 }),
      output: fc.option(fc.constantFrom(...TOOL_OUTPUT_TYPES), { nil: undefined }),
      reasoning: fc.option(textArbitrary(40), { nil: undefined }),
      carries: carriesArbitrary(),
    })
    .map(materialiseRichMessage);
}

type RichDraft = {
  readonly id: string;
  readonly role: Role;
  readonly leading: readonly ReasoningPart[];
  readonly parts: readonly ContentPart[] | undefined;
  readonly text: string;
  readonly calls: readonly ToolCall[];
  readonly output: ToolOutputType | undefined;
  readonly reasoning: string | undefined;
  readonly carries: { providerOptions?: ProviderOptions; native?: NativeFields };
};

function materialiseRichMessage(draft: RichDraft): Message {
  const isAssistant = draft.role === 'assistant';
  const content =
    draft.parts === undefined && draft.leading.length === 0
      ? draft.text
      : [...(isAssistant ? draft.leading : []), ...(draft.parts ?? [])];
  const byRole = roleFields(draft);
  return {
    id: draft.id,
    role: draft.role,
    content,
    ...byRole,
    ...draft.carries,
    metadata: { timestamp: '2026-12-07T12:00:00.000000' },
  };
}

function roleFields(draft: RichDraft): Partial<Message> {
  if (draft.role === 'tool')
    return {
      toolCallId: 'call-1',
      name: 'read_file',
      ...(draft.output === undefined ? {} : { output: draft.output }),
    };
  if (draft.role !== 'assistant') return {};
  return {
    ...(draft.calls.length > 0 ? { toolCalls: draft.calls } : {}),
    ...(draft.reasoning === undefined ? {} : { reasoning: draft.reasoning }),
  };
}

function toolCallArbitrary(): fc.Arbitrary<ToolCall> {
  return fc
    .record({
      id: fc.constantFrom('call-1', 'call-2', 'toolu_1'),
      name: fc.constantFrom('read_file', 'exec'),
      arguments: fc.json({ maxDepth: 1 }),
      carries: carriesArbitrary(),
    })
    .map(({ carries, ...call }) => ({ ...call, ...carries }));
}

/**
 * A well-formed conversation ({@link conversationArbitrary}) whose messages carry message format 2
 * data: assistant messages start with reasoning parts and may hold provider parts, tool results get
 * an `output` type, and messages, parts and calls get provider options and native fields. Tool calls
 * and results stay paired, so the governor's invariants apply.
 */
export function richConversationArbitrary(
  options: ConversationArbitraryOptions = {},
): fc.Arbitrary<readonly Message[]> {
  return conversationArbitrary(options).chain((messages) =>
    fc.tuple(...messages.map((message) => enrich(message))).map((enriched): readonly Message[] => enriched),
  );
}

function enrich(message: Message): fc.Arbitrary<Message> {
  return fc
    .record({
      leading: fc.array(reasoningPartArbitrary(), { maxLength: 2 }),
      extra: fc.array(anyContentPartArbitrary(), { maxLength: 2 }),
      output: fc.constantFrom<ToolOutputType | undefined>(undefined, 'text', 'json', 'error-text'),
      carries: carriesArbitrary(),
      callCarries: fc.array(carriesArbitrary(), { minLength: 3, maxLength: 3 }),
    })
    .map((draft) => enriched(message, draft));
}

type Enrichment = {
  readonly leading: readonly ReasoningPart[];
  readonly extra: readonly ContentPart[];
  readonly output: ToolOutputType | undefined;
  readonly carries: { providerOptions?: ProviderOptions; native?: NativeFields };
  readonly callCarries: readonly { providerOptions?: ProviderOptions; native?: NativeFields }[];
};

function enriched(message: Message, draft: Enrichment): Message {
  const base: Message = { ...message, ...draft.carries };
  if (message.role === 'tool') return draft.output === undefined ? base : { ...base, output: draft.output };
  if (message.role === 'system') return base;
  const text = message.content;
  const tail: readonly ContentPart[] =
    typeof text !== 'string' ? text : text === '' ? [] : [{ type: 'text', text }];
  const leading = message.role === 'assistant' ? draft.leading : [];
  const content: readonly ContentPart[] = [...leading, ...tail, ...draft.extra];
  const calls = message.toolCalls?.map((call, index) => ({ ...call, ...draft.callCarries[index % 3] }));
  return {
    ...base,
    content: content.length === 0 ? text : content,
    ...(calls === undefined ? {} : { toolCalls: calls }),
  };
}
