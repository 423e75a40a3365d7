import { afterAll, describe, expect, it } from 'vitest';
import { describeWithPostgres, PG_URL, pgClient, pgQuery } from '../../test/helpers/pg-test-server.js';
import { user } from '../core/factories.js';
import { describeSessionStoreContract } from '../testing/contracts/session-store-contract.js';
import { MessageStore } from './message-store.js';
import { PostgresSessionStore } from './postgres-session-store.js';
import type { MessageEvent } from './session-store.js';

const runId = `t${process.pid}_${Math.floor(performance.now())}`;
let counter = 0;
const schemas: string[] = [];

function freshSchema(): string {
  counter += 1;
  const schema = `ctxloom_${runId}_${counter}`;
  schemas.push(schema);
  return schema;
}

afterAll(async () => {
  for (const schema of schemas) await pgQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
});

describeWithPostgres('PostgreSQL', () => {
  describeSessionStoreContract({
    name: 'postgres',
    repetitions: 2,
    create: ({ now }) => new PostgresSessionStore({ connectionString: PG_URL, schema: freshSchema(), now }),
  });

  describe('PostgresSessionStore', () => {
    it('delivers events to subscribers of another store instance (LISTEN/NOTIFY)', async () => {
      const schema = freshSchema();
      const writer = new PostgresSessionStore({ connectionString: PG_URL, schema });
      const reader = new PostgresSessionStore({ connectionString: PG_URL, schema });
      const events: MessageEvent[] = [];
      reader.subscribe((event) => events.push(event));
      await reader.ready();
      await writer.append('shared', [user('hello', { id: 'm1' }), user('again', { id: 'm2' })]);
      for (let tries = 0; tries < 200 && events.length < 2; tries += 1)
        await new Promise((r) => setTimeout(r, 10));
      expect(events.map((event) => [event.sessionKey, event.message.id, event.message.content])).toEqual([
        ['shared', 'm1', 'hello'],
        ['shared', 'm2', 'again'],
      ]);
      await writer.close();
      await reader.close();
    });

    it('delivers MessageStore events across store instances, filtered by session', async () => {
      const schema = freshSchema();
      const writerStore = new PostgresSessionStore({ connectionString: PG_URL, schema });
      const readerStore = new PostgresSessionStore({ connectionString: PG_URL, schema });
      const reader = new MessageStore({ store: readerStore, sessionKey: 'room' });
      const seen: string[] = [];
      reader.subscribe((event) => seen.push(event.message.id));
      await readerStore.ready();
      await new MessageStore({ store: writerStore, sessionKey: 'other' }).append(
        user('not mine', { id: 'x' }),
      );
      await new MessageStore({ store: writerStore, sessionKey: 'room' }).append([
        user('a', { id: 'r1' }),
        user('b', { id: 'r2' }),
      ]);
      for (let tries = 0; tries < 200 && seen.length < 2; tries += 1)
        await new Promise((r) => setTimeout(r, 10));
      expect(seen).toEqual(['r1', 'r2']);
      await writerStore.close();
      await readerStore.close();
    });

    it('rejects a session key with a NUL character (PostgreSQL text cannot hold it)', async () => {
      const store = new PostgresSessionStore({ connectionString: PG_URL, schema: freshSchema() });
      await expect(store.append('a\u0000b', [user('x')])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await store.close();
    });

    it('listens again after its connection is terminated', async () => {
      const schema = freshSchema();
      const writer = new PostgresSessionStore({ connectionString: PG_URL, schema });
      const reader = new PostgresSessionStore({ connectionString: PG_URL, schema });
      const seen: string[] = [];
      reader.subscribe((event) => seen.push(event.message.id));
      await reader.ready();
      const pid = await reader.listenerPid();
      const admin = pgClient();
      await admin.connect();
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await admin.end();
      for (let tries = 0; tries < 300 && (await reader.listenerPid()) === pid; tries += 1) {
        await new Promise((r) => setTimeout(r, 10));
      }
      await reader.ready();
      expect(await reader.listenerPid()).not.toBe(pid);
      await writer.append('s', [user('after reconnect', { id: 'z' })]);
      for (let tries = 0; tries < 300 && seen.length < 1; tries += 1)
        await new Promise((r) => setTimeout(r, 10));
      expect(seen).toEqual(['z']);
      await writer.close();
      await reader.close();
    });

    it('rejects a schema that is not a plain identifier', () => {
      expect(() => new PostgresSessionStore({ connectionString: PG_URL, schema: 'x"; drop' })).toThrow(
        /plain identifier/,
      );
    });

    it('reports an unreachable server as STORE_UNAVAILABLE', async () => {
      const store = new PostgresSessionStore({ connectionString: 'postgres://postgres@127.0.0.1:1/none' });
      await expect(store.load('k')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await store.close();
    });
  });
});
