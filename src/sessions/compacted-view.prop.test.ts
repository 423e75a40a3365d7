import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { appendCompaction } from '../compaction/append-compaction.js';
import { viewId } from '../core/apply-compactions.js';
import type { CompactionRecord } from '../core/compaction-record.js';
import { assistant, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { groupTransactions } from '../core/transactions.js';
import { conversationArbitrary } from '../testing/arbitraries.js';
import { EstimatingTokenCounter } from '../tokens/estimating-token-counter.js';
import { compactedView } from './compacted-view.js';
import { getHistory } from './get-history.js';
import { MemorySessionStore } from './memory-session-store.js';
import { loadForReplay, loadReplayedSession, replaySession } from './replay-session.js';
import { storedCompactions } from './session-compactions.js';
import type { SessionStore } from './session-store.js';

type Step =
  | { readonly kind: 'append'; readonly units: number }
  | {
      readonly kind: 'compact';
      readonly from: number;
      readonly isPrefix: boolean;
      readonly length: number;
      readonly pins: number;
    }
  | { readonly kind: 'rewind'; readonly keep: number; readonly isFresh: boolean }
  | { readonly kind: 'consolidate'; readonly to: number };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('append' as const), units: fc.integer({ min: 1, max: 6 }) }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('compact' as const),
      from: fc.nat(20),
      isPrefix: fc.boolean(),
      length: fc.integer({ min: 1, max: 12 }),
      pins: fc.oneof(fc.constant(0), fc.nat(4095)),
    }),
    weight: 3,
  },
  fc.record({ kind: fc.constant('rewind' as const), keep: fc.nat(30), isFresh: fc.boolean() }),
  fc.record({ kind: fc.constant('consolidate' as const), to: fc.nat(30) }),
);

const KEY = 's';

/**
 * Drives a session the way agents do: appends (after a rewind, under new ids or the old ones),
 * compactions stored with appendCompaction (over a prefix of the view or any span, chained, with
 * pins), rewinds (a history cut back) and nanobot consolidation.
 */
async function drive(conversation: readonly Message[], steps: readonly Step[]): Promise<SessionStore> {
  const driver = new Driver(conversation);
  await driver.append(3);
  for (const step of steps) await driver.step(step);
  return driver.store;
}

class Driver {
  readonly store = new MemorySessionStore();
  readonly #units: readonly (readonly Message[])[];
  #appended: { readonly unit: number; readonly messages: readonly Message[] }[] = [];
  #next = 0;
  #generation = 0;
  #made = 0;

  constructor(conversation: readonly Message[]) {
    this.#units = groupTransactions(conversation).map((unit) => unit.messages);
  }

  async step(step: Step): Promise<void> {
    if (step.kind === 'append') await this.append(step.units);
    else if (step.kind === 'rewind') await this.#rewind(step);
    else if (step.kind === 'consolidate') await this.store.setLastConsolidated(KEY, step.to);
    else await this.#compact(step);
  }

  async append(count: number): Promise<void> {
    const added = this.#units.slice(this.#next, this.#next + count).map((messages, offset) => ({
      unit: this.#next + offset,
      messages: messages.map((message) => ({ ...message, id: `${message.id}~${this.#generation}` })),
    }));
    this.#next += added.length;
    this.#appended = [...this.#appended, ...added];
    await this.store.append(
      KEY,
      added.flatMap((entry) => entry.messages),
    );
  }

  /** Cuts the history back to `keep` units; later appends reuse the cut ids unless `isFresh`. */
  async #rewind(step: Extract<Step, { kind: 'rewind' }>): Promise<void> {
    const keep = Math.min(step.keep, this.#appended.length);
    const removed = this.#appended[keep];
    this.#appended = this.#appended.slice(0, keep);
    const record = await this.store.load(KEY);
    await this.store.rewrite(KEY, {
      messages: this.#appended.flatMap((entry) => entry.messages),
      lastConsolidated: record.lastConsolidated,
    });
    if (step.isFresh) this.#generation += 1;
    else if (removed !== undefined) this.#next = removed.unit;
  }

  async #compact(step: Extract<Step, { kind: 'compact' }>): Promise<void> {
    this.#made += 1;
    const view = compactedView(await this.store.load(KEY))?.messages ?? [];
    const record = recordFor(view, { step, made: this.#made });
    if (record === undefined) return;
    await appendCompaction(this.store, { sessionKey: KEY, record }).catch(() => undefined);
  }
}

