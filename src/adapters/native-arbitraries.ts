/**
 * Test-only generators of native requests, typed against the official SDK types (`@anthropic-ai/sdk`
 * beta messages, `openai` chat completions and Responses) so they cannot drift from the wire shapes.
 * Every block and item kind appears, with the fields ctxloom does not model and unknown keys.
 */
import type {
  BetaContentBlockParam,
  BetaMessageParam,
  BetaTextBlockParam,
  BetaToolResultBlockParam,
  BetaToolUseBlockParam,
} from '@anthropic-ai/sdk/resources/beta/messages';
import { fc } from '@fast-check/vitest';
import type {
  ChatCompletionContentPart,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ResponseInputContent, ResponseInputItem } from 'openai/resources/responses/responses';

/** Non-blank text (providers refuse blank text). */
export const text = fc.string({ maxLength: 12 }).map((value) => `t${value}`);
const base64 = fc.base64String({ minLength: 4, maxLength: 12 });
const id = fc.stringMatching(/^[A-Za-z0-9_]{1,8}$/);

/** `value` with, sometimes, a key no SDK knows (snake_case, as the APIs name fields). */
function withUnknown<TValue extends object>(arbitrary: fc.Arbitrary<TValue>): fc.Arbitrary<TValue> {
  return fc
    .tuple(
      arbitrary,
      fc.option(fc.record({ x_vendor: fc.oneof(fc.boolean(), text, fc.constant(null)) }), { nil: undefined }),
    )
    .map(([value, extra]) => ({ ...value, ...extra }));
}

function optional<TValue>(arbitrary: fc.Arbitrary<TValue>): fc.Arbitrary<TValue | undefined> {
  return fc.option(arbitrary, { nil: undefined });
}

/** `T` with its fields that may be `undefined` made optional instead (JSON has no `undefined`). */
type Defined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** Leaves out the keys whose value is `undefined`. */
function defined<TValue extends object>(value: TValue): Defined<TValue> {
  // The same fields, without the undefined ones: what Defined<TValue> describes.
  return Object.fromEntries(
    Object.entries(value).filter(([, field]) => field !== undefined),
  ) as Defined<TValue>;
}

const cacheControl = optional(fc.constant({ type: 'ephemeral' as const }));

// ---------------------------------------------------------------- Anthropic

const anthropicText: fc.Arbitrary<BetaTextBlockParam> = withUnknown(
  fc
    .record({
      type: fc.constant('text' as const),
      text,
      cache_control: cacheControl,
      citations: optional(fc.constant(null)),
    })
    .map(defined),
);

const anthropicMedia: fc.Arbitrary<BetaContentBlockParam> = fc.oneof(
  fc
    .record({
      type: fc.constant('image' as const),
      source: fc.oneof(
        fc.record({
          type: fc.constant('base64' as const),
          media_type: fc.constantFrom(
            'image/png' as const,
            'image/jpeg' as const,
            'image/gif' as const,
            'image/webp' as const,
          ),
          data: base64,
        }),
        fc.record({
          type: fc.constant('url' as const),
          url: id.map((name) => `https://example.test/${name}.png`),
        }),
      ),
      cache_control: cacheControl,
    })
    .map(defined),
  withUnknown(
    fc
      .record({
        type: fc.constant('document' as const),
        source: fc.oneof(
          fc.record({
            type: fc.constant('base64' as const),
            media_type: fc.constant('application/pdf' as const),
            data: base64,
          }),
          fc.record({
            type: fc.constant('text' as const),
            media_type: fc.constant('text/plain' as const),
            data: text,
          }),
          fc.record({
            type: fc.constant('url' as const),
            url: id.map((name) => `https://example.test/${name}.pdf`),
          }),
        ),
        title: optional(fc.oneof(text, fc.constant(null))),
        context: optional(text),
      })
      .map(defined),
  ),
  fc.record({
    type: fc.constant('search_result' as const),
    source: id.map((name) => `https://example.test/${name}`),
    title: text,
    content: fc.array(anthropicText, { minLength: 1, maxLength: 2 }),
  }),
);

