import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { Message } from '../core/message.js';
import { messageArbitrary } from '../testing/arbitraries.js';
import { JsonlSessionStore } from './jsonl-session-store.js';
import { MemorySessionStore } from './memory-session-store.js';
import type { SessionStore } from './session-store.js';
import { SqliteSessionStore } from './sqlite-session-store.js';

type Operation =
  | { readonly kind: 'append'; readonly key: string; readonly messages: readonly Message[] }
  | { readonly kind: 'metadata'; readonly key: string; readonly patch: Record<string, unknown> }
  | { readonly kind: 'pointer'; readonly key: string; readonly value: number }
  | { readonly kind: 'rewrite'; readonly key: string; readonly drop: number }
  | { readonly kind: 'delete'; readonly key: string };

const key = fc.constantFrom('a', 'b:1', '../c');
const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      key,
      messages: fc.array(messageArbitrary(), { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('metadata' as const),
      key,
      patch: fc.dictionary(fc.constantFrom('title', '_last_summary', 'x'), fc.jsonValue(), { maxKeys: 2 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('pointer' as const),
      key,
      value: fc.integer({ min: -2, max: 12 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('rewrite' as const), key, drop: fc.nat({ max: 3 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), key }) },
);

async function apply(store: SessionStore, op: Operation): Promise<void> {
  switch (op.kind) {
    case 'append':
      return store.append(op.key, op.messages);
    case 'metadata':
      return store.setMetadata(op.key, op.patch);
    case 'pointer':
      return store.setLastConsolidated(op.key, op.value);
    case 'rewrite': {
      const { messages } = await store.load(op.key);
      return store.rewrite(op.key, { messages: messages.slice(op.drop) });
    }
    case 'delete':
      await store.delete(op.key);
      return;
    default:
      return op satisfies never;
  }
}

/** What must agree across backends: messages (JSON round trip), metadata, pointer, existence. */
async function snapshot(store: SessionStore): Promise<unknown> {
  const keys = (await store.list()).map((entry) => entry.key).sort();
  const sessions = [];
  for (const name of keys) {
    const record = await store.load(name);
    sessions.push({
      name,
      messages: JSON.parse(JSON.stringify(record.messages.map(withoutTimestamp))),
      metadata: JSON.parse(JSON.stringify(record.metadata)),
      lastConsolidated: record.lastConsolidated,
    });
  }
  return sessions;
}

function withoutTimestamp(message: Message): Message {
  const { timestamp: _timestamp, ...metadata } = message.metadata ?? {};
  const { metadata: _metadata, ...rest } = message;
  return Object.keys(metadata).length > 0 ? { ...rest, metadata } : rest;
}

describe.each([
  ['jsonl', (dir: string) => new JsonlSessionStore({ dir: path.join(dir, 'sessions') })],
  ['sqlite', (dir: string) => new SqliteSessionStore({ path: path.join(dir, 'db.sqlite') })],
] as const)('%s store against the in-memory model', (_name, open) => {
  test.prop([fc.array(operation, { maxLength: 12 })], { numRuns: 25 })(
    'agrees with MemorySessionStore after any operation sequence',
    async (operations) => {
      const dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-model-'));
      const model = new MemorySessionStore();
      const store = open(dir);
      try {
        for (const op of operations) {
          await apply(model, op);
          await apply(store, op);
        }
        expect(await snapshot(store)).toEqual(await snapshot(model));
        const reopened = open(dir);
        expect(await snapshot(reopened)).toEqual(await snapshot(model));
        await reopened.close();
      } finally {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
