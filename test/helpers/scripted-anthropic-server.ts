import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A content block the scripted model answers with. */
export type ScriptedAnthropicBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature: string }
  | { readonly type: 'redacted_thinking'; readonly data: string }
  | {
      readonly type: 'tool_use';
      readonly id: string;
      readonly name: string;
      readonly input: Readonly<Record<string, unknown>>;
    };

/** One scripted answer of {@link startScriptedAnthropicServer}. */
export type ScriptedAnthropicReply =
  | {
      readonly kind: 'reply';
      readonly content: readonly ScriptedAnthropicBlock[];
      readonly stopReason?: string;
    }
  | { readonly kind: 'status'; readonly status: number; readonly body?: string };

/** A local Anthropic Messages API server with scripted replies (127.0.0.1, random port). */
export type ScriptedAnthropicServer = {
  /** For `@ai-sdk/anthropic` (`createAnthropic({ baseURL })`): ends in `/v1`. */
  readonly baseURL: string;
  /** For `@anthropic-ai/sdk` (`new Anthropic({ baseURL })`): the origin. */
  readonly origin: string;
  /** Parsed JSON bodies of every request received, in order. */
  readonly requests: Record<string, unknown>[];
  /** For each request, what the real API would reject in it (empty when legal). */
  readonly violations: string[][];
  readonly pending: () => number;
  close(): Promise<void>;
};

/**
 * Starts a server that answers POST /v1/messages with the next scripted reply, as JSON or, when the
 * request asks for `stream: true`, as the API's server-sent events. Like the real API it answers 400
 * `invalid_request_error` to a request that breaks the Messages rules it checks (see
 * {@link anthropicRequestViolations}); when the script runs out it answers 500.
 */
export async function startScriptedAnthropicServer(
  script: readonly ScriptedAnthropicReply[],
  options: {
    /** More rules the server refuses a request for (400 `invalid_request_error`), beside the built-in ones. */
    readonly check?: (body: Record<string, unknown>) => string[];
  } = {},
): Promise<ScriptedAnthropicServer> {
  const queue = [...script];
  const requests: Record<string, unknown>[] = [];
  const violations: string[][] = [];
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    for await (const chunk of request) text += String(chunk);
    if (request.url !== '/v1/messages' || request.method !== 'POST') {
      response.writeHead(404).end('not found');
      return;
    }
    const body = JSON.parse(text || '{}') as Record<string, unknown>;
    requests.push(body);
    const problems = [...anthropicRequestViolations(body), ...(options.check?.(body) ?? [])];
    violations.push(problems);
    const next = problems.length > 0 ? undefined : queue.shift();
    answer(response, { body, problems, next, count: requests.length });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    requests,
    violations,
    pending: () => queue.length,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(
  response: ServerResponse,
  call: {
    readonly body: Record<string, unknown>;
    readonly problems: readonly string[];
    readonly next: ScriptedAnthropicReply | undefined;
    readonly count: number;
  },
): void {
  const { next } = call;
  if (next === undefined) {
    const invalid = call.problems.length > 0;
    const error = invalid
      ? { type: 'invalid_request_error', message: call.problems.join('; ') }
      : { type: 'api_error', message: 'script exhausted' };
    response
      .writeHead(invalid ? 400 : 500, { 'content-type': 'application/json' })
      .end(JSON.stringify({ type: 'error', error }));
  } else if (next.kind === 'status') {
    response
      .writeHead(next.status, { 'content-type': 'application/json' })
      .end(next.body ?? '{"type":"error","error":{"type":"api_error","message":"scripted failure"}}');
  } else if (call.body['stream'] === true) {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const event of streamEvents(next, call.count)) {
      response.write(`event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`);
    }
    response.end();
  } else {
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify(message(next, call.count)));
  }
}