const anthropicServerTool: fc.Arbitrary<BetaContentBlockParam[]> = fc
  .tuple(id, text, text)
  .map(([toolId, query, title]) => [
    { type: 'server_tool_use', id: `srvtoolu_${toolId}`, name: 'web_search', input: { query } },
    {
      type: 'web_search_tool_result',
      tool_use_id: `srvtoolu_${toolId}`,
      content: [
        { type: 'web_search_result', url: 'https://example.test/', title, encrypted_content: 'ZW5j' },
      ],
    },
  ]);

const anthropicThinking: fc.Arbitrary<BetaContentBlockParam> = fc.oneof(
  fc.record({
    type: fc.constant('thinking' as const),
    thinking: fc.string({ maxLength: 12 }),
    signature: base64,
  }),
  fc.record({ type: fc.constant('redacted_thinking' as const), data: base64 }),
);

const anthropicCompaction: fc.Arbitrary<BetaContentBlockParam> = fc
  .record({
    type: fc.constant('compaction' as const),
    content: fc.oneof(text, fc.constant(null)),
    encrypted_content: base64,
    signature: base64,
    cache_control: cacheControl,
  })
  .map(defined);

type AnthropicTurn = {
  readonly user: readonly BetaContentBlockParam[] | string;
  readonly assistant: readonly BetaContentBlockParam[] | string;
  readonly calls: readonly { readonly input: Record<string, string>; readonly name: string }[];
  readonly isInterleaved: boolean;
  readonly results: readonly Omit<BetaToolResultBlockParam, 'tool_use_id' | 'type'>[];
};

const anthropicResult = withUnknown(
  fc
    .record({
      content: optional(fc.oneof(text, fc.array(anthropicText, { minLength: 1, maxLength: 2 }))),
      is_error: optional(fc.boolean()),
      cache_control: cacheControl,
    })
    .map(defined),
);

const anthropicTurn: fc.Arbitrary<AnthropicTurn> = fc.record({
  user: fc.oneof(text, fc.array(fc.oneof(anthropicText, anthropicMedia), { minLength: 1, maxLength: 3 })),
  assistant: fc.oneof(
    text,
    fc
      .tuple(
        fc.array(anthropicThinking, { maxLength: 2 }),
        fc.array(
          fc.oneof(
            anthropicText.map((block) => [block]),
            anthropicServerTool,
          ),
          { minLength: 1, maxLength: 2 },
        ),
      )
      .map(([thinking, blocks]) => [...thinking, ...blocks.flat()]),
  ),
  calls: fc.array(fc.record({ name: id, input: fc.dictionary(id, text, { maxKeys: 2 }) }), { maxLength: 2 }),
  isInterleaved: fc.boolean(),
  results: fc.array(anthropicResult, { minLength: 2, maxLength: 2 }),
});

