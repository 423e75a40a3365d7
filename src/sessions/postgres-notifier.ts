import type pg from 'pg';

/** Options for {@link PostgresNotifier}. */
export type PostgresNotifierOptions = {
  /** The store's pool (the notifier takes one dedicated connection from it). */
  readonly pool: () => Promise<pg.Pool>;
  /** Kept for diagnostics. */
  readonly connectionString: string;
  /** The channel to LISTEN on. */
  readonly channel: string;
  /** Called with each notification's payload; errors are swallowed into a rejected promise the caller owns. */
  readonly onNotification: (payload: string) => Promise<void>;
};

/**
 * Holds one connection that LISTENs on a channel and forwards each notification's payload, in order.
 * Used by `PostgresSessionStore` to deliver events from other processes.
 */
export class PostgresNotifier {
  readonly #options: PostgresNotifierOptions;
  readonly #ready: Promise<pg.PoolClient | undefined>;
  #chain: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: PostgresNotifierOptions) {
    this.#options = options;
    this.#ready = this.#start();
    this.#ready.catch(() => undefined);
  }

  /** Resolves when LISTEN is active. */
  async ready(): Promise<void> {
    await this.#ready;
  }

  /** Stops listening and returns the connection. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = await this.#ready.catch(() => undefined);
    if (client === undefined) return;
    await client.query(`UNLISTEN "${this.#options.channel}"`).catch(() => undefined);
    client.release();
    await this.#chain;
  }

  async #start(): Promise<pg.PoolClient | undefined> {
    const client = await (await this.#options.pool()).connect();
    client.on('notification', (message) => {
      if (this.#closed || message.payload === undefined) return;
      const payload = message.payload;
      this.#chain = this.#chain.then(() => this.#options.onNotification(payload)).catch(() => undefined);
    });
    await client.query(`LISTEN "${this.#options.channel}"`);
    return client;
  }
}
