import type pg from 'pg';

/** Options for {@link PostgresNotifier}. */
export type PostgresNotifierOptions = {
  /** The store's pool (the notifier takes one dedicated connection from it). */
  readonly pool: () => Promise<pg.Pool>;
  /** The channel to LISTEN on. */
  readonly channel: string;
  /** Called with each notification's payload, one at a time in arrival order. */
  readonly onNotification: (payload: string) => Promise<void>;
  /** Wait before re-listening after the connection was lost. @default 500 */
  readonly reconnectDelayMs?: number;
};

/**
 * Holds one connection that LISTENs on a channel and forwards each notification's payload, in order.
 * When the connection is lost (server restart, terminated backend) it listens again on a new one;
 * notifications sent while it was away are not replayed (the store stays the source of truth).
 */
export class PostgresNotifier {
  readonly #options: PostgresNotifierOptions;
  #current: Promise<pg.PoolClient>;
  #chain: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: PostgresNotifierOptions) {
    this.#options = options;
    this.#current = this.#listen();
    this.#current.catch(() => undefined);
  }

  /** Resolves when LISTEN is active on the current connection. */
  async ready(): Promise<void> {
    await this.#current;
  }

  /** The server process id of the listening connection (for diagnostics and tests). */
  async backendPid(): Promise<number | undefined> {
    const client = await this.#current;
    // pg exposes the backend pid on the client, not in its typings for PoolClient.
    const pid: unknown = Reflect.get(client, 'processID');
    return typeof pid === 'number' ? pid : undefined;
  }

  /** Stops listening and returns the connection. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = await this.#current.catch(() => undefined);
    if (client !== undefined) {
      await client.query(`UNLISTEN "${this.#options.channel}"`).catch(() => undefined);
      client.removeAllListeners('notification');
      client.release();
    }
    await this.#chain;
  }

  async #listen(): Promise<pg.PoolClient> {
    const client = await (await this.#options.pool()).connect();
    let lost = false;
    const onLost = (): void => {
      if (lost || this.#closed) return;
      lost = true;
      client.release(true);
      if (!this.#closed) this.#current = this.#relisten();
    };
    client.on('error', onLost);
    client.on('end', onLost);
    client.on('notification', (message) => {
      if (this.#closed || message.payload === undefined) return;
      const payload = message.payload;
      this.#chain = this.#chain.then(() => this.#options.onNotification(payload)).catch(() => undefined);
    });
    await client.query(`LISTEN "${this.#options.channel}"`);
    return client;
  }

  async #relisten(): Promise<pg.PoolClient> {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, this.#options.reconnectDelayMs ?? 500));
      if (this.#closed) throw new Error('notifier closed');
      try {
        return await this.#listen();
      } catch {
        // the server is still away; try again after the delay
      }
    }
  }
}