/** An Anthropic request: system, an optional compaction block first, turns with tool loops. */
export const anthropicRequestArbitrary: fc.Arbitrary<{
  readonly system?: string | BetaTextBlockParam[];
  readonly messages: BetaMessageParam[];
}> = fc
  .record({
    system: optional(fc.oneof(text, fc.array(anthropicText, { minLength: 1, maxLength: 2 }))),
    compaction: optional(anthropicCompaction),
    turns: fc.array(anthropicTurn, { minLength: 1, maxLength: 3 }),
    unknown: fc.boolean(),
  })
  .map(({ system, compaction, turns, unknown }) => {
    const messages: BetaMessageParam[] = [];
    if (compaction !== undefined) messages.push({ role: 'assistant', content: [compaction] });
    let pending: BetaToolResultBlockParam[] = [];
    turns.forEach((turn, at) => {
      const user =
        typeof turn.user === 'string' && pending.length === 0
          ? turn.user
          : [
              ...pending,
              ...(typeof turn.user === 'string' ? [{ type: 'text' as const, text: turn.user }] : turn.user),
            ];
      messages.push({ role: 'user', content: user, ...(unknown && at === 0 ? { x_trace: 'u' } : {}) });
      const uses: BetaToolUseBlockParam[] = turn.calls.map((call, index) => ({
        type: 'tool_use',
        id: `toolu_${at}_${index}`,
        name: call.name,
        input: call.input,
      }));
      if (typeof turn.assistant === 'string' && uses.length === 0)
        messages.push({ role: 'assistant', content: turn.assistant });
      else {
        const blocks =
          typeof turn.assistant === 'string'
            ? [{ type: 'text' as const, text: turn.assistant }]
            : [...turn.assistant];
        const [firstUse, ...otherUses] = uses;
        const content: BetaContentBlockParam[] =
          turn.isInterleaved && firstUse !== undefined
            ? [...blocks, firstUse, { type: 'text', text: 'and' }, ...otherUses]
            : [...blocks, ...uses];
        messages.push({ role: 'assistant', content });
      }
      pending = uses.map((use, index) => ({
        ...turn.results[index],
        type: 'tool_result',
        tool_use_id: use.id,
      }));
    });
    if (pending.length > 0) messages.push({ role: 'user', content: pending });
    return atMostFourMarkers({ ...(system === undefined ? {} : { system }), messages });
  });

/** The request with `cache_control` left on its first four blocks only (Anthropic takes four). */
function atMostFourMarkers<TValue>(value: TValue): TValue {
  let seen = 0;
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const entries = Object.entries(node).filter(([key]) => key !== 'cache_control' || ++seen <= 4);
    return Object.fromEntries(
      entries.map(([key, field]) => [key, key === 'cache_control' ? field : visit(field)]),
    );
  };
  // The same request with fewer markers.
  return visit(value) as TValue;
}

// ---------------------------------------------------------------- OpenAI chat

const chatText = withUnknown(fc.record({ type: fc.constant('text' as const), text }));
const chatName = optional(id);

const chatUserPart: fc.Arbitrary<ChatCompletionContentPart> = fc.oneof(
  chatText,
  withUnknown(
    fc.record({
      type: fc.constant('image_url' as const),
      image_url: fc
        .record({
          url: fc.oneof(
            id.map((name) => `https://example.test/${name}.png`),
            base64.map((data) => `data:image/png;base64,${data}`),
          ),
          detail: optional(fc.constantFrom('auto' as const, 'low' as const, 'high' as const)),
        })
        .map(defined),
    }),
  ),
  fc.record({
    type: fc.constant('input_audio' as const),
    input_audio: fc.record({ data: base64, format: fc.constantFrom('wav' as const, 'mp3' as const) }),
  }),
  fc.record({
    type: fc.constant('file' as const),
    file: fc.oneof(
      fc
        .record({
          file_data: base64.map((data) => `data:application/pdf;base64,${data}`),
          filename: optional(text),
        })
        .map(defined),
      fc.record({ file_id: id }),
    ),
  }),
);

type ChatTurn = {
  readonly head: ChatCompletionMessageParam;
  readonly assistant: Record<string, unknown>;
  readonly calls: readonly Omit<ChatCompletionMessageFunctionToolCall, 'id'>[];
  readonly contentForm: 'string' | 'empty' | 'null' | 'absent' | 'parts';
  readonly results: readonly {
    readonly content: string | { type: 'text'; text: string }[];
    readonly hasName: boolean;
    readonly extra: Record<string, unknown>;
  }[];
};

const chatHead: fc.Arbitrary<ChatCompletionMessageParam> = fc.oneof(
  withUnknown(
    fc
      .record({
        role: fc.constantFrom('system' as const, 'developer' as const),
        content: fc.oneof(text, fc.array(chatText, { minLength: 1, maxLength: 2 })),
        name: chatName,
      })
      .map(defined),
  ),
  withUnknown(
    fc
      .record({
        role: fc.constant('user' as const),
        content: fc.oneof(text, fc.array(chatUserPart, { minLength: 1, maxLength: 3 })),
        name: chatName,
      })
      .map(defined),
  ),
);