function recordFor(
  view: readonly Message[],
  run: { readonly step: Extract<Step, { kind: 'compact' }>; readonly made: number },
): CompactionRecord | undefined {
  const viewUnits = groupTransactions(view);
  if (viewUnits.length === 0) return undefined;
  const from = run.step.isPrefix ? 0 : run.step.from % viewUnits.length;
  const chosen = viewUnits.slice(from, from + run.step.length);
  const pinnedUnits = chosen.filter((_, index) => (run.step.pins >> index) & 1);
  if (pinnedUnits.length === chosen.length) pinnedUnits.pop();
  const pinned = pinnedUnits.flatMap((unit) => unit.messages.map(viewId));
  const pinnedSet = new Set(pinned);
  const replaces = chosen.flatMap((unit) => unit.messages.map(viewId)).filter((id) => !pinnedSet.has(id));
  const depthOf = new Map(
    view.flatMap((message) => {
      const depth = message.metadata?.['compactionDepth'];
      return typeof depth === 'number' ? [[viewId(message), depth] as const] : [];
    }),
  );
  const parents = replaces.filter((id) =>
    view.some((message) => viewId(message) === id && message.id !== id),
  );
  const id = `r-${run.made}`;
  return {
    id,
    kind: 'summary',
    replaces,
    ...(pinned.length === 0 ? {} : { pinned }),
    summary: {
      id: `s-${run.made}`,
      role: 'user',
      content: `summary of ${replaces.length}`,
      metadata: { compactionDepth: 1 + Math.max(0, ...parents.map((parent) => depthOf.get(parent) ?? 0)) },
    },
    depth: 1 + Math.max(0, ...parents.map((parent) => depthOf.get(parent) ?? 0)),
    parents,
    producer: { strategy: 'test' },
    tokensBefore: 0,
    tokensAfter: 0,
    trigger: 'manual',
    createdAt: '2026-12-07T00:00:00Z',
  };
}

const counter = new EstimatingTokenCounter();

describe('compacted sessions replayed from their newest messages', () => {
  test.prop(
    [
      conversationArbitrary({ maxUnits: 40 }),
      fc.array(stepArbitrary, { maxLength: 30 }),
      fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 6 }),
    ],
    { numRuns: 150 },
  )('a partial load gives the whole load view, or none', async (conversation, steps, percents) => {
    const store = await drive(conversation, steps);
    const whole = await store.load(KEY);
    if (storedCompactions(whole).length === 0) return;
    const wholeView = compactedView(whole);
    for (const percent of percents) {
      const tail = Math.round((whole.messages.length * percent) / 100);
      const partial = await store.load(KEY, { lastMessages: tail });
      const view = compactedView(partial);
      if (view !== undefined) expect(view.messages).toEqual(wholeView?.messages);
    }
  });

  test.prop(
    [
      conversationArbitrary({ maxUnits: 40 }),
      fc.array(stepArbitrary, { maxLength: 30 }),
      fc.record({
        maxTokens: fc.oneof(fc.constant(0), fc.integer({ min: 20, max: 3_000 })),
        maxMessages: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 40 })),
        extendToUser: fc.boolean(),
      }),
    ],
    { numRuns: 150 },
  )('loadForReplay replays what a whole load replays', async (conversation, steps, options) => {
    const store = await drive(conversation, steps);
    const history = { ...options, tokenCounter: counter };
    const whole = await store.load(KEY);
    const expected = getHistory(compactedView(whole) ?? whole, history);
    for (const first of [1, 3, 10]) {
      const loaded = await loadForReplay(limitedLoads(store, first), { sessionKey: KEY, history });
      expect(loaded.history).toEqual(expected);
    }
  });
});

/** A store whose first load with `lastMessages` asks for `first` at most (a smaller first tail). */
function limitedLoads(store: SessionStore, first: number): SessionStore {
  let isFirst = true;
  return Object.assign(Object.create(store) as SessionStore, {
    load: (key: string, options: Parameters<SessionStore['load']>[1] = {}) => {
      const limited =
        isFirst && options.lastMessages !== undefined
          ? { ...options, lastMessages: Math.min(first, options.lastMessages) }
          : options;
      isFirst = false;
      return store.load(key, limited);
    },
  });
}

