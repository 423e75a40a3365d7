import pg from 'pg';
import { describe, it } from 'vitest';

/** The PostgreSQL the tests use: `CTXLOOM_TEST_PG_URL`, else the local `test` database. */
export const PG_URL = process.env['CTXLOOM_TEST_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** How long a test waits for PostgreSQL to accept a connection before it counts as absent. */
export const PG_CONNECT_TIMEOUT_MS = 3_000;

/** True on a CI runner, where a missing PostgreSQL is a failure, not a skip. */
const IN_CI = (process.env['CI'] ?? '') !== '' && process.env['CI'] !== 'false';

/** Why PostgreSQL tests cannot run here, or undefined when the server answered. */
export const PG_UNAVAILABLE: string | undefined = await probe();

/** True when PostgreSQL answered at {@link PG_URL}. */
export const PG_AVAILABLE = PG_UNAVAILABLE === undefined;

/** The one message of a skipped or failed PostgreSQL test. */
export const PG_MESSAGE =
  PG_UNAVAILABLE === undefined
    ? ''
    : `PostgreSQL at ${PG_URL} does not answer (${PG_UNAVAILABLE}); start it or set CTXLOOM_TEST_PG_URL${IN_CI ? ' (CI is set, so this fails)' : '. Skipped because CI is unset'}`;

if (PG_UNAVAILABLE !== undefined && !IN_CI)
  process.stderr.write(`skipping PostgreSQL tests: ${PG_MESSAGE}\n`);

/** A client with a short connect timeout, so no test hangs on a missing server. */
export function pgClient(): pg.Client {
  return new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS });
}

/** Runs `query` on a fresh client (for cleanup); does nothing when PostgreSQL is absent. */
export async function pgQuery(query: string): Promise<void> {
  if (!PG_AVAILABLE) return;
  const client = pgClient();
  await client.connect();
  try {
    await client.query(query);
  } finally {
    await client.end();
  }
}

/**
 * `describe` for a suite that needs PostgreSQL: it runs when the server answers; without one it is
 * skipped with {@link PG_MESSAGE} in its name, unless `CI` is set, where it fails with that message.
 */
export function describeWithPostgres(name: string, suite: () => void): void {
  if (PG_AVAILABLE) describe(name, suite);
  else if (IN_CI)
    describe(name, () => {
      it('needs PostgreSQL', () => {
        throw new Error(PG_MESSAGE);
      });
    });
  else describe.skip(`${name} (${PG_MESSAGE})`, suite);
}

/**
 * For one case of a test that also runs on other stores (`it.for`): returns when PostgreSQL
 * answers, else skips the case with {@link PG_MESSAGE} (throws it when `CI` is set).
 */
export function requirePostgres(context: { readonly skip: (note?: string) => never | void }): void {
  if (PG_AVAILABLE) return;
  if (IN_CI) throw new Error(PG_MESSAGE);
  context.skip(PG_MESSAGE);
}

async function probe(): Promise<string | undefined> {
  const client = pgClient();
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    const code = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
    return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}
