import type { FileHandle } from 'node:fs/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { JsonlSessionStore } from './jsonl-session-store.js';
import { sessionFileName } from './session-file-name.js';

/** What the store reads: every `readFile` path and the bytes read through file handles. */
const reads = vi.hoisted(() => ({ wholeFiles: [] as string[], bytes: 0 }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const counted = (handle: FileHandle): FileHandle =>
    new Proxy(handle, {
      get(target, property) {
        if (property === 'read')
          return async (...args: Parameters<FileHandle['read']>) => {
            const result = await target.read(...args);
            reads.bytes += result.bytesRead;
            return result;
          };
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return {
    ...actual,
    readFile: async (...args: Parameters<typeof actual.readFile>) => {
      reads.wholeFiles.push(String(args[0]));
      return actual.readFile(...args);
    },
    open: async (...args: Parameters<typeof actual.open>) => counted(await actual.open(...args)),
  };
});

const KEY = 'cli:big';
const MESSAGES = 20_000;
let dir: string;
let file: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-stream-'));
  file = path.join(dir, sessionFileName(KEY));
  const filler = 'lorem ipsum dolor sit amet '.repeat(36);
  const lines = [
    `{"_type": "metadata", "key": "${KEY}", "created_at": "2026-03-01T09:00:00", "metadata": {}}`,
  ];
  for (let index = 0; index < MESSAGES; index += 1)
    lines.push(
      `{"role": "${index % 2 === 0 ? 'user' : 'assistant'}", "content": "${index} ${filler}", "timestamp": "2026-03-01T09:00:00"}`,
    );
  await writeFile(file, `${lines.join('\n')}\n`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  reads.wholeFiles.length = 0;
  reads.bytes = 0;
});

describe('JsonlSessionStore streaming', () => {
  it('loads a 20 MB session line by line, never reading the file as a whole', async () => {
    const record = await new JsonlSessionStore({ dir }).load(KEY);
    expect(record.messages).toHaveLength(MESSAGES);
    expect(record.messages.at(-1)?.content).toMatch(/^19999 lorem/);
    expect(reads.wholeFiles).toEqual([]);
    expect(reads.bytes).toBeGreaterThan(20_000_000);
  });

  it('lists it from its first and last lines only', async () => {
    const [entry] = await new JsonlSessionStore({ dir }).list();
    expect(entry).toMatchObject({ key: KEY, updatedAt: '2026-03-01T09:00:00', warnings: [] });
    expect(entry?.sizeBytes).toBeGreaterThan(20_000_000);
    expect(reads.wholeFiles).toEqual([]);
    expect(reads.bytes).toBeLessThan(200_000);
  });

  it('rewrites it in a streaming copy, keeping every message', async () => {
    const store = new JsonlSessionStore({ dir });
    await store.setMetadata(KEY, { title: 'big' });
    expect(reads.wholeFiles.filter((read) => read.endsWith('.jsonl'))).toEqual([]);
    const record = await store.load(KEY);
    expect(record.messages).toHaveLength(MESSAGES);
    expect(record.metadata).toEqual({ title: 'big' });
  });

  it('reports a line over maxLineBytes as unreadable without holding it, and loads the rest', async () => {
    const huge = path.join(dir, sessionFileName('huge'));
    await writeFile(
      huge,
      `{"role": "user", "content": "before"}\n{"role": "user", "content": "${'x'.repeat(3_000_000)}"}\n{"role": "user", "content": "after"}\n`,
    );
    const record = await new JsonlSessionStore({ dir, maxLineBytes: 1_000_000 }).load('huge');
    expect(record.messages.map((message) => message.content)).toEqual(['before', 'after']);
    expect(record.warnings).toEqual([
      expect.stringContaining('line 2 skipped (3000031 bytes, longer than the line limit (maxLineBytes))'),
    ]);
  });
});
