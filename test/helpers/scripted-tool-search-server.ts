import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { responsesDeferredToolViolations } from './deferred-tool-checks.js';
import { responsesInputViolations } from './scripted-openai-responses-server.js';

/** A local OpenAI Responses API server whose scripted replies are raw output items (`tool_search_call` too). */
export type ScriptedToolSearchServer = {
  /** For the `openai` SDK (`new OpenAI({ baseURL })`): ends in `/v1`. */
  readonly baseURL: string;
  readonly requests: Record<string, unknown>[];
  /** For each request, what the real API would reject in it (empty when legal). */
  readonly violations: string[][];
  close(): Promise<void>;
};

/**
 * Starts a server answering POST /v1/responses with the next scripted list of output items. It answers
 * 400 to a request the API would reject (pairing, a `tools` list that changed, a function of a tool
 * never loaded) and 500 when the script runs out.
 */
export async function startScriptedToolSearchServer(
  script: readonly (readonly Record<string, unknown>[])[],
): Promise<ScriptedToolSearchServer> {
  const queue = [...script];
  const requests: Record<string, unknown>[] = [];
  const violations: string[][] = [];
  const state: { first?: string } = {};
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    for await (const chunk of request) text += String(chunk);
    if (request.url !== '/v1/responses' || request.method !== 'POST') {
      response.writeHead(404).end('not found');
      return;
    }
    const body = JSON.parse(text || '{}') as Record<string, unknown>;
    requests.push(body);
    const problems = [
      ...responsesInputViolations(body['input']),
      ...responsesDeferredToolViolations(body, state),
    ];
    violations.push(problems);
    const output = queue.shift();
    if (problems.length > 0 || output === undefined) {
      response.writeHead(problems.length > 0 ? 400 : 500, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: { message: problems.join('; ') || 'script exhausted', type: 'invalid_request_error' },
        }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: `resp_${requests.length}`,
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
      }),
    );
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
