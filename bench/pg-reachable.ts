/** The PostgreSQL the benchmarks use when it answers (`CTXLOOM_TEST_PG_URL`, else the local `test` database). */
import pg from 'pg';

export const PG_URL = process.env['CTXLOOM_TEST_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** True when PostgreSQL accepts a connection at {@link PG_URL} within 2 s. */
export async function pgReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}
