import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../core/message.js';
import type { ChatModel } from '../llm/chat-model.js';
import { JsonlSessionStore } from '../sessions/jsonl-session-store.js';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import type { SessionLoadOptions, SessionRecord, SessionStore } from '../sessions/session-store.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { MemoryConsolidator } from './memory-consolidator.js';

let workspace = '';
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-tally-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** Every check is under budget: a model call is a test failure. */
const NO_MODEL: ChatModel = {
  specificationVersion: 'v1',
  id: 'none',
  generate: () => Promise.reject(new Error('the consolidator called its model')),
};

/** What happens to the session between two checks (as another process or the app would do it). */
type Operation =
  | { readonly kind: 'append'; readonly pieces: readonly Piece[] }
  | { readonly kind: 'rewind'; readonly to: number; readonly pieces: readonly Piece[] }
  | { readonly kind: 'cursor'; readonly to: number }
  | { readonly kind: 'clear' }
  | { readonly kind: 'check-only' };

/** A piece of a turn: user text, an answer, a tool transaction, a stray result, a command message. */
type Piece = 'user' | 'answer' | 'transaction' | 'orphan' | 'late-result' | 'command' | 'delivery';

const pieceArbitrary = fc.constantFrom<Piece>(
  'user',
  'user',
  'answer',
  'answer',
  'transaction',
  'transaction',
  'orphan',
  'late-result',
  'command',
  'delivery',
);
const piecesArbitrary = fc.array(pieceArbitrary, { minLength: 1, maxLength: 12 });

const operationArbitrary: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('append' as const), pieces: piecesArbitrary }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('rewind' as const), to: fc.nat(), pieces: piecesArbitrary }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cursor' as const), to: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'check-only' as const }) },
);

let made = 0;
/** New messages for `pieces` (ids never reused); `calls` are the call ids made so far (for late results). */
function messagesOf(pieces: readonly Piece[], calls: string[]): readonly Message[] {
  const out: Message[] = [];
  for (const piece of pieces) {
    made += 1;
    const id = `p${made}`;
    switch (piece) {
      case 'user':
        out.push({ id, role: 'user', content: `question ${made} `.repeat(1 + (made % 5)) });
        break;
      case 'answer':
        out.push({ id, role: 'assistant', content: `answer ${made} `.repeat(1 + (made % 7)) });
        break;
      case 'transaction':
        calls.push(`call-${made}`);
        out.push(
          {
            id,
            role: 'assistant',
            content: '',
            toolCalls: [{ id: `call-${made}`, name: 'exec', arguments: '{}' }],
          },
          { id: `${id}-r`, role: 'tool', toolCallId: `call-${made}`, name: 'exec', content: `out ${made}` },
        );
        break;
      case 'orphan':
        out.push({ id, role: 'tool', toolCallId: `gone-${made}`, name: 'exec', content: 'stray' });
        break;
      case 'late-result':
        out.push({ id, role: 'tool', toolCallId: calls.at(-2) ?? 'none', name: 'exec', content: 'late' });
        break;
      case 'command':
        out.push({ id, role: 'user', content: '/status', metadata: { _command: true } });
        break;
      case 'delivery':
        out.push({ id, role: 'assistant', content: 'delivered', metadata: { _channel_delivery: true } });
        break;
    }
  }
  return out;
}

async function apply(
  operation: Operation,
  session: { readonly store: SessionStore; readonly key: string; readonly calls: string[] },
): Promise<void> {
  const { store, key, calls } = session;
  const record = await store.load(key);
  switch (operation.kind) {
    case 'append':
      await store.append(key, messagesOf(operation.pieces, calls));
      return;
    case 'rewind': {
      // Back to an earlier point (a rewind or an undo), then a different continuation.
      const to = operation.to % (record.messages.length + 1);
      await store.rewrite(key, { messages: record.messages.slice(0, to) });
      await store.append(key, messagesOf(operation.pieces, calls));
      return;
    }
    case 'cursor':
      // The consolidation cursor moved (another process archived, or a rewind moved it back).
      await store.setLastConsolidated(key, operation.to % (record.messages.length + 1));
      return;
    case 'clear':
      await store.delete(key);
      return;
    case 'check-only':
      return;
  }
}

function consolidator(store: SessionStore): MemoryConsolidator {
  return new MemoryConsolidator({
    workspace,
    store,
    model: NO_MODEL,
    contextWindowTokens: 100_000_000,
    maxOutputTokens: 0,
    tokenCounter: new SimpleTokenCounter(),
  });
}

/**
 * The estimate a consolidator kept across checks gives (its running count) is the one a consolidator
 * that never saw the session works out from scratch, after every operation.
 */
async function checkSequence(store: SessionStore, operations: readonly Operation[]): Promise<number> {
  made += 1;
  const key = `s${made}`;
  const calls: string[] = [];
  const warm = consolidator(store);
  let checks = 0;
  for (const operation of operations) {
    await apply(operation, { store, key, calls });
    const kept = await warm.maybeConsolidate(key);
    const fresh = await consolidator(store).maybeConsolidate(key);
    expect(kept.status).toBe(fresh.status);
    expect(kept.estimateBefore).toBe(fresh.estimateBefore);
    checks += 1;
  }
  return checks;
}

describe('MemoryConsolidator running count', () => {
  test.prop([fc.array(operationArbitrary, { minLength: 1, maxLength: 14 })], { numRuns: 150 })(
    'the incremental estimate equals the from-scratch estimate after any appends, rewinds, cursor moves and clears (memory store)',
    async (operations) => {
      await checkSequence(new MemorySessionStore(), operations);
    },
  );

  test.prop([fc.array(operationArbitrary, { minLength: 1, maxLength: 8 })], { numRuns: 25 })(
    'the same through the JSONL store (a check reads new objects from the file every time)',
    async (operations) => {
      const store = new JsonlSessionStore({ dir: path.join(workspace, 'sessions') });
      try {
        await checkSequence(store, operations);
      } finally {
        await store.close();
      }
    },
    60_000,
  );

  it('loads only the newest messages for a check on a session that only grew', async () => {
    const loads: (number | undefined)[] = [];
    class CountingStore extends MemorySessionStore {
      override load(key: string, options?: SessionLoadOptions): Promise<SessionRecord> {
        loads.push(options?.lastMessages);
        return super.load(key, options);
      }
    }
    const store = new CountingStore();
    const inner = store;
    const calls: string[] = [];
    await inner.append(
      'grow',
      messagesOf(
        Array.from({ length: 3_000 }, () => 'user' as const),
        calls,
      ),
    );
    const warm = consolidator(store);
    const first = await warm.maybeConsolidate('grow');
    await inner.append('grow', messagesOf(['answer', 'transaction', 'user'], calls));
    loads.length = 0;
    const next = await warm.maybeConsolidate('grow');
    expect(loads).toEqual([64]);
    expect(next.estimateBefore).toBeGreaterThan(first.estimateBefore);
    expect(next.estimateBefore).toBe((await consolidator(store).maybeConsolidate('grow')).estimateBefore);
  });
});
