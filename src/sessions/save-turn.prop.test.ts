import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { assistant, tool, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { MemorySessionStore } from './memory-session-store.js';
import { saveTurn } from './save-turn.js';
import type { SessionStore } from './session-store.js';

/**
 * saveTurn keeps the call ids of the last session it saved to, per store, and reads only the stored
 * messages after those it already knows (`storedCallIds`). Property: over random turns, rewrites
 * (messages dropped, or one replaced while the others stay the same objects) and switches between
 * sessions, it saves and decides exactly what a saveTurn that reads the whole session every time does.
 */

const IDS = ['c1', 'c2', 'c3', 'c4'];

const runMessage: fc.Arbitrary<Message> = fc.oneof(
  fc.constant(user('hi')),
  fc.constant(assistant('')),
  fc.constantFrom(...IDS).map((id) => assistant('', { toolCalls: [{ id, name: 'f', arguments: '{}' }] })),
  fc.constantFrom(...IDS, '').map((id) => tool(`result ${id}`, { toolCallId: id })),
  fc.constant(assistant('done')),
);

type Step =
  | { readonly kind: 'turn'; readonly key: 'a' | 'b'; readonly messages: readonly Message[] }
  | { readonly kind: 'drop-first'; readonly key: 'a' | 'b' }
  | { readonly kind: 'replace'; readonly key: 'a' | 'b'; readonly at: number; readonly with: Message };

const key = fc.constantFrom('a' as const, 'b' as const);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('turn' as const),
      key,
      messages: fc.array(runMessage, { maxLength: 5 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop-first' as const), key }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      key,
      at: fc.nat({ max: 12 }),
      with: runMessage,
    }),
  },
);

/** The same store behind a new object: saveTurn knows nothing about it, so it reads every message. */
function fresh(store: SessionStore): SessionStore {
  return {
    specificationVersion: 'v1',
    id: store.id,
    append: (sessionKey, messages, options) => store.append(sessionKey, messages, options),
    load: (sessionKey, options) => store.load(sessionKey, options),
    setMetadata: (sessionKey, patch, options) => store.setMetadata(sessionKey, patch, options),
    setLastConsolidated: (sessionKey, value, options) =>
      store.setLastConsolidated(sessionKey, value, options),
    rewrite: (sessionKey, rewrite, options) => store.rewrite(sessionKey, rewrite, options),
    delete: (sessionKey, options) => store.delete(sessionKey, options),
    list: (options) => store.list(options),
    subscribe: (listener) => store.subscribe(listener),
    close: () => Promise.resolve(),
  };
}

async function apply(store: SessionStore, change: Step, whole: boolean): Promise<unknown> {
  if (change.kind === 'turn') {
    const { saved, decisions } = await saveTurn(whole ? fresh(store) : store, change.key, change.messages, {
      initialLength: 0,
    });
    return { saved, reasons: decisions.map((entry) => entry.reason) };
  }
  const { messages } = await store.load(change.key);
  if (messages.length === 0) return undefined;
  const next =
    change.kind === 'drop-first'
      ? messages.slice(1)
      : messages.map((message, index) => (index === change.at % messages.length ? change.with : message));
  await store.rewrite(change.key, { messages: next });
  return undefined;
}

describe('saveTurn across turns', () => {
  test.prop([fc.array(step, { minLength: 1, maxLength: 16 })], { numRuns: 200 })(
    'saves and decides what reading the whole stored session every turn gives',
    async (steps) => {
      const kept = new MemorySessionStore({ now: () => new Date(0) });
      const whole = new MemorySessionStore({ now: () => new Date(0) });
      for (const change of steps) {
        const [left, right] = [await apply(kept, change, false), await apply(whole, change, true)];
        expect(left).toEqual(right);
      }
      for (const sessionKey of ['a', 'b'])
        expect((await kept.load(sessionKey)).messages).toEqual((await whole.load(sessionKey)).messages);
    },
  );
});
