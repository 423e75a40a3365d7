import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PG_AVAILABLE, PG_URL, pgQuery } from '../../test/helpers/pg-test-server.js';
import type { CompactionRecord } from '../core/compaction-record.js';
import { ContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import { sessionView } from '../core/session-view.js';
import { JsonlSessionStore } from '../sessions/jsonl-session-store.js';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import { PostgresSessionStore } from '../sessions/postgres-session-store.js';
import { loadReplayedSession } from '../sessions/replay-session.js';
import { sessionCompactions } from '../sessions/session-compactions.js';
import type { SessionStore } from '../sessions/session-store.js';
import { SqliteSessionStore } from '../sessions/sqlite-session-store.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { appendCompaction } from './append-compaction.js';

const dirs: string[] = [];
const schemas: string[] = [];
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const schema of schemas) await pgQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctxloom-compactions-'));
  dirs.push(dir);
  return dir;
}

/** Two stores over the same sessions, as two agent servers (or processes) would open them. */
type Backend = { readonly name: string; readonly open: () => () => SessionStore };
const backends: Backend[] = [
  {
    name: 'memory',
    open: () => {
      const store = new MemorySessionStore();
      return () => store;
    },
  },
  {
    name: 'jsonl',
    open: () => {
      const dir = tempDir();
      return () => new JsonlSessionStore({ dir });
    },
  },
  {
    name: 'sqlite',
    open: () => {
      const file = path.join(tempDir(), 'sessions.db');
      return () => new SqliteSessionStore({ path: file });
    },
  },
  ...(PG_AVAILABLE
    ? [
        {
          name: 'postgres',
          open: () => {
            const schema = `ctxloom_cmp_${process.pid}_${schemas.length}`;
            schemas.push(schema);
            return () => new PostgresSessionStore({ connectionString: PG_URL, schema });
          },
        },
      ]
    : []),
];

const history: readonly Message[] = [
  { id: 'u1', role: 'user', content: 'first' },
  { id: 'a1', role: 'assistant', content: 'one' },
  { id: 'u2', role: 'user', content: 'second' },
  { id: 'a2', role: 'assistant', content: 'two' },
  { id: 'u3', role: 'user', content: 'third' },
];

function record(id: string, replaces: readonly string[]): CompactionRecord {
  return {
    id,
    kind: 'summary',
    replaces,
    summary: { id: `${id}-summary`, role: 'user', content: `summary ${id}` },
    depth: 1,
    parents: [],
    producer: { strategy: 'test', model: 'scripted:faithful' },
    tokensBefore: 20,
    tokensAfter: 5,
    trigger: 'background',
    createdAt: '2026-12-07T10:00:00.000Z',
  };
}

describe.each(backends)('appendCompaction ($name)', ({ open }) => {
  it('stores records beside the messages, never touching them, and a new store instance sees the view', async () => {
    const make = open();
    const writer = make();
    await writer.append('s', history);
    await appendCompaction(writer, { sessionKey: 's', record: record('r1', ['u1', 'a1']) });
    await writer.close();
    const reader = make();
    const loaded = await reader.load('s');
    expect(loaded.messages.map((message) => message.id)).toEqual(history.map((message) => message.id));
    const records = sessionCompactions(loaded);
    expect(records).toEqual([record('r1', ['u1', 'a1'])]);
    expect(sessionView(loaded.messages, records).map((message) => message.id)).toEqual([
      'r1-summary',
      'u2',
      'a2',
      'u3',
    ]);
    const replay = await loadReplayedSession(reader, {
      sessionKey: 's',
      tokenCounter: new SimpleTokenCounter(),
      contextWindowTokens: 128_000,
      maxOutputTokens: 8_000,
    });
    expect(replay.history.map((message) => message.id)).toEqual(['r1-summary', 'u2', 'a2', 'u3']);
    await reader.close();
  });

  it('lets only one of two writers store a record for the same span; the other gets STORE_CONFLICT', async () => {
    const make = open();
    const first = make();
    const second = make();
    await first.append('s', history);
    const results = await Promise.allSettled([
      appendCompaction(first, { sessionKey: 's', record: record('r-a', ['u1', 'a1', 'u2']) }),
      appendCompaction(second, { sessionKey: 's', record: record('r-b', ['u1', 'a1']) }),
    ]);
    const rejected = results.filter((result) => result.status === 'rejected');
    expect(rejected).toHaveLength(1);
    const reason = (rejected[0] as PromiseRejectedResult).reason;
    expect(ContextError.isInstance(reason) && reason.code).toBe('STORE_CONFLICT');
    expect(sessionCompactions(await first.load('s'))).toHaveLength(1);
    await first.close();
    await second.close();
  });

  it('refuses a record whose run is not in the session and one for a session that does not exist', async () => {
    const store = open()();
    await store.append('s', history);
    await expect(
      appendCompaction(store, { sessionKey: 's', record: record('r1', ['u1', 'u2']) }),
    ).rejects.toMatchObject({
      code: 'STORE_CONFLICT',
    });
    await expect(
      appendCompaction(store, { sessionKey: 'none', record: record('r1', ['u1']) }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect(sessionCompactions(await store.load('s'))).toEqual([]);
    await store.close();
  });
});

describe('sessionCompactions', () => {
  it("expresses nanobot's consolidation cursor as the first record: archived messages leave the view", () => {
    const session = {
      key: 's',
      messages: history,
      metadata: {},
      lastConsolidated: 2,
      exists: true,
      warnings: [],
    };
    const records = sessionCompactions(session);
    expect(records[0]).toMatchObject({ kind: 'consolidation', replaces: ['u1', 'a1'] });
    expect(sessionView(history, records).map((message) => message.id)).toEqual(['u2', 'a2', 'u3']);
  });
});
