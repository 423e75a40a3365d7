// Over 300 lines: one conformance suite for the whole SessionStore contract; each case is short and stands alone.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assistant, system, tool, user } from '../../core/factories.js';
import type { Message } from '../../core/message.js';
import type { MessageEvent, SessionStore } from '../../sessions/session-store.js';

/** What {@link SessionStoreContractOptions.create} is given for one test. */
export type SessionStoreContractContext = {
  /**
   * The clock the suite drives: give it to the store (ctxloom's stores take it as `now`). It stands
   * still at 2026-01-01T00:00:00Z until a case moves it on; the `updatedAt` cases need it.
   */
  readonly now: () => Date;
};

/** Options for {@link describeSessionStoreContract}. */
export type SessionStoreContractOptions = {
  /** The backend's name in test titles. */
  readonly name: string;
  /** Makes a fresh, empty store for one test, on the suite's clock. */
  readonly create: (context: SessionStoreContractContext) => Promise<SessionStore> | SessionStore;
  /** Cleans up after one test (after `close()` was called). */
  readonly cleanup?: (store: SessionStore) => Promise<void> | void;
  /** Runs the whole suite this many times (flushes out ordering and timing bugs). @default 1 */
  readonly repetitions?: number;
};

const HOSTILE_KEYS = ['../escape', '../../etc/passwd', 'a/b\\c', '', ' ', 'ü:✓', 'x'.repeat(300), '.', 'CON'];
/** Keys that UTF-8 replacement, Unicode normalisation, case folding or nanobot's legacy file names could merge. */
const LOOKALIKE_KEYS = [
  'cli:direct',
  'cli_direct',
  'a:b:c',
  'a_b:c',
  '\u00e9',
  'e\u0301',
  '\ufffd',
  'k\ud83d\ude00',
  'K',
  'k',
  'x',
  'x ',
];
/** Keys no backend can store exactly (UTF-8 cannot hold a lone surrogate; PostgreSQL text cannot hold NUL). */
const UNSTORABLE_KEYS = ['k\ud800', 'k\udbff', '\udc00k', 'a\u0000b'];
/** Where the suite's clock starts (in the past, so no store takes a fresh temp or lock file for a stale one). */
const CLOCK_START_MS = Date.UTC(2026, 0, 1);
const MINUTE_MS = 60_000;

/**
 * The shared conformance suite every {@link SessionStore} must pass: ordering, round trips of every
 * message field, loads of the newest messages, metadata merge, the archive pointer, rewrite, delete, list, hostile keys, concurrent
 * appends, events, the session lock and input immutability. The suite expects `withSessionLock`; a
 * store without it fails that one test (it is optional in the contract, but every ctxloom store has it). Third-party backends run it too:
 * @example describeSessionStoreContract({ name: 'redis', create: ({ now }) => new RedisStore({ url, now }) });
 */
export function describeSessionStoreContract(options: SessionStoreContractOptions): void {
  const repetitions = options.repetitions ?? 1;
  for (let round = 1; round <= repetitions; round += 1) {
    const suffix = repetitions > 1 ? ` (round ${round})` : '';
    describe(`SessionStore contract: ${options.name}${suffix}`, () => defineTests(options));
  }
}