const chatTurn: fc.Arbitrary<ChatTurn> = fc.record({
  head: chatHead,
  assistant: fc
    .record({
      name: chatName,
      refusal: optional(fc.oneof(text, fc.constant(null))),
      function_call: optional(fc.constant(null)),
      reasoning_content: optional(text),
      audio: optional(fc.constant(null)),
      x_vendor: optional(text),
    })
    .map(defined),
  calls: fc.array(
    withUnknown(
      fc.record({
        type: fc.constant('function' as const),
        function: fc.record({ name: id, arguments: fc.json() }),
      }),
    ),
    { maxLength: 2 },
  ),
  contentForm: fc.constantFrom(
    'string' as const,
    'empty' as const,
    'null' as const,
    'absent' as const,
    'parts' as const,
  ),
  results: fc.array(
    fc.record({
      content: fc.oneof(
        text,
        fc.array(fc.record({ type: fc.constant('text' as const), text }), { minLength: 1, maxLength: 2 }),
      ),
      hasName: fc.boolean(),
      extra: fc.option(fc.record({ x_vendor: text }), { nil: undefined }).map((extra) => extra ?? {}),
    }),
    { minLength: 2, maxLength: 2 },
  ),
});

/** OpenAI chat messages (with DeepSeek-style `reasoning_content`), tool loops included. */
export const openAIChatArbitrary: fc.Arbitrary<ChatCompletionMessageParam[]> = fc
  .array(chatTurn, { minLength: 1, maxLength: 3 })
  .map((turns) =>
    turns.flatMap((turn, at): ChatCompletionMessageParam[] => {
      const calls = turn.calls.map((call, index) => ({ ...call, id: `call_${at}_${index}` }));
      const content = {
        string: { content: 'ok' },
        empty: { content: '' },
        null: { content: null },
        absent: {},
        parts: {
          content: [
            { type: 'text' as const, text: 'ok' },
            { type: 'refusal' as const, refusal: 'no' },
          ],
        },
      }[turn.contentForm];
      // The assistant's fields as a relay would send them: SDK fields plus DeepSeek's reasoning_content.
      const assistant = {
        role: 'assistant',
        ...turn.assistant,
        ...content,
        ...(calls.length === 0 ? {} : { tool_calls: calls }),
      } as ChatCompletionMessageParam;
      const results = calls.map((call, index): ChatCompletionMessageParam => {
        const result = turn.results[index];
        // A tool message with `name`, as OpenAI accepts it.
        return {
          role: 'tool',
          tool_call_id: call.id,
          content: result?.content ?? 'done',
          ...(result?.hasName === true ? { name: call.function.name } : {}),
          ...result?.extra,
        } as ChatCompletionMessageParam;
      });
      return [turn.head, assistant, ...results];
    }),
  );

// ---------------------------------------------------------------- OpenAI Responses

const responsesInputContent: fc.Arbitrary<ResponseInputContent> = fc.oneof(
  withUnknown(fc.record({ type: fc.constant('input_text' as const), text })),
  fc.record({
    type: fc.constant('input_image' as const),
    detail: fc.constantFrom('auto' as const, 'low' as const, 'high' as const),
    image_url: fc.oneof(
      id.map((name) => `https://example.test/${name}.png`),
      base64.map((data) => `data:image/png;base64,${data}`),
    ),
  }),
  fc.record({ type: fc.constant('input_image' as const), detail: fc.constant('auto' as const), file_id: id }),
  fc.oneof(
    fc
      .record({
        type: fc.constant('input_file' as const),
        file_data: base64.map((data) => `data:application/pdf;base64,${data}`),
        filename: optional(text),
      })
      .map(defined),
    fc.record({
      type: fc.constant('input_file' as const),
      file_url: id.map((name) => `https://example.test/${name}.pdf`),
    }),
    fc.record({ type: fc.constant('input_file' as const), file_id: id }),
  ),
);

