import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { user } from '../core/factories.js';
import { JsonlSessionStore } from './jsonl-session-store.js';
import { sessionFileName } from './session-file-name.js';

let root: string;
let dir: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ctxloom-legacy-'));
  dir = path.join(root, 'sessions');
  await mkdir(dir);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A session file as nanobot writes it (Python JSON spacing): metadata record, then messages. */
function nanobotFile(key: string | undefined, texts: readonly string[]): string {
  const header =
    key === undefined
      ? []
      : [
          `{"_type": "metadata", "key": ${JSON.stringify(key)}, "created_at": "2026-03-01T09:00:00", "updated_at": "2026-03-01T09:00:00", "metadata": {}, "last_consolidated": 0}`,
        ];
  const lines = texts.map(
    (text, index) =>
      `{"role": "${index % 2 === 0 ? 'user' : 'assistant'}", "content": ${JSON.stringify(text)}, "timestamp": "2026-03-01T09:0${index}:00"}`,
  );
  return `${[...header, ...lines].join('\n')}\n`;
}

const texts = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => `${prefix} ${index}`);

describe('JsonlSessionStore on nanobot legacy file names', () => {
  it('lists and loads a session stored as cli_direct.jsonl, without renaming it', async () => {
    await writeFile(path.join(dir, 'cli_direct.jsonl'), nanobotFile('cli:direct', texts(23, 'm')));
    await writeFile(path.join(dir, sessionFileName('telegram:1')), nanobotFile('telegram:1', texts(2, 't')));
    const store = new JsonlSessionStore({ dir });
    expect((await store.list()).map((entry) => [entry.key, path.basename(entry.file)])).toEqual([
      ['cli:direct', 'cli_direct.jsonl'],
      ['telegram:1', sessionFileName('telegram:1')],
    ]);
    const record = await store.load('cli:direct');
    expect(record.messages).toHaveLength(23);
    expect(record.messages[22]?.content).toBe('m 22');
    expect(await store.locate('cli:direct')).toBe(path.join(dir, 'cli_direct.jsonl'));
    expect((await readdir(dir)).sort()).toEqual(['cli_direct.jsonl', sessionFileName('telegram:1')].sort());
  });

  it("guesses a headerless legacy file's key as nanobot does (first '_' becomes ':')", async () => {
    await writeFile(path.join(dir, 'telegram_8281248569.jsonl'), nanobotFile(undefined, texts(3, 'x')));
    const store = new JsonlSessionStore({ dir });
    expect((await store.list()).map((entry) => entry.key)).toEqual(['telegram:8281248569']);
    expect((await store.load('telegram:8281248569')).messages).toHaveLength(3);
  });

  it('loads a legacy file only for the key its metadata record names (a:b and a_b share a_b.jsonl)', async () => {
    await writeFile(path.join(dir, 'a_b.jsonl'), nanobotFile('a_b', texts(1, 'underscore')));
    const store = new JsonlSessionStore({ dir });
    expect((await store.load('a:b')).exists).toBe(false);
    expect((await store.load('a_b')).messages.map((message) => message.content)).toEqual(['underscore 0']);
  });

  it('moves a legacy file to its current name on the first write, keeping its bytes, as nanobot migrates it', async () => {
    const legacy = nanobotFile('cli:direct', texts(3, 'm'));
    await writeFile(path.join(dir, 'cli_direct.jsonl'), legacy);
    const store = new JsonlSessionStore({ dir });
    await store.append('cli:direct', [user('new', { id: 'n' })]);
    expect(await readdir(dir)).toEqual([sessionFileName('cli:direct')]);
    const migrated = await readFile(store.filePath('cli:direct'), 'utf8');
    expect(migrated.startsWith(legacy)).toBe(true);
    expect((await store.load('cli:direct')).messages.map((message) => message.content)).toEqual([
      'm 0',
      'm 1',
      'm 2',
      'new',
    ]);
  });

  it('prefers the current name when both exist, and says the legacy copy is not used', async () => {
    await writeFile(path.join(dir, 'cli_direct.jsonl'), nanobotFile('cli:direct', texts(1, 'old')));
    await writeFile(store().filePath('cli:direct'), nanobotFile('cli:direct', texts(2, 'new')));
    const [entry] = await store().list();
    expect(entry?.file).toBe(store().filePath('cli:direct'));
    expect(entry?.warnings).toEqual([
      `Another copy of this session, ${path.join(dir, 'cli_direct.jsonl')}, is not used.`,
    ]);
    expect((await store().load('cli:direct')).messages).toHaveLength(2);
  });

  it('reads legacy folders after its own, moves their sessions in on write, and deletes every copy', async () => {
    const flat = path.join(root, 'flat');
    await mkdir(flat);
    await writeFile(path.join(flat, 'cron_daily.jsonl'), nanobotFile('cron:daily', texts(2, 'c')));
    await writeFile(path.join(flat, sessionFileName('heartbeat')), nanobotFile('heartbeat', texts(1, 'h')));
    const withLegacy = new JsonlSessionStore({ dir, legacyDirs: [flat] });
    expect((await withLegacy.list()).map((entry) => entry.key)).toEqual(['cron:daily', 'heartbeat']);
    expect((await withLegacy.load('cron:daily')).messages).toHaveLength(2);
    await withLegacy.setMetadata('cron:daily', { title: 'daily' });
    expect(await readdir(flat)).toEqual([sessionFileName('heartbeat')]);
    expect(await readdir(dir)).toEqual([sessionFileName('cron:daily')]);
    expect((await withLegacy.load('cron:daily')).metadata).toEqual({ title: 'daily' });
    await writeFile(path.join(flat, 'heartbeat.jsonl'), nanobotFile('heartbeat', texts(1, 'older')));
    expect(await withLegacy.delete('heartbeat')).toBe(true);
    expect(await readdir(flat)).toEqual([]);
    expect((await withLegacy.load('heartbeat')).exists).toBe(false);
  });
});

function store(): JsonlSessionStore {
  return new JsonlSessionStore({ dir });
}