function defineTests(options: SessionStoreContractOptions): void {
  let store: SessionStore;
  let clockMs = CLOCK_START_MS;
  const iso = (): string => new Date(clockMs).toISOString();
  beforeEach(async () => {
    clockMs = CLOCK_START_MS;
    store = await options.create({ now: () => new Date(clockMs) });
  });
  afterEach(async () => {
    await store.close();
    await options.cleanup?.(store);
  });

  it('declares its contract version and id', () => {
    expect(store.specificationVersion).toBe('v1');
    expect(store.id.length).toBeGreaterThan(0);
  });

  it('loads a missing session as an empty record', async () => {
    const record = await store.load('nobody');
    expect(record).toMatchObject({
      key: 'nobody',
      messages: [],
      metadata: {},
      lastConsolidated: 0,
      exists: false,
    });
    expect(await store.list()).toEqual([]);
  });

  it('creates nothing for an empty batch', async () => {
    await store.append('empty', []);
    expect((await store.load('empty')).exists).toBe(false);
    expect(await store.list()).toEqual([]);
  });

  it('round-trips every message field and stamps a timestamp', async () => {
    const messages = sampleMessages();
    await store.append('cli:direct', messages);
    const record = await store.load('cli:direct');
    expect(record.exists).toBe(true);
    expect(record.warnings).toEqual([]);
    expect(record.messages.map(withoutTimestamp)).toEqual(messages);
    for (const message of record.messages) expect(typeof message.metadata?.['timestamp']).toBe('string');
    expect(typeof record.createdAt).toBe('string');
    expect(typeof record.updatedAt).toBe('string');
  });

  it('appends in order across calls and keeps a given timestamp', async () => {
    const stamped = user('stamped', { id: 's', metadata: { timestamp: '2026-01-01T00:00:00.000Z' } });
    await store.append('k', [user('one', { id: 'a' })]);
    await store.append('k', [assistant('two', { id: 'b' }), stamped]);
    const loaded = (await store.load('k')).messages;
    expect(loaded.map((message) => message.id)).toEqual(['a', 'b', 's']);
    expect(loaded[2]?.metadata?.['timestamp']).toBe('2026-01-01T00:00:00.000Z');
  });

  it('never loses or interleaves concurrent appends to one session', async () => {
    const batches = Array.from({ length: 20 }, (_, batch) =>
      Array.from({ length: 3 }, (_, index) => user(`b${batch}-${index}`, { id: `b${batch}-${index}` })),
    );
    await Promise.all(batches.map((batch) => store.append('busy', batch)));
    const ids = (await store.load('busy')).messages.map((message) => message.id);
    expect(ids).toHaveLength(60);
    for (let start = 0; start < ids.length; start += 3) {
      const batch = ids[start]?.split('-')[0];
      expect(ids.slice(start, start + 3)).toEqual([`${batch}-0`, `${batch}-1`, `${batch}-2`]);
    }
  });

  it('merges metadata and removes keys set to undefined', async () => {
    await store.setMetadata('m', { title: 'Trip', _last_summary: { text: 's', last_active: 'x' } });
    await store.append('m', [user('hi', { id: 'u' })]);
    await store.setMetadata('m', { title: undefined, nested: { a: [1, 'two', null] } });
    const record = await store.load('m');
    expect(record.metadata).toEqual({
      _last_summary: { text: 's', last_active: 'x' },
      nested: { a: [1, 'two', null] },
    });
    expect(record.messages).toHaveLength(1);
  });

  it('sets and clamps the archive pointer', async () => {
    await store.append('p', [user('a', { id: '1' }), assistant('b', { id: '2' }), user('c', { id: '3' })]);
    await store.setLastConsolidated('p', 2);
    expect((await store.load('p')).lastConsolidated).toBe(2);
    await store.setLastConsolidated('p', 99);
    expect((await store.load('p')).lastConsolidated).toBe(3);
    await store.setLastConsolidated('p', -4);
    expect((await store.load('p')).lastConsolidated).toBe(0);
  });

  it('leaves updatedAt as it is on writes with preserveUpdatedAt (archive bookkeeping), and refreshes it otherwise', async () => {
    await store.append('quiet', [user('a', { id: '1' }), assistant('b', { id: '2' })]);
    const active = iso();
    const clockHint = 'the store must take its clock from create({ now })';
    expect((await store.load('quiet')).updatedAt, clockHint).toBe(active);
    clockMs += 20 * MINUTE_MS;
    const summary = { text: 's', last_active: active };
    await store.setLastConsolidated('quiet', 2, { preserveUpdatedAt: true });
    await store.setMetadata('quiet', { _last_summary: summary }, { preserveUpdatedAt: true });
    expect(await store.load('quiet')).toMatchObject({
      updatedAt: active,
      lastConsolidated: 2,
      metadata: { _last_summary: summary },
    });
    expect((await store.list()).find((entry) => entry.key === 'quiet')?.updatedAt).toBe(active);
    clockMs += MINUTE_MS;
    await store.setMetadata('quiet', { title: 'Trip' });
    expect((await store.load('quiet')).updatedAt).toBe(iso());
    clockMs += MINUTE_MS;
    await store.setLastConsolidated('quiet', 1);
    expect((await store.load('quiet')).updatedAt).toBe(iso());
  });

  it('keeps the stored updatedAt with preserveUpdatedAt (an append meanwhile counts) and dates a new session now', async () => {
    await store.append('busy', [user('a', { id: '1' })]);
    clockMs += MINUTE_MS;
    await store.append('busy', [assistant('b', { id: '2' })]);
    const appended = iso();
    clockMs += MINUTE_MS;
    await store.setLastConsolidated('busy', 1, { preserveUpdatedAt: true });
    await store.setMetadata('busy', { a: 1 }, { preserveUpdatedAt: true });
    expect((await store.load('busy')).updatedAt).toBe(appended);
    await store.setMetadata('new', { a: 1 }, { preserveUpdatedAt: true });
    expect(await store.load('new')).toMatchObject({ exists: true, createdAt: iso(), updatedAt: iso() });
  });

  it('rewrites a session atomically and keeps it appendable', async () => {
    await store.append('r', [user('a', { id: '1' }), assistant('b', { id: '2' }), user('c', { id: '3' })]);
    await store.setLastConsolidated('r', 3);
    await store.setMetadata('r', { keep: true });
    const kept = (await store.load('r')).messages.slice(1);
    await store.rewrite('r', { messages: kept, lastConsolidated: 1 });
    await store.append('r', [assistant('d', { id: '4' })]);
    const record = await store.load('r');
    expect(record.messages.map((message) => message.id)).toEqual(['2', '3', '4']);
    expect(record.lastConsolidated).toBe(1);
    expect(record.metadata).toEqual({ keep: true });
  });

  it('loads only the newest lastMessages, saying where they start, and never changes a record it returned', async () => {
    const ids = (record: { readonly messages: readonly Message[] }) =>
      record.messages.map((message) => message.id);
    await store.append(
      't',
      ['0', '1', '2', '3', '4'].map((id) => user(`m${id}`, { id })),
    );
    await store.setLastConsolidated('t', 3);
    const whole = await store.load('t');
    const tail = await store.load('t', { lastMessages: 2 });
    expect(ids(tail)).toEqual(['3', '4']);
    expect(tail).toMatchObject({ firstIndex: 3, lastConsolidated: 3, exists: true, metadata: {} });
    expect(tail.messages).toEqual(whole.messages.slice(3));
    for (const lastMessages of [5, 9, Number.POSITIVE_INFINITY]) {
      const all = await store.load('t', { lastMessages });
      expect(ids(all)).toEqual(['0', '1', '2', '3', '4']);
      expect(all.firstIndex ?? 0).toBe(0);
    }
    expect(await store.load('t', { lastMessages: 0 })).toMatchObject({ messages: [], firstIndex: 5 });
    await store.append('t', [assistant('m5', { id: '5' })]);
    const grown = await store.load('t', { lastMessages: 2 });
    expect(ids(grown)).toEqual(['4', '5']);
    expect(grown.firstIndex).toBe(4);
    expect(ids(await store.load('t'))).toEqual(['0', '1', '2', '3', '4', '5']);
    expect(ids(whole)).toEqual(['0', '1', '2', '3', '4']);
    expect(ids(tail)).toEqual(['3', '4']);
    await store.rewrite('t', { messages: whole.messages.slice(0, 2), lastConsolidated: 1 });
    const rewritten = await store.load('t', { lastMessages: 3 });
    expect(ids(rewritten)).toEqual(['0', '1']);
    expect(rewritten.firstIndex ?? 0).toBe(0);
    expect(rewritten.lastConsolidated).toBe(1);
  });

  it('rejects a lastMessages that is not a count with INVALID_INPUT', async () => {
    await store.append('t', [user('a', { id: '1' })]);
    for (const lastMessages of [-1, 1.5, Number.NaN])
      await expect(store.load('t', { lastMessages })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringContaining('lastMessages'),
      });
    expect(await store.load('nobody', { lastMessages: 3 })).toMatchObject({ messages: [], exists: false });
  });

  it('records the times a rewrite gives (a copy keeps its source times), else updatedAt now', async () => {
    const times = { createdAt: '2025-01-01T10:00:00.000Z', updatedAt: '2025-01-02T10:00:00.000Z' };
    await store.rewrite('copy', { messages: [user('a', { id: '1' })], lastConsolidated: 1, ...times });
    await store.setMetadata('copy', { title: 'copied' }, { preserveUpdatedAt: true });
    const copied = await store.load('copy');
    expect(copied).toMatchObject({ ...times, exists: true, lastConsolidated: 1 });
    expect(copied.messages[0]?.metadata?.['timestamp']).toBe(times.updatedAt);
    expect((await store.list()).find((entry) => entry.key === 'copy')).toMatchObject(times);
    clockMs += MINUTE_MS;
    await store.rewrite('copy', { messages: copied.messages });
    expect(await store.load('copy')).toMatchObject({ createdAt: times.createdAt, updatedAt: iso() });
    await expect(store.rewrite('copy', { messages: [], updatedAt: 'yesterday' })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('updatedAt'),
    });
    expect((await store.load('copy')).messages).toHaveLength(1);
  });

  it('refuses a rewrite when the message count changed (optimistic concurrency)', async () => {
    await store.append('c', [user('a', { id: '1' }), user('b', { id: '2' })]);
    await expect(store.rewrite('c', { messages: [], ifMessageCount: 1 })).rejects.toMatchObject({
      code: 'STORE_CONFLICT',
    });
    expect((await store.load('c')).messages).toHaveLength(2);
    await store.rewrite('c', { messages: [], ifMessageCount: 2 });
    expect((await store.load('c')).messages).toHaveLength(0);
  });

  it('lists sessions sorted by key (with message counts where the backend keeps them), and deletes them', async () => {
    await store.append('b', [user('x', { id: '1' })]);
    await store.append('a', [user('x', { id: '2' }), user('y', { id: '3' })]);
    const listed = await store.list();
    expect(listed.map((entry) => entry.key)).toEqual(['a', 'b']);
    for (const [index, count] of [2, 1].entries()) {
      const entry = listed[index];
      if (entry?.messageCount !== undefined) expect(entry.messageCount).toBe(count);
      expect(typeof entry?.updatedAt).toBe('string');
    }
    expect(await store.delete('a')).toBe(true);
    expect(await store.delete('a')).toBe(false);
    expect((await store.load('a')).exists).toBe(false);
    expect((await store.list()).map((entry) => entry.key)).toEqual(['b']);
  });

  it('keeps hostile session keys apart and inside the store', async () => {
    for (const [index, key] of HOSTILE_KEYS.entries()) {
      await store.append(key, [user(`for ${index}`, { id: `h${index}` })]);
    }
    for (const [index, key] of HOSTILE_KEYS.entries()) {
      const record = await store.load(key);
      expect(record.messages.map((message) => message.id)).toEqual([`h${index}`]);
    }
    expect((await store.list()).map((entry) => entry.key).sort()).toEqual([...HOSTILE_KEYS].sort());
  });

  it('keeps keys apart that encodings, normalisation or case could merge', async () => {
    for (const [index, key] of LOOKALIKE_KEYS.entries()) {
      await store.append(key, [user(`for ${index}`, { id: `l${index}` })]);
    }
    for (const [index, key] of LOOKALIKE_KEYS.entries()) {
      expect((await store.load(key)).messages.map((message) => message.id)).toEqual([`l${index}`]);
    }
    expect((await store.list()).map((entry) => entry.key).sort()).toEqual([...LOOKALIKE_KEYS].sort());
  });

  it('rejects keys it cannot store exactly with INVALID_INPUT, storing nothing', async () => {
    for (const key of UNSTORABLE_KEYS) {
      const problem = { code: 'INVALID_INPUT', message: expect.stringMatching(/lone UTF-16 surrogate|NUL/) };
      await expect(store.append(key, [user('x', { id: 'x' })])).rejects.toMatchObject(problem);
      await expect(store.setMetadata(key, { a: 1 })).rejects.toMatchObject(problem);
      await expect(store.load(key)).rejects.toMatchObject(problem);
    }
    expect(await store.list()).toEqual([]);
  });

  it('emits one event per appended message until unsubscribed', async () => {
    const events: MessageEvent[] = [];
    const unsubscribe = store.subscribe((event) => events.push(event));
    await store.append('e', [user('a', { id: '1' }), assistant('b', { id: '2' })]);
    await waitFor(() => events.length >= 2);
    unsubscribe();
    await store.append('e', [user('c', { id: '3' })]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(events.map((event) => [event.type, event.sessionKey, event.message.id])).toEqual([
      ['message-appended', 'e', '1'],
      ['message-appended', 'e', '2'],
    ]);
  });

  it('throws ABORTED for an aborted signal and writes nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const signal = controller.signal;
    await expect(store.append('aborted', [user('x', { id: 'x' })], { signal })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    await expect(store.setMetadata('aborted', { a: 1 }, { signal })).rejects.toMatchObject({
      code: 'ABORTED',
    });
    await expect(store.load('aborted', { signal })).rejects.toMatchObject({ code: 'ABORTED' });
    expect((await store.load('aborted')).exists).toBe(false);
  });

  it('runs withSessionLock tasks on one session one at a time, without blocking appends', async () => {
    const lock = store.withSessionLock?.bind(store);
    expect(lock).toBeTypeOf('function');
    if (lock === undefined) return;
    const order: string[] = [];
    const task = (name: string) => async () => {
      order.push(`${name}:start`);
      await store.append('locked', [user(name, { id: name })]);
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push(`${name}:end`);
      return name;
    };
    const results = await Promise.all([
      lock('locked', task('a')),
      lock('locked', task('b')),
      lock('other', async () => 'c'),
    ]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(order.join(' ')).toMatch(/^(\w):start \1:end (\w):start \2:end$/);
    expect((await store.load('locked')).messages).toHaveLength(2);
  });

  it('does not mutate its inputs', async () => {
    const messages = Object.freeze(sampleMessages().map((message) => Object.freeze(message)));
    const snapshot = JSON.stringify(messages);
    await store.append('frozen', messages);
    await store.rewrite('frozen', { messages });
    const patch = Object.freeze({ a: 1 });
    await store.setMetadata('frozen', patch);
    expect(JSON.stringify(messages)).toBe(snapshot);
    expect(patch).toEqual({ a: 1 });
  });
}

function sampleMessages(): Message[] {
  return [
    system('You are helpful.', { id: 'sys' }),
    user(
      [
        { type: 'text', text: 'Look:' },
        { type: 'image', url: 'https://x.test/a.png', mediaType: 'image/png', path: '/tmp/a.png' },
      ],
      {
        id: 'u1',
        metadata: { runtimeContext: { version: 1, sources: ['goal'], blocks: ['b'] } },
      },
    ),
    assistant('', {
      id: 'a1',
      toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"a.txt"}' }],
      reasoning: 'I should read it.',
    }),
    tool('file text ✓ 中文', { id: 't1', toolCallId: 'call_1', name: 'read_file' }),
    assistant('Done.', { id: 'a2', name: 'bot', metadata: { custom: { deep: [1, 2] } } }),
  ];
}

function withoutTimestamp(message: Message): Message {
  const { timestamp: _timestamp, ...rest } = message.metadata ?? {};
  if (Object.keys(rest).length > 0) return { ...message, metadata: rest };
  const { metadata: _metadata, ...withoutMetadata } = message;
  return withoutMetadata;
}

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