const responsesInputMessage: fc.Arbitrary<ResponseInputItem> = withUnknown(
  fc.oneof(
    fc
      .record({
        role: fc.constantFrom('user' as const, 'system' as const, 'developer' as const),
        content: fc.oneof(text, fc.array(responsesInputContent, { minLength: 1, maxLength: 3 })),
        type: optional(fc.constant('message' as const)),
      })
      .map(defined),
    fc.record({
      role: fc.constant('user' as const),
      type: fc.constant('message' as const),
      status: fc.constant('completed' as const),
      content: fc.array(responsesInputContent, { minLength: 1, maxLength: 2 }),
    }),
  ),
);

const responsesOutputItem: fc.Arbitrary<ResponseInputItem> = fc.oneof(
  fc
    .record({
      type: fc.constant('reasoning' as const),
      id: id.map((value) => `rs_${value}`),
      summary: fc.array(
        fc.record({ type: fc.constant('summary_text' as const), text: fc.string({ maxLength: 8 }) }),
        { maxLength: 2 },
      ),
      encrypted_content: optional(fc.oneof(base64, fc.constant(null))),
      status: optional(fc.constant('completed' as const)),
    })
    .map(defined),
  fc
    .record({
      type: fc.constant('compaction' as const),
      encrypted_content: base64,
      id: optional(id.map((value) => `cmp_${value}`)),
    })
    .map(defined),
  fc.record({
    type: fc.constant('web_search_call' as const),
    id: id.map((value) => `ws_${value}`),
    status: fc.constant('completed' as const),
    action: fc.record({ type: fc.constant('search' as const), query: text }),
  }),
  fc
    .record({
      role: fc.constant('assistant' as const),
      content: fc.oneof(text, fc.constant('')),
      phase: optional(fc.constant('commentary' as const)),
    })
    .map(defined),
  fc.record({
    type: fc.constant('message' as const),
    id: id.map((value) => `msg_${value}`),
    role: fc.constant('assistant' as const),
    status: fc.constant('completed' as const),
    content: fc.array(
      fc.oneof(
        fc.record({
          type: fc.constant('output_text' as const),
          text,
          annotations: fc.constant([]).map((): [] => []),
        }),
        fc.record({ type: fc.constant('refusal' as const), refusal: text }),
      ),
      { minLength: 1, maxLength: 2 },
    ),
  }),
);

type ResponsesTurn = {
  readonly input: ResponseInputItem;
  readonly run: readonly ResponseInputItem[];
  readonly calls: readonly { readonly name: string; readonly arguments: string; readonly hasId: boolean }[];
  readonly outputs: readonly (string | ResponseInputContent[])[];
};

/** A Responses `input`: input messages, runs of output items (reasoning, compaction, messages, calls) and call outputs. */
export const openAIResponsesArbitrary: fc.Arbitrary<ResponseInputItem[]> = fc
  .array(
    fc.record<ResponsesTurn>({
      input: responsesInputMessage,
      run: fc.array(responsesOutputItem, { maxLength: 3 }),
      calls: fc.array(fc.record({ name: id, arguments: fc.json(), hasId: fc.boolean() }), { maxLength: 2 }),
      outputs: fc.array(fc.oneof(text, fc.array(responsesInputContent, { minLength: 1, maxLength: 2 })), {
        minLength: 2,
        maxLength: 2,
      }),
    }),
    { minLength: 1, maxLength: 3 },
  )
  .map((turns) =>
    turns.flatMap((turn, at): ResponseInputItem[] => {
      const calls = turn.calls.map(
        (call, index): ResponseInputItem => ({
          type: 'function_call',
          call_id: `call_${at}_${index}`,
          name: call.name,
          arguments: call.arguments,
          ...(call.hasId ? { id: `fc_${at}_${index}`, status: 'completed' as const } : {}),
        }),
      );
      const outputs = calls.map(
        (_, index): ResponseInputItem => ({
          type: 'function_call_output',
          call_id: `call_${at}_${index}`,
          output: turn.outputs[index] ?? 'done',
        }),
      );
      return [turn.input, ...turn.run, ...calls, ...outputs];
    }),
  );