const USAGE = {
  input_tokens: 11,
  output_tokens: 7,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

type Reply = Extract<ScriptedAnthropicReply, { kind: 'reply' }>;

function message(reply: Reply, count: number): Record<string, unknown> {
  const hasCall = reply.content.some((block) => block.type === 'tool_use');
  return {
    id: `msg_${count}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-scripted',
    content: reply.content,
    stop_reason: reply.stopReason ?? (hasCall ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: USAGE,
  };
}

function streamEvents(reply: Reply, count: number): Record<string, unknown>[] {
  const whole = message(reply, count);
  return [
    {
      type: 'message_start',
      message: { ...whole, content: [], stop_reason: null, usage: { ...USAGE, output_tokens: 1 } },
    },
    ...reply.content.flatMap(blockEvents),
    {
      type: 'message_delta',
      delta: { stop_reason: whole['stop_reason'], stop_sequence: null },
      usage: { output_tokens: 7 },
    },
    { type: 'message_stop' },
  ];
}

function blockEvents(block: ScriptedAnthropicBlock, index: number): Record<string, unknown>[] {
  const start = (content: unknown) => ({ type: 'content_block_start', index, content_block: content });
  const delta = (value: unknown) => ({ type: 'content_block_delta', index, delta: value });
  const stop = { type: 'content_block_stop', index };
  switch (block.type) {
    case 'text':
      return [start({ type: 'text', text: '' }), delta({ type: 'text_delta', text: block.text }), stop];
    case 'thinking':
      return [
        start({ type: 'thinking', thinking: '', signature: '' }),
        delta({ type: 'thinking_delta', thinking: block.thinking }),
        delta({ type: 'signature_delta', signature: block.signature }),
        stop,
      ];
    case 'tool_use':
      return [
        start({ ...block, input: {} }),
        delta({ type: 'input_json_delta', partial_json: JSON.stringify(block.input) }),
        stop,
      ];
    case 'redacted_thinking':
      return [start(block), stop];
  }
}

type Block = Readonly<Record<string, unknown>>;

/**
 * What the Messages API would reject in a request body, written from its published rules: roles
 * alternate and start with `user`; text is not blank; `thinking` blocks carry a signature; a
 * `tool_use` (id `^[a-zA-Z0-9_-]+$`, a name) is answered by a `tool_result` first in the very next
 * user message, and no result answers nothing; tool names are not empty; at most four `cache_control`
 * breakpoints.
 */
export function anthropicRequestViolations(body: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const messages = Array.isArray(body['messages']) ? (body['messages'] as Block[]) : [];
  if (messages.length === 0) problems.push('messages: at least one message is required');
  let pending = new Set<string>();
  messages.forEach((message, index) => {
    const role = message['role'];
    if (index === 0 && role !== 'user') problems.push('messages.0: the first message must use the user role');
    if (index > 0 && messages[index - 1]?.['role'] === role)
      problems.push(`messages.${index}: roles must alternate`);
    const blocks = blocksOf(message);
    if (blocks.length === 0) problems.push(`messages.${index}: content must not be empty`);
    blocks.forEach((block, position) => {
      problems.push(...blockViolations(block, `messages.${index}.content.${position}`));
    });
    if (role === 'user') problems.push(...resultViolations(blocks, { index, pending }));
    else if (pending.size > 0)
      problems.push(`messages.${index}: tool_use ids without tool_result: ${[...pending].join(', ')}`);
    pending =
      role === 'user'
        ? new Set()
        : new Set(blocks.flatMap((block) => (block['type'] === 'tool_use' ? [String(block['id'])] : [])));
  });
  const tools = Array.isArray(body['tools']) ? (body['tools'] as Block[]) : [];
  tools.forEach((tool, index) => {
    if (!tool['name']) problems.push(`tools.${index}.name: a tool name is required`);
  });
  const breakpoints = (
    JSON.stringify({ tools, system: body['system'], messages }).match(/"cache_control":/g) ?? []
  ).length;
  if (breakpoints > 4)
    problems.push(`A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`);
  return problems;
}

function blocksOf(message: Block): Block[] {
  const content = message['content'];
  return typeof content === 'string' ? [{ type: 'text', text: content }] : ((content ?? []) as Block[]);
}

function blockViolations(block: Block, at: string): string[] {
  if (block['type'] === 'text' && String(block['text'] ?? '').trim() === '') {
    return [`${at}: text content blocks must contain non-whitespace text`];
  }
  if (block['type'] === 'thinking' && !block['signature'])
    return [`${at}: thinking blocks need their signature`];
  if (block['type'] !== 'tool_use') return [];
  const problems: string[] = [];
  if (!/^[a-zA-Z0-9_-]+$/.test(String(block['id']))) problems.push(`${at}.id: must match ^[a-zA-Z0-9_-]+$`);
  if (!block['name']) problems.push(`${at}.name: a tool name is required`);
  return problems;
}

/** The results of a user message: first in it, each answering a tool_use of the previous message, all answered. */
function resultViolations(
  blocks: readonly Block[],
  run: { readonly index: number; readonly pending: Set<string> },
): string[] {
  const problems: string[] = [];
  const firstOther = blocks.findIndex((block) => block['type'] !== 'tool_result');
  blocks.forEach((block, position) => {
    if (block['type'] !== 'tool_result') return;
    if (firstOther !== -1 && position > firstOther)
      problems.push(`messages.${run.index}: tool_result blocks must come first`);
    const id = String(block['tool_use_id']);
    if (!run.pending.delete(id)) {
      problems.push(
        `messages.${run.index}: unexpected tool_use_id ${id}: no tool_use in the previous message`,
      );
    }
  });
  if (run.pending.size > 0)
    problems.push(`messages.${run.index}: tool_use ids without tool_result: ${[...run.pending].join(', ')}`);
  return problems;
}
