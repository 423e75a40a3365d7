import {
  contentText,
  hmac,
  type ScriptedReply,
  type ScriptedRequest,
  type ScriptedServer,
  startScriptedJsonServer,
} from './scripted-json-server.js';

/** Options for {@link startOpenAICompactionServer}. */
export type OpenAICompactionServerOptions = {
  /** The key the server seals compaction items with. @default 'scripted-openai-secret' */
  readonly secret?: string;
  /** Multiplies the server's token count (JSON characters / 4), so small tests cross real thresholds. @default 1 */
  readonly tokenScale?: number;
  /** The `compact_threshold` when a `context_management` entry gives none. @default 200000 */
  readonly defaultCompactThreshold?: number;
  /** Models that refuse compaction (answered with a 400, as a model without the feature). @default [] */
  readonly modelsWithoutCompaction?: readonly string[];
};

type Json = Record<string, unknown>;

type State = {
  readonly secret: string;
  readonly options: OpenAICompactionServerOptions;
  /** The context each stored response holds (its input and its output), by response id. */
  readonly stored: Map<string, readonly Json[]>;
  count: number;
};

/**
 * Starts a local HTTP server that speaks the OpenAI Responses API with its compaction rules, for
 * tests driven by the official `openai` SDK (`baseURL: server.url + '/v1'`): `POST /v1/responses`
 * with `context_management: [{ type: 'compaction', compact_threshold }]` puts an opaque `compaction`
 * item (sealed `encrypted_content`) first in `output` once the context passes the threshold, and
 * `POST /v1/responses/compact` returns every user message verbatim followed by one compaction item.
 * Every compaction item sent back is checked (an edited one is a 400 `invalid_encrypted_content`);
 * `previous_response_id` continues the stored context, and an item already held there sent again
 * (the client re-sending or rewriting server-held history) is a 400.
 */
export async function startOpenAICompactionServer(
  options: OpenAICompactionServerOptions = {},
): Promise<ScriptedServer> {
  const state: State = {
    secret: options.secret ?? 'scripted-openai-secret',
    options,
    stored: new Map(),
    count: 0,
  };
  return startScriptedJsonServer((request) => {
    if (request.method !== 'POST')
      return { status: 404, body: error('not_found', `no route ${request.path}`) };
    state.count += 1;
    if (request.path === '/v1/responses') return create(request, state);
    if (request.path === '/v1/responses/compact') return compact(request, state);
    return { status: 404, body: error('not_found', `no route ${request.path}`) };
  });
}

function create(request: ScriptedRequest, state: State): ScriptedReply {
  const body = request.body as Json;
  const context = contextOf(body, state);
  if ('status' in context) return context;
  const management = body['context_management'];
  const entries = Array.isArray(management) ? (management as Json[]) : [];
  if (entries.some((entry) => entry['type'] !== 'compaction'))
    return invalid('context_management entries must have type compaction', 'context_management');
  const refusal = entries.length > 0 ? unsupported(body, state) : undefined;
  if (refusal !== undefined) return refusal;
  const tokens = tokensOf(context.items, state);
  const threshold = entries[0]?.['compact_threshold'];
  const limit =
    typeof threshold === 'number' ? threshold : (state.options.defaultCompactThreshold ?? 200_000);
  const message = {
    type: 'message',
    id: `msg_${state.count}`,
    status: 'completed',
    role: 'assistant',
    content: [
      {
        type: 'output_text',
        text: `reply ${state.count} to: ${lastUserText(context.items)}`,
        annotations: [],
      },
    ],
  };
  const output =
    entries.length > 0 && tokens >= limit ? [sealedItem(context.items, state), message] : [message];
  const id = `resp_${state.count}`;
  if (body['store'] !== false) state.stored.set(id, [...context.items, ...output]);
  return {
    status: 200,
    body: {
      id,
      object: 'response',
      created_at: 1_796_000_000 + state.count,
      model: body['model'],
      status: 'completed',
      output,
      previous_response_id: body['previous_response_id'] ?? null,
      error: null,
      incomplete_details: null,
      instructions: null,
      metadata: {},
      parallel_tool_calls: true,
      temperature: 1,
      top_p: 1,
      tool_choice: 'auto',
      tools: [],
      usage: usage(tokens),
    },
  };
}

