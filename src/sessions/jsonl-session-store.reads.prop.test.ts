import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newestMessages } from '../../test/helpers/newest-messages.js';
import { assistant, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { JsonlSessionStore } from './jsonl-session-store.js';

let root = '';
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ctxloom-jsonl-reads-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const KEY = 'cli:reads';
let folders = 0;
async function freshDir(): Promise<string> {
  folders += 1;
  return path.join(root, `case-${folders}`);
}

/** What a store that keeps nothing between loads reads: the reference every cached load must equal. */
async function freshLoad(dir: string) {
  return new JsonlSessionStore({ dir, cachedSessionBytes: 0 }).load(KEY);
}

type Step =
  | { readonly kind: 'append'; readonly texts: readonly string[] }
  | { readonly kind: 'append-other'; readonly texts: readonly string[] }
  | { readonly kind: 'rewrite-in-place'; readonly text: string }
  | { readonly kind: 'torn-line' }
  | { readonly kind: 'set-metadata'; readonly value: string }
  | { readonly kind: 'archive'; readonly upTo: number }
  | { readonly kind: 'load' };

const texts = fc.array(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }), {
  minLength: 1,
  maxLength: 3,
});
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('append' as const), texts }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('append-other' as const), texts }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('rewrite-in-place' as const),
      text: fc.string({ minLength: 1, maxLength: 6 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'torn-line' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('set-metadata' as const), value: fc.string({ maxLength: 5 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('archive' as const), upTo: fc.nat(20) }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'load' as const }) },
);

function turn(items: readonly string[]): Message[] {
  return items.map((text, index) => (index % 2 === 0 ? user(text) : assistant(text)));
}

describe('JsonlSessionStore keeps its last reads', () => {
  test.prop(
    [
      fc.array(step, { minLength: 1, maxLength: 14 }),
      fc.array(fc.option(fc.nat({ max: 6 }), { nil: undefined }), { minLength: 14, maxLength: 14 }),
    ],
    { numRuns: 60 },
  )(
    'loads what a store reading the whole file loads (all or the newest), whatever happened to the file in between',
    async (steps, tails) => {
      const dir = await freshDir();
      const store = new JsonlSessionStore({ dir });
      const other = new JsonlSessionStore({ dir });
      const file = store.filePath(KEY);
      await store.append(KEY, turn(['first']));
      for (const [index, item] of steps.entries()) {
        switch (item.kind) {
          case 'append':
            await store.append(KEY, turn(item.texts));
            break;
          case 'append-other':
            await other.append(KEY, turn(item.texts));
            break;
          case 'rewrite-in-place': {
            // A writer that takes no lock (nanobot) rewrites the file in place: same inode.
            const lines = (await readFile(file, 'utf8')).split('\n');
            const last = lines.findLastIndex((line) => line.includes('"content"'));
            if (last > 0) lines[last] = JSON.stringify({ role: 'user', content: item.text });
            await writeFile(file, lines.join('\n'));
            break;
          }
          case 'torn-line':
            await appendFile(file, '{"role": "user", "content": "cut');
            break;
          case 'set-metadata':
            await store.setMetadata(KEY, { note: item.value });
            break;
          case 'archive':
            await other.setLastConsolidated(KEY, item.upTo);
            break;
          case 'load':
            break;
        }
        const lastMessages = tails[index];
        expect(await store.load(KEY, lastMessages === undefined ? {} : { lastMessages })).toEqual(
          newestMessages(await freshLoad(dir), lastMessages),
        );
      }
    },
  );

  it('gives back the old messages as the same objects after its own appends', async () => {
    const dir = await freshDir();
    const store = new JsonlSessionStore({ dir });
    await store.append(KEY, turn(['one', 'two']));
    const first = await store.load(KEY);
    await store.append(KEY, turn(['three', 'four']));
    const second = await store.load(KEY);
    expect(second).toEqual(await freshLoad(dir));
    expect(second.messages).toHaveLength(4);
    expect(second.messages[0]).toBe(first.messages[0]);
    expect(second.messages[1]).toBe(first.messages[1]);
    // Unchanged since: the same record again.
    expect(await store.load(KEY)).toEqual(second);
    expect((await store.load(KEY)).messages[3]).toBe(second.messages[3]);
  });

  it('loads of the newest messages copy only those, and give them back as the same objects', async () => {
    const dir = await freshDir();
    const store = new JsonlSessionStore({ dir });
    await store.append(KEY, turn(['one', 'two', 'three']));
    const first = await store.load(KEY, { lastMessages: 2 });
    await store.append(KEY, turn(['four']));
    const second = await store.load(KEY, { lastMessages: 2 });
    expect(second.firstIndex).toBe(2);
    expect(second.messages[0]).toBe(first.messages[1]);
    const whole = await store.load(KEY);
    expect(whole.messages[3]).toBe(second.messages[1]);
    expect(first.messages.map((message) => message.content)).toEqual(['two', 'three']);
  });

  it('reads the whole file again after another store appended, and with cachedSessionBytes 0', async () => {
    const dir = await freshDir();
    const store = new JsonlSessionStore({ dir });
    const other = new JsonlSessionStore({ dir });
    await store.append(KEY, turn(['one', 'two']));
    const first = await store.load(KEY);
    await other.append(KEY, turn(['three']));
    const second = await store.load(KEY);
    expect(second).toEqual(await freshLoad(dir));
    expect(second.messages[0]).not.toBe(first.messages[0]);
    const uncached = new JsonlSessionStore({ dir, cachedSessionBytes: 0 });
    expect((await uncached.load(KEY)).messages[0]).not.toBe((await uncached.load(KEY)).messages[0]);
  });

  it('evicts the least recently loaded reads past cachedSessionBytes, never the last one', async () => {
    const dir = await freshDir();
    // Files of about 1,055 (a), 355 (b, c) and 555 (d) bytes: a header line and one message each.
    const small = new JsonlSessionStore({ dir, cachedSessionBytes: 1_000 });
    await small.append('a', turn(['x'.repeat(800)]));
    await small.append('b', turn(['y'.repeat(100)]));
    await small.append('c', turn(['z'.repeat(100)]));
    // Larger than the limit, but the last one loaded: kept until another load needs the room.
    const big = await small.load('a');
    expect((await small.load('a')).messages[0]).toBe(big.messages[0]);
    await small.load('b');
    // b needed the room: a is read whole again (and now b goes for it).
    expect((await small.load('a')).messages[0]).not.toBe(big.messages[0]);
    const b = await small.load('b');
    const c = await small.load('c');
    expect((await small.load('b')).messages[0]).toBe(b.messages[0]);
    expect((await small.load('c')).messages[0]).toBe(c.messages[0]);
    await small.append('d', turn(['w'.repeat(300)]));
    await small.load('d');
    // b (the least recently loaded) went to make room for d.
    expect((await small.load('b')).messages[0]).not.toBe(b.messages[0]);
  });
});
