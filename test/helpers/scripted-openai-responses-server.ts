import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of {@link startScriptedResponsesServer}: output items, as the API returns them. */
export type ScriptedResponsesReply = {
  readonly reasoning?: { readonly summary: string; readonly encrypted: string };
  readonly text?: string;
  readonly calls?: readonly { readonly callId: string; readonly name: string; readonly arguments: string }[];
};

/** A local OpenAI Responses API server with scripted replies (127.0.0.1, random port). */
export type ScriptedResponsesServer = {
  /** For the `openai` SDK (`new OpenAI({ baseURL })`): ends in `/v1`. */
  readonly baseURL: string;
  /** Parsed JSON bodies of every request received, in order. */
  readonly requests: Record<string, unknown>[];
  /** For each request, what the real API would reject in it (empty when legal). */
  readonly violations: string[][];
  close(): Promise<void>;
};

/**
 * Starts a server that answers POST /v1/responses with the next scripted reply (non-streaming). Like
 * the real API it answers 400 when a `function_call_output` answers no call of the input or a call has
 * no output, and 500 when the script runs out.
 */
export async function startScriptedResponsesServer(
  script: readonly ScriptedResponsesReply[],
): Promise<ScriptedResponsesServer> {
  const queue = [...script];
  const requests: Record<string, unknown>[] = [];
  const violations: string[][] = [];
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    for await (const chunk of request) text += String(chunk);
    if (request.url !== '/v1/responses' || request.method !== 'POST') {
      response.writeHead(404).end('not found');
      return;
    }
    const body = JSON.parse(text || '{}') as Record<string, unknown>;
    requests.push(body);
    const problems = responsesInputViolations(body['input']);
    violations.push(problems);
    const next = queue.shift();
    if (problems.length > 0 || next === undefined) {
      const status = problems.length > 0 ? 400 : 500;
      const message = problems.length > 0 ? problems.join('; ') : 'script exhausted';
      response
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }));
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify(reply(next, requests.length)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    violations,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function reply(next: ScriptedResponsesReply, count: number): Record<string, unknown> {
  const output: Record<string, unknown>[] = [];
  if (next.reasoning !== undefined) {
    output.push({
      type: 'reasoning',
      id: `rs_${count}`,
      summary: [{ type: 'summary_text', text: next.reasoning.summary }],
      encrypted_content: next.reasoning.encrypted,
    });
  }
  if (next.text !== undefined) {
    output.push({
      type: 'message',
      id: `msg_${count}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: next.text, annotations: [] }],
    });
  }
  for (const call of next.calls ?? []) {
    output.push({
      type: 'function_call',
      id: `fc_${call.callId}`,
      call_id: call.callId,
      name: call.name,
      arguments: call.arguments,
      status: 'completed',
    });
  }
  return {
    id: `resp_${count}`,
    object: 'response',
    created_at: 0,
    status: 'completed',
    model: 'gpt-scripted',
    output,
    usage: {
      input_tokens: 11,
      output_tokens: 7,
      total_tokens: 18,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

/** What the Responses API rejects in an `input`: outputs that answer no call, calls without an output. */
export function responsesInputViolations(input: unknown): string[] {
  if (typeof input === 'string') return [];
  const items = Array.isArray(input) ? (input as Record<string, unknown>[]) : [];
  const calls = new Set<string>();
  const answered = new Set<string>();
  const problems: string[] = [];
  items.forEach((item, index) => {
    if (item['type'] === 'function_call') {
      if (!item['name']) problems.push(`input[${index}].name: a function name is required`);
      calls.add(String(item['call_id']));
    }
    if (item['type'] === 'function_call_output') {
      const id = String(item['call_id']);
      if (!calls.has(id)) problems.push(`input[${index}]: no function call found for call_id ${id}`);
      answered.add(id);
    }
  });
  for (const id of calls)
    if (!answered.has(id)) problems.push(`No tool output found for function call ${id}.`);
  return problems;
}
