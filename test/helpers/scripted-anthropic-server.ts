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
    const problems = anthropicRequestViolations(body);
    violations.push(problems);
    if (problems.length > 0) {
      const error = { type: 'error', error: { type: 'invalid_request_error', message: problems.join('; ') } };
      response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(error));
      return;
    }
    const next = queue.shift();
    if (next === undefined) {
      const error = { type: 'error', error: { type: 'api_error', message: 'script exhausted' } };
      response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(error));
    } else if (next.kind === 'status') {
      response
        .writeHead(next.status, { 'content-type': 'application/json' })
        .end(next.body ?? '{"type":"error","error":{"type":"api_error","message":"scripted failure"}}');
    } else if (body['stream'] === true) {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const event of streamEvents(next, requests.length))
        response.write(`event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`);
      response.end();
    } else {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(message(next, requests.length)));
    }
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

const USAGE = {
  input_tokens: 11,
  output_tokens: 7,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

function message(
  reply: Extract<ScriptedAnthropicReply, { kind: 'reply' }>,
  count: number,
): Record<string, unknown> {
  const stopReason =
    reply.stopReason ?? (reply.content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn');
  return {
    id: `msg_${count}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-scripted',
    content: reply.content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: USAGE,
  };
}

function streamEvents(
  reply: Extract<ScriptedAnthropicReply, { kind: 'reply' }>,
  count: number,
): Record<string, unknown>[] {
  const whole = message(reply, count);
  const events: Record<string, unknown>[] = [
    {
      type: 'message_start',
      message: { ...whole, content: [], stop_reason: null, usage: { ...USAGE, output_tokens: 1 } },
    },
  ];
  reply.content.forEach((block, index) => {
    const start =
      block.type === 'text'
        ? { type: 'text', text: '' }
        : block.type === 'thinking'
          ? { type: 'thinking', thinking: '', signature: '' }
          : block.type === 'tool_use'
            ? { ...block, input: {} }
            : block;
    events.push({ type: 'content_block_start', index, content_block: start });
    if (block.type === 'text')
      events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    if (block.type === 'thinking') {
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'thinking_delta', thinking: block.thinking },
      });
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: block.signature },
      });
    }
    if (block.type === 'tool_use') {
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({
    type: 'message_delta',
    delta: { stop_reason: whole['stop_reason'], stop_sequence: null },
    usage: { output_tokens: 7 },
  });
  events.push({ type: 'message_stop' });
  return events;
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
    const blocks: Block[] =
      typeof message['content'] === 'string'
        ? [{ type: 'text', text: message['content'] }]
        : ((message['content'] ?? []) as Block[]);
    if (blocks.length === 0) problems.push(`messages.${index}: content must not be empty`);
    blocks.forEach((block, position) => {
      const at = `messages.${index}.content.${position}`;
      if (block['type'] === 'text' && String(block['text'] ?? '').trim() === '')
        problems.push(`${at}: text content blocks must contain non-whitespace text`);
      if (block['type'] === 'thinking' && !block['signature'])
        problems.push(`${at}: thinking blocks need their signature`);
      if (block['type'] === 'tool_use') {
        if (!/^[a-zA-Z0-9_-]+$/.test(String(block['id'])))
          problems.push(`${at}.id: must match ^[a-zA-Z0-9_-]+$`);
        if (!block['name']) problems.push(`${at}.name: a tool name is required`);
      }
    });
    if (role === 'user') {
      const firstOther = blocks.findIndex((block) => block['type'] !== 'tool_result');
      blocks.forEach((block, position) => {
        if (block['type'] !== 'tool_result') return;
        if (firstOther !== -1 && position > firstOther)
          problems.push(`messages.${index}: tool_result blocks must come first`);
        if (!pending.delete(String(block['tool_use_id'])))
          problems.push(
            `messages.${index}: unexpected tool_use_id ${String(block['tool_use_id'])}: no tool_use in the previous message`,
          );
      });
      if (pending.size > 0)
        problems.push(`messages.${index}: tool_use ids without tool_result: ${[...pending].join(', ')}`);
      pending = new Set();
    } else {
      if (pending.size > 0)
        problems.push(`messages.${index}: tool_use ids without tool_result: ${[...pending].join(', ')}`);
      pending = new Set(
        blocks.flatMap((block) => (block['type'] === 'tool_use' ? [String(block['id'])] : [])),
      );
    }
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
