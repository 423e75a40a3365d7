import { checkBlocks, lastUser, onDemandProblem, signedBlock } from './anthropic-compaction-block.js';
import { anthropicError as error, anthropicInvalid as invalid } from './anthropic-errors.js';
import { streamOf } from './anthropic-message-stream.js';
import {
  contentText,
  type ScriptedReply,
  type ScriptedRequest,
  type ScriptedServer,
  startScriptedJsonServer,
} from './scripted-json-server.js';

/** Options for {@link startAnthropicCompactionServer}. */
export type AnthropicCompactionServerOptions = {
  /** The key the server signs compaction blocks with. @default 'scripted-anthropic-secret' */
  readonly secret?: string;
  /** Multiplies the server's token count (JSON characters / 4), so small tests cross real thresholds. @default 1 */
  readonly tokenScale?: number;
  /** Models that refuse compaction (answered with a 400, as a model without the feature). @default [] */
  readonly modelsWithoutCompaction?: readonly string[];
};

type Json = Record<string, unknown>;
type Block = Json;

/**
 * Starts a local HTTP server that speaks Anthropic's Messages API (`POST /v1/messages`) with its
 * compaction rules, for tests driven by the official `@anthropic-ai/sdk` (`baseURL: server.url`):
 * threshold compaction (`context_management.edits` `compact_20260112`: trigger, default 150,000 and
 * minimum 50,000 input tokens; `instructions`; `pause_after_compaction`), on-demand compaction
 * (`compaction: { type: 'summarize' }`, never with `context_management`) and `clear_tool_uses_20250919`
 * (reported in `applied_edits`), each behind its beta header. Compaction blocks are signed (an HMAC
 * over content, encrypted content and tool changes) and checked on every request: a block with
 * content must be the first block of the conversation (`compaction_block_misplaced`), only one block
 * may have content (`compaction_block_ambiguous`), an edited block is refused
 * (`compaction_content_mismatch`, `compaction_signature_invalid`, `compaction_tool_changes_mismatch`),
 * all as 400s with `error.details.error_code`, as the API does. A block with `content: null` is a no-op.
 */
export async function startAnthropicCompactionServer(
  options: AnthropicCompactionServerOptions = {},
): Promise<ScriptedServer> {
  const secret = options.secret ?? 'scripted-anthropic-secret';
  let count = 0;
  return startScriptedJsonServer((request) => {
    if (request.method !== 'POST' || !request.path.startsWith('/v1/messages'))
      return { status: 404, body: error('not_found_error', `no route ${request.path}`) };
    count += 1;
    return messages(request, { ...options, secret, count });
  });
}

type Parsed = {
  readonly body: Json;
  readonly list: readonly Json[];
  readonly edits: readonly Json[];
  readonly compactEdit: Json | undefined;
  readonly clearEdit: Json | undefined;
  readonly onDemand: Json | undefined;
};

type Run = AnthropicCompactionServerOptions & { readonly secret: string; readonly count: number };

function messages(request: ScriptedRequest, run: Run): ScriptedReply {
  const body = request.body as Json;
  const edits = editsOf(body);
  const demand = body['compaction'];
  const parsed: Parsed = {
    body,
    list: Array.isArray(body['messages']) ? (body['messages'] as Json[]) : [],
    edits,
    compactEdit: edits.find((edit) => edit['type'] === 'compact_20260112'),
    clearEdit: edits.find((edit) => edit['type'] === 'clear_tool_uses_20250919'),
    onDemand: typeof demand === 'object' && demand !== null ? (demand as Json) : undefined,
  };
  const refusal = refusalOf(request, { parsed, run });
  if (refusal !== undefined) return refusal;
  const { list } = parsed;
  const tokens =
    Math.ceil((JSON.stringify(body['system'] ?? '').length + JSON.stringify(list).length) / 4) *
    (run.tokenScale ?? 1);
  const answerOf = { run, model: String(body['model']), tokens, stream: body['stream'] === true };
  if (parsed.onDemand !== undefined) {
    const problem = onDemandProblem(list);
    if (problem !== undefined) return problem;
    const block = signedBlock(list, { secret: run.secret, instructions: parsed.onDemand['instructions'] });
    return reply({ ...answerOf, content: [block], stopReason: 'compaction', management: null });
  }
  return answer(parsed, answerOf);
}

