import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of {@link startScriptedOpenAIServer}. */
export type ScriptedReply =
  | {
      readonly kind: 'reply';
      readonly content?: string | null;
      /** `null` sends `finish_reason: null` (no finish reason). @default 'stop' */
      readonly finishReason?: string | null;
      readonly toolCalls?: readonly { id: string; name: string; arguments: string }[];
      /** Sent as `message.reasoning_content` (DeepSeek, vLLM reasoning parsers). */
      readonly reasoning?: string;
    }
  | {
      readonly kind: 'status';
      readonly status: number;
      readonly body?: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** Never answers (until the client gives up or the server closes). */
  | { readonly kind: 'hang' }
  /** Destroys the connection without answering (a reset). */
  | { readonly kind: 'reset' }
  /** Answers 200 with the first half of a completion's JSON, then ends the body. */
  | { readonly kind: 'truncated'; readonly content?: string }
  /** Answers 200 with this body as it is (e.g. an HTML page from a wrong URL). */
  | { readonly kind: 'body'; readonly body: string; readonly contentType?: string };

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
    else answer(next, response);
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

function answer(next: Exclude<ScriptedReply, { kind: 'hang' }>, response: ServerResponse): void {
  const json = { 'content-type': 'application/json' };
  switch (next.kind) {
    case 'reset':
      response.socket?.destroy();
      return;
    case 'status':
      response
        .writeHead(next.status, { ...json, ...next.headers })
        .end(next.body ?? '{"error":{"message":"scripted failure"}}');
      return;
    case 'truncated': {
      const full = JSON.stringify(completion({ kind: 'reply', content: next.content ?? 'a summary' }));
      response.writeHead(200, json).end(full.slice(0, Math.floor(full.length / 2)));
      return;
    }
    case 'body':
      response.writeHead(200, { 'content-type': next.contentType ?? 'text/html' }).end(next.body);
      return;
    case 'reply':
      response.writeHead(200, json).end(JSON.stringify(completion(next)));
  }
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
    ...(reply.reasoning === undefined ? {} : { reasoning_content: reply.reasoning }),
  };
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    choices: [
      { index: 0, message, finish_reason: reply.finishReason === undefined ? 'stop' : reply.finishReason },
    ],
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  };
}

/** The base URL of a port on 127.0.0.1 where nothing listens (a server started and closed again). */
export async function closedServerURL(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}
