import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect } from 'vitest';
import { newestMessages } from '../../test/helpers/newest-messages.js';
import { describeWithPostgres, PG_URL, pgClient, pgQuery } from '../../test/helpers/pg-test-server.js';
import { assistant, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import type { SessionRecord, SessionStore } from './session-store.js';
import { openSqliteDatabase } from './sqlite-driver.js';
import { SqliteSessionStore } from './sqlite-session-store.js';

/**
 * The SQL stores read only the rows appended since their last load (`SessionRowReads`). Property:
 * whatever another writer does between two loads (appends, rewrites, deletes, metadata, and changes
 * made with plain SQL behind the stores' backs), a store that keeps its reads loads exactly what a
 * store that reads every row loads, all its messages or the newest few (`lastMessages`); and what it
 * kept comes back as the same objects.
 */

type Step =
  | { readonly kind: 'append'; readonly count: number }
  | { readonly kind: 'rewrite'; readonly drop: number }
  | { readonly kind: 'recreate'; readonly count: number }
  | { readonly kind: 'metadata' }
  | { readonly kind: 'sql-edit'; readonly at: number }
  | { readonly kind: 'sql-delete-last' }
  | { readonly kind: 'sql-truncate'; readonly count: number }
  | { readonly kind: 'none' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('append' as const), count: fc.integer({ min: 1, max: 3 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rewrite' as const), drop: fc.nat({ max: 2 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('recreate' as const), count: fc.integer({ min: 0, max: 6 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'metadata' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sql-edit' as const), at: fc.nat({ max: 8 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'sql-delete-last' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('sql-truncate' as const),
      count: fc.integer({ min: 0, max: 6 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
);

type Backend = {
  /** Opens a store on the shared database; `cached: false` reads every row on every load. */
  readonly open: (cached: boolean) => SessionStore;
  /** Runs plain SQL on the shared database (`?` placeholders), as another program would. */
  readonly sql: (statement: string, values: readonly unknown[]) => Promise<void>;
  readonly table: (name: 'sessions' | 'messages') => string;
  /** Empties the messages table the fastest way the database has (PostgreSQL's TRUNCATE fires no row trigger). */
  readonly truncate: string;
};

let made = 0;
/** A number never used before in this run (ids and texts of new messages). */
function next(): number {
  made += 1;
  return made;
}
const messageOf = (n: number): Message =>
  n % 2 === 0 ? user(`question ${n}`, { id: `m${n}` }) : assistant(`answer ${n}`, { id: `m${n}` });

async function apply(writer: SessionStore, backend: Backend, change: Step): Promise<void> {
  const key = 'chat';
  switch (change.kind) {
    case 'append':
      await writer.append(
        key,
        Array.from({ length: change.count }, () => messageOf(next())),
      );
      return;
    case 'rewrite': {
      const { messages } = await writer.load(key);
      await writer.rewrite(key, { messages: messages.slice(change.drop) });
      return;
    }
    case 'recreate': {
      await writer.delete(key);
      if (change.count > 0)
        await writer.append(
          key,
          Array.from({ length: change.count }, (_, index) => messageOf(index)),
        );
      return;
    }
    case 'metadata':
      await writer.setMetadata(key, { title: `t${next()}` });
      return;
    case 'sql-edit':
      await backend.sql(
        `UPDATE ${backend.table('messages')} SET data = ? WHERE session_key = ? AND seq = ?`,
        [JSON.stringify(user('edited', { id: `e${next()}` })), key, change.at],
      );
      return;
    case 'sql-delete-last':
      await backend.sql(
        `DELETE FROM ${backend.table('messages')} WHERE session_key = ? AND seq = (SELECT MAX(seq) FROM ${backend.table('messages')} WHERE session_key = ?)`,
        [key, key],
      );
      await backend.sql(
        `UPDATE ${backend.table('sessions')} SET message_count = (SELECT COUNT(*) FROM ${backend.table('messages')} WHERE session_key = ?) WHERE key = ?`,
        [key, key],
      );
      return;
    case 'sql-truncate':
      await backend.sql(backend.truncate, []);
      await backend.sql(`UPDATE ${backend.table('sessions')} SET message_count = 0`, []);
      // Refilled before the next load: only the rows themselves can tell the old ones are gone.
      if (change.count > 0)
        await writer.append(
          key,
          Array.from({ length: change.count }, () => messageOf(next())),
        );
      return;
    case 'none':
      return;
    default:
      return change satisfies never;
  }
}

/** A step, and how many of the newest messages the next loads ask for (`undefined`: all). */
type Turn = readonly [Step, number | undefined];

const turn: fc.Arbitrary<Turn> = fc.tuple(step, fc.option(fc.nat({ max: 7 }), { nil: undefined }));

function agreesOverSteps(
  backend: () => Promise<Backend & { readonly close: () => Promise<void> }>,
  numRuns: number,
) {
  // The example: the one kept row replaced behind the triggers (PostgreSQL's TRUNCATE), then refilled.
  const kept: Turn[] = [
    [{ kind: 'append', count: 1 }, undefined],
    [{ kind: 'sql-truncate', count: 1 }, undefined],
  ];
  test.prop([fc.array(turn, { minLength: 1, maxLength: 14 })], { numRuns, examples: [[kept]] })(
    'a store that keeps its reads loads what a store reading every row loads (all or the newest), old messages as the same objects',
    async (turns) => {
      const db = await backend();
      const writer = db.open(false);
      const cached = db.open(true);
      const whole = db.open(false);
      try {
        let last: SessionRecord | undefined;
        for (const [change, lastMessages] of turns) {
          await apply(writer, db, change);
          last = await expectSameLoads({ cached, whole }, { change, lastMessages, last });
        }
      } finally {
        await writer.close();
        await cached.close();
        await whole.close();
        await db.close();
      }
    },
  );
}

/**
 * Loads the session with both stores (all, or the newest `lastMessages`) and checks they agree with a
 * store reading every row, and that the cached one kept its old messages as the same objects.
 */
async function expectSameLoads(
  stores: { readonly cached: SessionStore; readonly whole: SessionStore },
  run: {
    readonly change: Step;
    readonly lastMessages: number | undefined;
    readonly last: SessionRecord | undefined;
  },
): Promise<SessionRecord> {
  const { change, lastMessages, last } = run;
  const options = lastMessages === undefined ? {} : { lastMessages };
  const record = await stores.cached.load('chat', options);
  const expected = newestMessages(await stores.whole.load('chat'), lastMessages);
  expect(record).toEqual(expected);
  expect(await stores.whole.load('chat', options)).toEqual(expected);
  const wholeLoads = lastMessages === undefined && last?.firstIndex === undefined;
  if (change.kind === 'none' && last?.exists === true && wholeLoads) expect(record).toBe(last);
  // A load reaching further back than the last one reads the older rows anew.
  if (change.kind === 'append' && last !== undefined && (record.firstIndex ?? 0) >= (last.firstIndex ?? 0))
    expectSameObjects(last, record);
  return record;
}

/** The messages both records hold (by position in the session) are the same objects. */
function expectSameObjects(before: SessionRecord, after: SessionRecord): void {
  const from = Math.max(before.firstIndex ?? 0, after.firstIndex ?? 0);
  const to = (before.firstIndex ?? 0) + before.messages.length;
  for (let index = from; index < to; index += 1)
    expect(after.messages[index - (after.firstIndex ?? 0)]).toBe(
      before.messages[index - (before.firstIndex ?? 0)],
    );
}

describe('SqliteSessionStore reads', () => {
  agreesOverSteps(async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-sql-reads-'));
    const file = path.join(dir, 'db.sqlite');
    const open = (cached: boolean) =>
      new SqliteSessionStore({ path: file, ...(cached ? {} : { cachedSessionChars: 0 }) });
    await open(false).load('chat'); // creates the schema
    const raw = await openSqliteDatabase({ path: file, driver: 'auto' });
    return {
      open,
      table: (name) => `ctxloom_${name}`,
      truncate: 'DELETE FROM ctxloom_messages',
      sql: async (statement, values) => {
        raw.db.prepare(statement).run(...(values as (string | number)[]));
      },
      close: async () => {
        raw.db.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }, 60);
});

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await pgQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
});

describeWithPostgres('PostgresSessionStore reads', () => {
  agreesOverSteps(async () => {
    const schema = `ctxloom_reads_${process.pid}_${schemas.length}`;
    schemas.push(schema);
    const open = (cached: boolean) =>
      new PostgresSessionStore({
        connectionString: PG_URL,
        schema,
        ...(cached ? {} : { cachedSessionChars: 0 }),
      });
    await open(false).load('chat');
    return {
      open,
      table: (name) => `"${schema}"."ctxloom_${name}"`,
      truncate: `TRUNCATE "${schema}"."ctxloom_messages"`,
      sql: async (statement, values) => {
        const client = pgClient();
        await client.connect();
        try {
          await client.query(numberedPlaceholders(statement), [...values]);
        } finally {
          await client.end();
        }
      },
      close: async () => undefined,
    };
  }, 15);
});

/** `?` placeholders as PostgreSQL's `$1`, `$2`, … */
function numberedPlaceholders(statement: string): string {
  const parts = statement.split('?');
  return parts.map((part, index) => (index === 0 ? part : `$${index}${part}`)).join('');
}
