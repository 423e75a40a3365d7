import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HistoryLog } from './history-log.js';
import { MemoryFile } from './memory-file.js';

let workspace: string;
const now = (): Date => new Date(2026, 0, 2, 3, 4, 5);

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-history-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('HistoryLog', () => {
  it('appends entries with monotonic cursors and nanobot field names', async () => {
    const log = new HistoryLog({ workspace, now });
    expect(await log.append('first', { sessionKey: 'cli:a' })).toBe(1);
    expect(await log.append('second  \n')).toBe(2);
    const lines = (await readFile(log.path, 'utf8')).trim().split('\n');
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      cursor: 1,
      timestamp: '2026-01-02 03:04',
      content: 'first',
      session_key: 'cli:a',
    });
    expect(await log.read()).toEqual([
      { cursor: 1, timestamp: '2026-01-02 03:04', content: 'first', sessionKey: 'cli:a' },
      { cursor: 2, timestamp: '2026-01-02 03:04', content: 'second' },
    ]);
    expect((await readFile(log.cursorPath, 'utf8')).trim()).toBe('2');
  });

  it('skips corrupt lines, reports them, and keeps cursors above every valid one', async () => {
    const log = new HistoryLog({ workspace, now });
    await mkdir(path.dirname(log.path), { recursive: true });
    await writeFile(
      log.path,
      [
        '{"cursor": 4, "timestamp": "2026-01-01 10:00", "content": "a"}',
        'not json',
        '[1,2]',
        '{"cursor": true, "timestamp": "x", "content": "bool cursor"}',
        '{"cursor": -1, "timestamp": "x", "content": "negative"}',
        '{"cursor": "9", "timestamp": "x", "content": "string cursor"}',
        '{"cursor": 7, "timestamp": "2026-01-01 10:00", "content": "b", "session_key": 3}',
        '{"cursor": 5, "timestamp": 1, "content": "c"}',
        '{"cursor": 6, "timestamp": "2026-01-01 11:00", "content": "d"}',
        '{"cursor": 8, "timest',
      ].join('\n'),
    );
    const { entries, warnings } = await log.readWithWarnings();
    expect(entries.map((entry) => entry.cursor)).toEqual([4, 6]);
    expect(warnings.map((warning) => warning.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 10]);
    expect(await log.append('next')).toBe(7);
    const text = await readFile(log.path, 'utf8');
    expect(text).toContain('{"cursor": 8, "timest\n{"cursor":7');
    expect((await log.read()).map((entry) => entry.cursor)).toEqual([4, 6, 7]);
  });

  it('uses the counter file when it is ahead of the log (after compaction)', async () => {
    const log = new HistoryLog({ workspace, now });
    await log.append('a');
    await writeFile(log.cursorPath, '41\n');
    expect(await log.append('b')).toBe(42);
    await writeFile(log.cursorPath, 'garbage');
    expect(await log.append('c')).toBe(43);
  });

  it('allocates unique cursors under concurrent writers', async () => {
    const writers = [new HistoryLog({ workspace, now }), new HistoryLog({ workspace, now })];
    const cursors = await Promise.all(
      Array.from({ length: 40 }, (_, index) => writers[index % 2]?.append(`entry ${index}`)),
    );
    expect(new Set(cursors).size).toBe(40);
    const entries = await writers[0]?.read();
    expect(entries?.map((entry) => entry.cursor)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it('strips reasoning leaks and truncates to maxChars', async () => {
    const log = new HistoryLog({ workspace, now });
    await log.append('<think>secret plan</think>- [durable] likes tea');
    await log.append('<thinking>only a leak');
    await log.append('x'.repeat(50), { maxChars: 10 });
    const contents = (await log.read()).map((entry) => entry.content);
    expect(contents).toEqual(['- [durable] likes tea', '', `${'x'.repeat(10)}\n... (truncated)`]);
  });

  it('scopes recent history by session, with the unified rules', async () => {
    const log = new HistoryLog({ workspace, now });
    await log.append('old', { sessionKey: 'cli:a' });
    await log.append('mine', { sessionKey: 'cli:a' });
    await log.append('other', { sessionKey: 'telegram:1' });
    await log.append('no key');
    await log.append('cron', { sessionKey: 'cron:daily' });
    await log.append('beat', { sessionKey: 'heartbeat' });
    const contents = async (options: Parameters<HistoryLog['readRecent']>[0]) =>
      (await log.readRecent(options)).map((entry) => entry.content);
    expect(await contents({ sinceCursor: 1 })).toEqual(['mine', 'other', 'no key', 'cron', 'beat']);
    expect(await contents({ sinceCursor: 1, sessionKey: 'cli:a' })).toEqual(['mine']);
    expect(await contents({ sinceCursor: 1, sessionKey: 'cli:a', unified: true })).toEqual([
      'mine',
      'other',
      'no key',
    ]);
    expect(await contents({ sessionKey: 'cron:daily', unified: true })).toEqual([
      'old',
      'mine',
      'other',
      'no key',
      'cron',
    ]);
  });

  it('compacts old entries but never unprocessed ones, keeping cursors monotonic', async () => {
    const log = new HistoryLog({ workspace, now });
    for (let index = 1; index <= 10; index += 1) await log.append(`e${index}`);
    await log.writeDreamCursor(3);
    expect(await log.compact({ maxEntries: 4 })).toEqual({ removed: 3, setAside: 0 });
    expect((await log.read()).map((entry) => entry.cursor)).toEqual([4, 5, 6, 7, 8, 9, 10]);
    await log.writeDreamCursor(10);
    expect(await log.compact({ maxEntries: 4 })).toEqual({ removed: 3, setAside: 0 });
    expect((await log.read()).map((entry) => entry.cursor)).toEqual([7, 8, 9, 10]);
    expect(await log.compact({ maxEntries: 4 })).toEqual({ removed: 0, setAside: 0 });
    expect(await log.append('next')).toBe(11);
  });

  it('never loses an unreadable line when compacting: later ones stay in place, earlier ones are set aside', async () => {
    const log = new HistoryLog({ workspace, now });
    for (let index = 1; index <= 6; index += 1) await log.append(`e${index}`);
    const lines = (await readFile(log.path, 'utf8')).trimEnd().split('\n');
    const torn = '{"cursor": 99, "timest';
    const stringCursor = '{"cursor":"7","timestamp":"2026-01-01 10:00","content":"by a shell","extra":1}';
    const edited = [lines[0], torn, lines[1], lines[2], lines[3], stringCursor, lines[4], lines[5]];
    await writeFile(log.path, `${edited.join('\n')}\n`);
    await log.writeDreamCursor(6);
    expect(await log.compact({ maxEntries: 3 })).toEqual({ removed: 3, setAside: 1 });
    expect(await readFile(log.path, 'utf8')).toBe(
      `${[lines[3], stringCursor, lines[4], lines[5]].join('\n')}\n`,
    );
    expect(await readFile(log.corruptPath, 'utf8')).toBe(`${torn}\n`);
    expect(await log.append('next')).toBe(7);
  });

  it('reads and writes the Dream cursor', async () => {
    const log = new HistoryLog({ workspace, now });
    expect(await log.readDreamCursor()).toBe(0);
    await log.writeDreamCursor(12);
    expect(await log.readDreamCursor()).toBe(12);
    await expect(log.writeDreamCursor(-1)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('gives the same entries while the log is unchanged, and sees what another writer appended, rewrote or removed', async () => {
    const reader = new HistoryLog({ workspace, now });
    const writer = new HistoryLog({ workspace, now });
    expect(await reader.readRecent()).toEqual([]);
    await writer.append('one', { sessionKey: 's' });
    const first = await reader.readRecent({ sessionKey: 's' });
    expect(first.map((entry) => entry.content)).toEqual(['one']);
    expect(await reader.readRecent({ sessionKey: 's' })).toBe(first);
    expect(await reader.readRecent({ sessionKey: 'other' })).toEqual([]);
    await writer.append('two', { sessionKey: 's' });
    expect((await reader.readRecent({ sessionKey: 's' })).map((entry) => entry.content)).toEqual([
      'one',
      'two',
    ]);
    // A same-size rewrite in place (another process editing the log) is seen too.
    const text = await readFile(writer.path, 'utf8');
    await writeFile(writer.path, text.replace('"two"', '"TWO"'));
    expect((await reader.read()).map((entry) => entry.content)).toEqual(['one', 'TWO']);
    await rm(writer.path);
    expect(await reader.read()).toEqual([]);
    await writer.writeDreamCursor(3);
    expect(await reader.readDreamCursor()).toBe(3);
    await writer.writeDreamCursor(4);
    expect(await reader.readDreamCursor()).toBe(4);
  });
});

describe('MemoryFile', () => {
  it('reads empty when missing and writes atomically', async () => {
    const file = new MemoryFile({ workspace });
    expect(await file.read()).toBe('');
    await file.write('# Memory\n- fact\n');
    expect(await file.read()).toBe('# Memory\n- fact\n');
    expect(file.path).toBe(path.join(workspace, 'memory', 'MEMORY.md'));
  });

  it('sees what another writer wrote, rewrote in place or removed', async () => {
    const reader = new MemoryFile({ workspace });
    const writer = new MemoryFile({ workspace });
    await writer.write('# Memory\n- a\n');
    expect(await reader.read()).toBe('# Memory\n- a\n');
    await writeFile(writer.path, '# Memory\n- b\n');
    expect(await reader.read()).toBe('# Memory\n- b\n');
    await rm(writer.path);
    expect(await reader.read()).toBe('');
  });
});
