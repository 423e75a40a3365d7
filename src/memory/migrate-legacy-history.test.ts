import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HistoryLog } from './history-log.js';
import { migrateLegacyHistory } from './migrate-legacy-history.js';

let workspace: string;
let legacy: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-migrate-'));
  await mkdir(path.join(workspace, 'memory'));
  legacy = path.join(workspace, 'memory', 'HISTORY.md');
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('migrateLegacyHistory', () => {
  it('moves HISTORY.md entries into history.jsonl, marks them processed, and keeps the file as a backup', async () => {
    await writeFile(
      legacy,
      '[2026-01-02 10:00] User moved to Berlin.\r\nStill likes tea.\n\n\n[2026-01-03 11:30] Trip planned.\n[2026-01-03 11:45] Same-paragraph entry.\n\nno stamp here\n',
    );
    await utimes(legacy, new Date(2026, 0, 5, 8, 15), new Date(2026, 0, 5, 8, 15));
    await writeFile(`${legacy}.bak`, 'older backup');
    expect(await migrateLegacyHistory({ workspace })).toEqual({
      status: 'migrated',
      entries: 4,
      backupPath: `${legacy}.bak.2`,
    });
    const log = new HistoryLog({ workspace });
    expect(await log.read()).toEqual([
      { cursor: 1, timestamp: '2026-01-02 10:00', content: 'User moved to Berlin.\nStill likes tea.' },
      { cursor: 2, timestamp: '2026-01-03 11:30', content: 'Trip planned.' },
      { cursor: 3, timestamp: '2026-01-03 11:45', content: 'Same-paragraph entry.' },
      { cursor: 4, timestamp: '2026-01-05 08:15', content: 'no stamp here' },
    ]);
    expect(await log.readDreamCursor()).toBe(4);
    expect(await log.readRecent({ sinceCursor: await log.readDreamCursor() })).toEqual([]);
    expect(await log.append('next')).toBe(5);
    expect((await readdir(path.join(workspace, 'memory'))).sort()).toContain('HISTORY.md.bak.2');
    expect(await migrateLegacyHistory({ workspace })).toEqual({ status: 'absent' });
  });

  it('keeps the message lines of a [RAW] entry together', async () => {
    await writeFile(
      legacy,
      '[2026-01-02 10:00] [RAW] 2 messages\n[2026-01-02 09:58] USER: hi\n[2026-01-02 09:59] ASSISTANT [tools: web]: hello\n[2026-01-02 10:05] Next entry.\n',
    );
    await migrateLegacyHistory({ workspace });
    expect((await new HistoryLog({ workspace }).read()).map((entry) => entry.content)).toEqual([
      '[RAW] 2 messages\n[2026-01-02 09:58] USER: hi\n[2026-01-02 09:59] ASSISTANT [tools: web]: hello',
      'Next entry.',
    ]);
  });

  it('leaves HISTORY.md alone when history.jsonl already has entries (no duplicates)', async () => {
    const log = new HistoryLog({ workspace });
    await log.append('- [durable] new format');
    const before = await readFile(log.path, 'utf8');
    await writeFile(legacy, '[2026-01-02 10:00] Old fact.\n');
    expect(await migrateLegacyHistory({ workspace })).toEqual({ status: 'skipped', path: log.path });
    expect(await readFile(log.path, 'utf8')).toBe(before);
    expect(await readFile(legacy, 'utf8')).toBe('[2026-01-02 10:00] Old fact.\n');
    expect(await log.readDreamCursor()).toBe(0);
  });

  it('renames a blank HISTORY.md without writing entries', async () => {
    await writeFile(legacy, '\n\n');
    expect(await migrateLegacyHistory({ workspace })).toEqual({
      status: 'migrated',
      entries: 0,
      backupPath: `${legacy}.bak`,
    });
    expect(await new HistoryLog({ workspace }).read()).toEqual([]);
  });
});
