import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { ContextError } from '../index.js';
import { createInspectorApp } from './inspector-app.js';
import type { SessionInspector } from './session-inspector.js';

/** Options for {@link startInspectorServer}. */
export type StartInspectorServerOptions = {
  /** Lists and inspects the sessions. */
  readonly inspector: SessionInspector;
  /** The address to bind; anything but loopback exposes the sessions. @default '127.0.0.1' */
  readonly host?: string;
  /** The TCP port; 0 picks a free one. @default 4319 */
  readonly port?: number;
};

/** Defaults of {@link StartInspectorServerOptions}. */
export const DEFAULT_INSPECTOR_SERVER = Object.freeze({ host: '127.0.0.1', port: 4319 });

/** A running inspector server. */
export type InspectorServer = {
  /** The page's address, e.g. `http://127.0.0.1:4319/`. */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections and resolves when the server has closed. */
  close(): Promise<void>;
};

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * Starts the read-only inspector ({@link createInspectorApp}) on `host:port` with Node's HTTP server.
 * On a loopback host the app also refuses requests whose `Host` header is not loopback.
 * @throws ContextError `INVALID_OPTIONS` when the port is out of range or cannot be bound (in use, no permission).
 */
export function startInspectorServer(options: StartInspectorServerOptions): Promise<InspectorServer> {
  const host = options.host ?? DEFAULT_INSPECTOR_SERVER.host;
  const port = options.port ?? DEFAULT_INSPECTOR_SERVER.port;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `The port must be a whole number 0–65535, got ${port}.`,
    });
  }
  const app = createInspectorApp({ inspector: options.inspector, isLoopbackOnly: LOOPBACK.has(host) });
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }, (info: AddressInfo) => {
      const shown = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shown}:${info.port}/`,
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            if ('closeAllConnections' in server) server.closeAllConnections();
          }),
      });
    });
    server.once('error', (error: unknown) => {
      const code = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
      reject(
        new ContextError({
          code: 'INVALID_OPTIONS',
          message: `Cannot listen on ${host}:${port} (${String(code ?? error)}); pick another --port or --host.`,
          cause: error,
        }),
      );
    });
  });
}
