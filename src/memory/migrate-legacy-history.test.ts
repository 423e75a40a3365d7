import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HistoryLog } from './history-log.js';
import { migrateLegacyHistory } from './migrate-legacy-history.js';

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-migrate-'));
  await mkdir(path.join(workspace, 'memory'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('migrateLegacyHistory', () => {
  it('moves HISTORY.md paragraphs into history.jsonl and keeps the file as a backup', async () => {
    const legacy =
      '[2026-01-02 10:00] User moved to Berlin.\nStill likes tea.\n\n\n[2026-01-03 11:30] Trip planned.\n\nno stamp here\n';
    await writeFile(path.join(workspace, 'memory', 'HISTORY.md'), legacy);
    await writeFile(path.join(workspace, 'memory', 'HISTORY.md.bak'), 'older backup');
    expect(await migrateLegacyHistory({ workspace })).toBe(3);
    expect(await new HistoryLog({ workspace }).read()).toEqual([
      { cursor: 1, timestamp: '2026-01-02 10:00', content: 'User moved to Berlin.\nStill likes tea.' },
      { cursor: 2, timestamp: '2026-01-03 11:30', content: 'Trip planned.' },
      { cursor: 3, timestamp: '2026-01-03 11:30', content: 'no stamp here' },
    ]);
    expect((await readdir(path.join(workspace, 'memory'))).sort()).toContain('HISTORY.md.bak.1');
    expect(await migrateLegacyHistory({ workspace })).toBe(0);
  });
});