describe('a session compacted over its first 9,000 of 10,000 messages', () => {
  const messages: Message[] = [];
  for (let index = 0; index < 5_000; index += 1) {
    messages.push(user(`question ${index}`, { id: `u${index}` }));
    messages.push(assistant(`answer ${index}`, { id: `a${index}` }));
  }
  const record: CompactionRecord = {
    id: 'r1',
    kind: 'summary',
    replaces: messages.slice(0, 9_000).map((message) => message.id),
    summary: { id: 's1', role: 'user', content: 'summary of 9,000 messages' },
    depth: 1,
    parents: [],
    producer: { strategy: 'test' },
    tokensBefore: 90_000,
    tokensAfter: 10,
    trigger: 'manual',
    createdAt: '2026-12-07T00:00:00Z',
  };

  it('replays from the newest 2,000 messages only, the same history as the whole session', async () => {
    const store = new MemorySessionStore();
    await store.append(KEY, messages);
    await appendCompaction(store, { sessionKey: KEY, record });
    const loads: (number | undefined)[] = [];
    const watched = Object.assign(Object.create(store) as SessionStore, {
      load: (key: string, options: Parameters<SessionStore['load']>[1] = {}) => {
        loads.push(options.lastMessages);
        return store.load(key, options);
      },
    });
    const options = { tokenCounter: counter, contextWindowTokens: 1_000_000, maxOutputTokens: 1_000 };
    const replayed = await loadReplayedSession(watched, { sessionKey: KEY, ...options });
    expect(loads).toEqual([2_000]);
    expect(replayed.record.firstIndex).toBe(8_000);
    const whole = replaySession(await store.load(KEY), options);
    expect(replayed.history).toEqual(whole.history);
    expect(replayed.history[0]?.id).toBe('s1');
    expect(replayed.history).toHaveLength(1_001);
  });

  it('reaches back with a second partial load when the records stop before the newest messages', async () => {
    const store = new MemorySessionStore();
    await store.append(KEY, messages);
    await appendCompaction(store, {
      sessionKey: KEY,
      record: { ...record, replaces: messages.slice(0, 5_000).map((message) => message.id) },
    });
    const loads: (number | undefined)[] = [];
    const watched = Object.assign(Object.create(store) as SessionStore, {
      load: (key: string, options: Parameters<SessionStore['load']>[1] = {}) => {
        loads.push(options.lastMessages);
        return store.load(key, options);
      },
    });
    const history = { tokenCounter: counter };
    const loaded = await loadForReplay(watched, { sessionKey: KEY, history });
    expect(loads).toEqual([2_000, 5_008]);
    const whole = await store.load(KEY);
    expect(loaded.history).toEqual(getHistory(compactedView(whole) ?? whole, history));
  });

  it('loads the whole session after a rewind regrew the history under other ids', async () => {
    const store = new MemorySessionStore();
    await store.append(KEY, messages.slice(0, 8_000));
    await appendCompaction(store, {
      sessionKey: KEY,
      record: { ...record, replaces: messages.slice(0, 8_000).map((message) => message.id) },
    });
    // cut back to 7,000 and regrown to 10,000 under new ids: 8,000 named ids, 8,000 older messages
    await store.rewrite(KEY, { messages: messages.slice(0, 7_000) });
    await store.append(
      KEY,
      messages.slice(7_000).map((message) => ({ ...message, id: `${message.id}-new` })),
    );
    const history = { tokenCounter: counter };
    const loaded = await loadForReplay(store, { sessionKey: KEY, history });
    expect(loaded.record.firstIndex ?? 0).toBe(0);
    expect(loaded.history[0]?.id).toBe('u0');
    expect(() =>
      replaySession(loaded.record.messages.length === 0 ? loaded.record : { ...loaded.record }, {
        tokenCounter: counter,
        contextWindowTokens: 1_000_000,
        maxOutputTokens: 1_000,
      }),
    ).not.toThrow();
  });

  it('replaySession refuses a partial record whose records reach back before it', async () => {
    const store = new MemorySessionStore();
    await store.append(KEY, messages);
    await appendCompaction(store, {
      sessionKey: KEY,
      record: { ...record, replaces: messages.slice(0, 5_000).map((message) => message.id) },
    });
    const options = { tokenCounter: counter, contextWindowTokens: 1_000_000, maxOutputTokens: 1_000 };
    expect(() => replaySession(store.load(KEY, { lastMessages: 100 }) as never, options)).toThrow();
    const partial = await store.load(KEY, { lastMessages: 100 });
    expect(() => replaySession(partial, options)).toThrow(/reach back before message 9900/);
  });
});
