import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a scripted server received. */
export type ScriptedRequest = {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
};

/** A running scripted server. */
export type ScriptedServer = {
  /** Its origin, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: readonly ScriptedRequest[];
  /** Stops it. */
  close(): Promise<void>;
};

/** What a handler answers: a JSON body, or (with `events`) a server-sent event stream. */
export type ScriptedReply = {
  readonly status: number;
  readonly body: unknown;
  readonly events?: readonly { readonly event: string; readonly data: unknown }[];
};

/** Starts a local HTTP server on 127.0.0.1 (a free port) that answers JSON requests with `handle`. */
export async function startScriptedJsonServer(
  handle: (request: ScriptedRequest) => ScriptedReply,
): Promise<ScriptedServer> {
  const requests: ScriptedRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let reply: ScriptedReply;
      try {
        const request: ScriptedRequest = {
          method: incoming.method ?? 'GET',
          path: incoming.url ?? '/',
          headers: incoming.headers,
          body: text === '' ? undefined : JSON.parse(text),
        };
        requests.push(request);
        reply = handle(request);
      } catch (error) {
        reply = { status: 400, body: { error: { message: `unreadable request: ${String(error)}` } } };
      }
      const headers = { 'request-id': `req_${requests.length}` };
      if (reply.events === undefined) {
        outgoing.writeHead(reply.status, { ...headers, 'content-type': 'application/json' });
        outgoing.end(JSON.stringify(reply.body));
        return;
      }
      outgoing.writeHead(reply.status, { ...headers, 'content-type': 'text/event-stream' });
      outgoing.end(
        reply.events.map(({ event, data }) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join(''),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}

/** HMAC-SHA256 of `text` under `secret`, base64url: the scripted servers' signatures. */
export function hmac(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('base64url');
}

/** The text of a message's content (string, or the `text` of its blocks / parts), joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: unknown) => {
      if (typeof block !== 'object' || block === null) return '';
      const record = block as Record<string, unknown>;
      if (typeof record['text'] === 'string') return record['text'];
      if (typeof record['content'] === 'string') return record['content'];
      return contentText(record['content']);
    })
    .filter((text) => text !== '')
    .join('\n');
}