function refusalOf(
  request: ScriptedRequest,
  { parsed, run }: { readonly parsed: Parsed; readonly run: Run },
): ScriptedReply | undefined {
  const betas = String(request.headers['anthropic-beta'] ?? '')
    .split(',')
    .map((beta) => beta.trim());
  const { body, compactEdit, onDemand } = parsed;
  return (
    need(betas, compactEdit, 'compact-2026-01-12') ??
    need(betas, parsed.clearEdit, 'context-management-2025-06-27') ??
    need(betas, onDemand, 'compact-2026-09-04') ??
    (onDemand !== undefined && body['context_management'] !== undefined
      ? invalid('compaction cannot be combined with context_management')
      : undefined) ??
    unsupported(body, { ...run, wanted: compactEdit !== undefined || onDemand !== undefined }) ??
    checkBlocks(body, parsed.list, run.secret) ??
    checkTrigger(compactEdit)
  );
}

/** A normal turn: the clearing report, and the compaction block first when the threshold is reached. */
function answer(
  parsed: Parsed,
  run: { readonly run: Run; readonly model: string; readonly tokens: number; readonly stream: boolean },
): ScriptedReply {
  const { list, compactEdit, clearEdit } = parsed;
  const applied =
    clearEdit === undefined
      ? []
      : [cleared(list, { edit: clearEdit, tokens: run.tokens, scale: run.run.tokenScale ?? 1 })];
  const management = parsed.edits.length === 0 ? null : { applied_edits: applied };
  const text = {
    type: 'text',
    text: `reply ${run.run.count} to: ${contentText(lastUser(list)?.['content'])}`,
    citations: null,
  };
  const trigger = (compactEdit?.['trigger'] as Json | undefined)?.['value'];
  if (compactEdit === undefined || run.tokens < (typeof trigger === 'number' ? trigger : 150_000))
    return reply({ ...run, content: [text], stopReason: 'end_turn', management });
  const block = signedBlock(list, { secret: run.run.secret, instructions: compactEdit['instructions'] });
  const pause = compactEdit['pause_after_compaction'] === true;
  return reply({
    ...run,
    content: pause ? [block] : [block, text],
    stopReason: pause ? 'compaction' : 'end_turn',
    management,
  });
}

function editsOf(body: Json): readonly Json[] {
  const management = body['context_management'] as Json | undefined | null;
  const edits = management?.['edits'];
  return Array.isArray(edits) ? (edits as Json[]) : [];
}

function need(betas: readonly string[], used: unknown, beta: string): ScriptedReply | undefined {
  if (used === undefined || used === null || betas.includes(beta)) return undefined;
  return invalid(`this request needs the beta header anthropic-beta: ${beta}`);
}

function unsupported(
  body: Json,
  run: AnthropicCompactionServerOptions & { readonly wanted: boolean },
): ScriptedReply | undefined {
  const model = String(body['model']);
  if (!run.wanted || !(run.modelsWithoutCompaction ?? []).includes(model)) return undefined;
  return invalid(`model ${model} does not support compaction`);
}

function checkTrigger(edit: Json | undefined): ScriptedReply | undefined {
  const value = (edit?.['trigger'] as Json | undefined)?.['value'];
  if (typeof value !== 'number' || value >= 50_000) return undefined;
  return invalid(
    `context_management.edits.compact_20260112.trigger.value must be at least 50000, got ${value}`,
  );
}

function cleared(
  list: readonly Json[],
  run: { readonly edit: Json; readonly tokens: number; readonly scale: number },
): Json {
  const results = list
    .flatMap((message) => (Array.isArray(message['content']) ? (message['content'] as Block[]) : []))
    .filter((block) => block['type'] === 'tool_result');
  const trigger = (run.edit['trigger'] as Json | undefined) ?? { type: 'input_tokens', value: 100_000 };
  const reached =
    trigger['type'] === 'tool_uses'
      ? results.length >= Number(trigger['value'])
      : run.tokens >= Number(trigger['value']);
  const keep = Number(((run.edit['keep'] as Json | undefined) ?? { value: 3 })['value']);
  const clearable = reached ? results.slice(0, Math.max(0, results.length - keep)) : [];
  const tokens = Math.ceil(JSON.stringify(clearable).length / 4) * run.scale;
  const atLeast = Number(((run.edit['clear_at_least'] as Json | undefined) ?? { value: 0 })['value']);
  const done = tokens >= atLeast ? clearable : [];
  return {
    type: 'clear_tool_uses_20250919',
    cleared_tool_uses: done.length,
    cleared_input_tokens: done.length === 0 ? 0 : tokens,
  };
}

function reply(run: {
  readonly run: { readonly count: number };
  readonly model: string;
  readonly content: readonly Block[];
  readonly stopReason: string;
  readonly tokens: number;
  readonly management: Json | null;
  readonly stream: boolean;
}): ScriptedReply {
  const message = {
    id: `msg_${run.run.count}`,
    type: 'message',
    role: 'assistant',
    model: run.model,
    content: run.content,
    stop_reason: run.stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: run.tokens,
      output_tokens: 12,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
    context_management: run.management,
  };
  return { status: 200, body: message, ...(run.stream ? { events: streamOf(message) } : {}) };
}
