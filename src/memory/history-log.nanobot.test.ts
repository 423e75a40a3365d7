import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HistoryLog } from './history-log.js';

const FIXTURE = fileURLToPath(new URL('../../test/fixtures/nanobot-sessions/history.jsonl', import.meta.url));
let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-history-fixture-'));
  await mkdir(path.join(workspace, 'memory'));
  await copyFile(FIXTURE, path.join(workspace, 'memory', 'history.jsonl'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('HistoryLog on a nanobot history.jsonl', () => {
  it('reads valid entries, reports the garbage and string-cursor lines', async () => {
    const { entries, warnings } = await new HistoryLog({ workspace }).readWithWarnings();
    expect(entries.map((entry) => entry.cursor)).toEqual([1, 2, 3, 4, 5]);
    expect(warnings).toEqual([
      { line: 3, reason: 'not valid JSON' },
      { line: 4, reason: 'invalid cursor (must be an integer ≥ 0)' },
    ]);
  });

  it('scopes recent history to the session, and in unified mode hides internal sessions', async () => {
    const log = new HistoryLog({ workspace });
    const key = 'telegram:8281248569';
    const scoped = await log.readRecent({ sinceCursor: 0, sessionKey: key });
    expect(scoped.map((entry) => entry.cursor)).toEqual([1, 5]);
    const unified = await log.readRecent({ sinceCursor: 1, sessionKey: key, unified: true });
    expect(unified.map((entry) => entry.cursor)).toEqual([2, 3, 5]);
  });

  it('continues the cursor sequence after the file’s highest valid cursor', async () => {
    const log = new HistoryLog({ workspace });
    expect(await log.append('- [durable] new fact', { sessionKey: 'cli:direct' })).toBe(6);
  });
});