function compact(request: ScriptedRequest, state: State): ScriptedReply {
  const body = request.body as Json;
  const context = contextOf(body, state);
  if ('status' in context) return context;
  const refusal = unsupported(body, state);
  if (refusal !== undefined) return refusal;
  const users = context.items
    .filter((item) => (item['type'] ?? 'message') === 'message' && item['role'] === 'user')
    .map((item, index) => ({
      type: 'message',
      id: `msg_u${state.count}_${index}`,
      status: 'completed',
      role: 'user',
      content: [{ type: 'input_text', text: contentText(item['content']) }],
    }));
  return {
    status: 200,
    body: {
      id: `cmp_${state.count}`,
      object: 'response.compaction',
      created_at: 1_796_000_000 + state.count,
      output: [...users, sealedItem(context.items, state)],
      usage: usage(tokensOf(context.items, state)),
    },
  };
}

/** The whole context of a request: the stored one it continues and its input, every compaction item checked. */
function contextOf(body: Json, state: State): { readonly items: readonly Json[] } | ScriptedReply {
  const raw = body['input'];
  const input: Json[] =
    typeof raw === 'string' ? [{ role: 'user', content: raw }] : Array.isArray(raw) ? (raw as Json[]) : [];
  const previous = body['previous_response_id'];
  const held = typeof previous === 'string' ? state.stored.get(previous) : [];
  if (held === undefined)
    return {
      status: 404,
      body: error('previous_response_not_found', `Previous response with id '${previous}' not found.`),
    };
  const heldIds = new Set(held.map((item) => item['id']).filter((id) => typeof id === 'string'));
  const again = input.find((item) => typeof item['id'] === 'string' && heldIds.has(item['id']));
  if (again !== undefined)
    return invalid(
      `Duplicate item found with id ${String(again['id'])}: it is already part of previous_response_id ${String(previous)}; send only new items.`,
      'input',
    );
  for (const item of input) {
    if (item['type'] !== 'compaction') continue;
    if (!isSealed(item, state.secret))
      return {
        status: 400,
        body: error(
          'invalid_encrypted_content',
          'The encrypted content for item compaction could not be verified.',
          'input',
        ),
      };
  }
  return { items: [...held, ...input] };
}

function sealedItem(items: readonly Json[], state: State): Json {
  const payload = Buffer.from(JSON.stringify({ items: items.length, last: lastUserText(items) })).toString(
    'base64url',
  );
  return {
    type: 'compaction',
    id: `cmp_item_${state.count}`,
    encrypted_content: `${payload}.${hmac(state.secret, payload)}`,
  };
}

function isSealed(item: Json, secret: string): boolean {
  const sealed = item['encrypted_content'];
  if (typeof sealed !== 'string') return false;
  const [payload, mac] = sealed.split('.');
  return payload !== undefined && mac !== undefined && hmac(secret, payload) === mac;
}

/** Tokens of what the model reads: the items after the latest compaction item, which stands for those before it. */
function tokensOf(items: readonly Json[], state: State): number {
  const last = items.findLastIndex((item) => item['type'] === 'compaction');
  return Math.ceil(JSON.stringify(items.slice(last + 1)).length / 4) * (state.options.tokenScale ?? 1);
}

function lastUserText(items: readonly Json[]): string {
  return contentText(items.findLast((item) => item['role'] === 'user')?.['content']);
}

function unsupported(body: Json, state: State): ScriptedReply | undefined {
  const model = String(body['model']);
  return (state.options.modelsWithoutCompaction ?? []).includes(model)
    ? invalid(`Compaction is not supported with the model ${model}.`, 'model')
    : undefined;
}

function usage(tokens: number): Json {
  return {
    input_tokens: tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 12,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: tokens + 12,
  };
}

function error(code: string, message: string, param: string | null = null): Json {
  return { error: { message, type: 'invalid_request_error', param, code } };
}

function invalid(message: string, param: string): ScriptedReply {
  return { status: 400, body: error('invalid_request', message, param) };
}
