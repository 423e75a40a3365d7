import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of {@link startScriptedOpenAIServer}. */
export type ScriptedReply =
  | {
      readonly kind: 'reply';
      readonly content?: string | null;
      readonly finishReason?: string;
      readonly toolCalls?: readonly { id: string; name: string; arguments: string }[];
    }
  | {
      readonly kind: 'status';
      readonly status: number;
      readonly body?: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'hang' };

/** A local OpenAI chat-completions server with scripted replies (127.0.0.1, random port). */
export type ScriptedOpenAIServer = {
  readonly baseURL: string;
  /** Parsed JSON bodies of every request received, in order. */
  readonly requests: Record<string, unknown>[];
  /** Replies still to be served. */
  readonly pending: () => number;
  close(): Promise<void>;
};

/**
 * Starts a server that answers POST /v1/chat/completions with the next scripted reply. When the script
 * runs out it answers 500 `script exhausted`, so a test that makes an unexpected call fails loudly.
 */
export async function startScriptedOpenAIServer(
  script: readonly ScriptedReply[],
): Promise<ScriptedOpenAIServer> {
  const queue = [...script];
  const requests: Record<string, unknown>[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    for await (const chunk of request) text += String(chunk);
    requests.push(JSON.parse(text || '{}') as Record<string, unknown>);
    if (request.url !== '/v1/chat/completions') {
      response.writeHead(404).end('not found');
      return;
    }
    const next = queue.shift();
    if (next === undefined) response.writeHead(500, { 'content-type': 'text/plain' }).end('script exhausted');
    else if (next.kind === 'hang') hanging.push(response);
    else if (next.kind === 'status') {
      response
        .writeHead(next.status, { 'content-type': 'application/json', ...next.headers })
        .end(next.body ?? '{"error":{"message":"scripted failure"}}');
    } else
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(next)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    pending: () => queue.length,
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function completion(reply: Extract<ScriptedReply, { kind: 'reply' }>): Record<string, unknown> {
  const toolCalls = reply.toolCalls?.map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  const message = {
    role: 'assistant',
    content: reply.content === undefined ? '' : reply.content,
    ...(toolCalls === undefined ? {} : { tool_calls: toolCalls }),
  };
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    choices: [{ index: 0, message, finish_reason: reply.finishReason ?? 'stop' }],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  };
}
