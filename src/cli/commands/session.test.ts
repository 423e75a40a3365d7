import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import { JsonlSessionStore, SqliteSessionStore } from '../../index.js';
import { main } from '../main.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/nanobot-sessions/', import.meta.url));
const FILE = 'dGVsZWdyYW06ODI4MTI0ODU2OQ.jsonl';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-cli-session-'));
  await mkdir(path.join(dir, 'ws', 'sessions'), { recursive: true });
  await copyFile(path.join(FIXTURES, FILE), path.join(dir, 'ws', 'sessions', FILE));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ctxloom session', () => {
  it('lists and shows the sessions of a workspace, changing no file (even with corrupt lines)', async () => {
    const before = await snapshotTree(path.join(dir, 'ws'));
    const io = memoryIo(dir);
    expect(await main(['session', 'list', '--workspace', 'ws'], io)).toBe(0);
    expect(io.out()).toMatch(/^telegram:8281248569\t2\.4 KiB\tupdated 2026-03-01T09:03:05/);
    const show = memoryIo(dir);
    expect(
      await main(
        ['session', 'show', 'telegram:8281248569', '--workspace', 'ws', '--replay', '--public'],
        show,
      ),
    ).toBe(0);
    expect(show.out()).toContain("[user] Next Friday. What's the weather?\n");
    expect(show.out()).toContain('[assistant] → weather({"city": "Kyoto"}) \n');
    expect(show.err()).toContain('line 7 skipped');
    expect(await snapshotTree(path.join(dir, 'ws'))).toEqual(before);
  });

  it('appends text and message files, coercing loose input', async () => {
    const io = memoryIo(dir);
    expect(
      await main(['session', 'append', 'cli:x', '--sessions', 'ws/sessions', 'hello', 'there'], io),
    ).toBe(0);
    await writeFile(
      path.join(dir, 'm.jsonl'),
      '{"role":"assistant","content":"hi!"}\n{"type":"human","content":"bye"}\n',
    );
    expect(
      await main(['session', 'append', 'cli:x', '--sessions', 'ws/sessions', '--file', 'm.jsonl'], io),
    ).toBe(0);
    const json = memoryIo(dir);
    await main(['session', 'show', 'cli:x', '--sessions', 'ws/sessions', '--json'], json);
    const record = JSON.parse(json.out()) as { messages: { role: string; content: string }[] };
    expect(record.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'hello there'],
      ['assistant', 'hi!'],
      ['user', 'bye'],
    ]);
  });

  it('appends JSON lines from standard input', async () => {
    const io = {
      ...memoryIo(dir),
      stdin: (async function* () {
        yield '{"role":"user","content":"from stdin"}\n';
        yield Buffer.from('{"role":"assistant","content":"ok"}\n');
      })(),
    };
    expect(await main(['session', 'append', 'cli:in', '--workspace', 'ws', '--file', '-'], io)).toBe(0);
    expect(io.out()).toBe('Appended 2 messages to cli:in.\n');
  });

  it('rejects an invalid strict append with the field path and exit code 2', async () => {
    await writeFile(
      path.join(dir, 'bad.json'),
      '[{"role":"user","content":"ok"},{"role":"tool","content":"x"}]',
    );
    const io = memoryIo(dir);
    expect(
      await main(['session', 'append', 'k', '--workspace', 'ws', '--file', 'bad.json', '--strict'], io),
    ).toBe(2);
    expect(io.err()).toContain('INVALID_INPUT: Invalid message at input[1].toolCallId');
  });

  it('imports a nanobot sessions folder into SQLite whole, refusing a session with unreadable lines', async () => {
    const refused = memoryIo(dir);
    expect(await main(['session', 'import', 'ws/sessions', '--sqlite', 'db.sqlite'], refused)).toBe(4);
    expect(refused.out()).toBe('Imported 0 of 1 session.\n');
    expect(refused.err()).toContain(
      'telegram:8281248569 (' +
        path.join(dir, 'ws', 'sessions', FILE) +
        ') has 3 unreadable lines (line 7: not valid JSON, line 11: not a JSON object',
    );
    expect(refused.err()).toContain('STORE_CORRUPT: 1 session was not imported');
    expect(refused.err()).toContain("'ctxloom session repair KEY --sessions DIR'");
    const io = memoryIo(dir);
    expect(
      await main(['session', 'import', 'ws/sessions', '--sqlite', 'db.sqlite', '--skip-unreadable'], io),
    ).toBe(0);
    expect(io.out()).toBe('Imported 1 of 1 session.\n');
    expect(io.err()).toContain('[1/1] imported telegram:8281248569 (11 messages)');
    const store = new SqliteSessionStore({ path: path.join(dir, 'db.sqlite') });
    const record = await store.load('telegram:8281248569');
    await store.close();
    expect(record.messages).toHaveLength(11);
    expect(record.lastConsolidated).toBe(4);
    expect(record.metadata['title']).toBe('Trip');
    const again = memoryIo(dir);
    await main(
      ['session', 'import', `ws/sessions/${FILE}`, '--sqlite', 'db.sqlite', '--skip-unreadable'],
      again,
    );
    expect(again.err()).toContain('skipped telegram:8281248569');
  });

  it('repairs a JSONL session on request, and only JSONL ones', async () => {
    const io = memoryIo(dir);
    expect(await main(['session', 'repair', 'telegram:8281248569', '--workspace', 'ws'], io)).toBe(0);
    expect(io.out()).toBe(
      `Moved 3 unreadable lines of telegram:8281248569 to ${path.join(dir, 'ws', 'sessions', FILE)}.corrupt.\n`,
    );
    const again = memoryIo(dir);
    await main(['session', 'repair', 'telegram:8281248569', '--workspace', 'ws'], again);
    expect(again.out()).toBe('Nothing to repair in telegram:8281248569.\n');
    const show = memoryIo(dir);
    await main(['session', 'show', 'telegram:8281248569', '--workspace', 'ws'], show);
    expect(show.err()).toBe('');
    const sqlite = memoryIo(dir);
    expect(await main(['session', 'repair', 'k', '--sqlite', 'db.sqlite'], sqlite)).toBe(2);
    expect(sqlite.err()).toContain('session repair works on JSONL session folders');
    expect(await main(['session', 'repair', 'nobody', '--workspace', 'ws'], memoryIo(dir))).toBe(2);
  });

  it('reports usage errors with exit code 2', async () => {
    const io = memoryIo(dir);
    expect(await main(['session', 'show', '--workspace', 'ws'], io)).toBe(2);
    expect(await main(['session', 'list', '--bogus'], io)).toBe(2);
    expect(await main(['session', 'list', '--sqlite', 'a', '--pg', 'b'], io)).toBe(2);
    expect(await main(['session', 'show', 'missing', '--workspace', 'ws'], io)).toBe(2);
    expect(io.err()).toContain('Give only one of --sessions, --sqlite, --pg');
  });
});

describe('ctxloom session on a nanobot install (current and legacy layouts)', () => {
  const INSTALL = fileURLToPath(new URL('../../../test/fixtures/nanobot-install/', import.meta.url));
  const KEYS = ['cli:direct', 'cli:huge', 'cron:doctor', 'heartbeat', 'telegram:8281248569'];
  const COUNTS = {
    'cli:direct': 23,
    'cli:huge': 40,
    'cron:doctor': 3,
    heartbeat: 4,
    'telegram:8281248569': 12,
  };
  const nanobot = ['--workspace', 'install/workspace', '--nanobot-config', 'install/config'];

  beforeEach(async () => {
    await cp(INSTALL, path.join(dir, 'install'), { recursive: true });
    const namespace = path.join(dir, 'install', 'config', 'sessions', '3f2a9c1e8b7d4a6f9e0c1b2a3d4e5f60');
    await writeFile(path.join(namespace, '.workspace'), `${path.join(dir, 'install', 'workspace')}\n`);
  });

  it("lists, shows and imports every session with every message kept, changing nothing in nanobot's folders", async () => {
    const before = await snapshotTree(path.join(dir, 'install'));
    const list = memoryIo(dir);
    expect(await main(['session', 'list', ...nanobot], list), list.err()).toBe(0);
    expect(
      list
        .out()
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('\t')[0]),
    ).toEqual(KEYS);
    expect(list.err()).toBe('');
    const show = memoryIo(dir);
    expect(await main(['session', 'show', 'cli:direct', ...nanobot], show)).toBe(0);
    expect(show.out()).toMatch(/^cli:direct: 23 messages, lastConsolidated 10, updated 2026-05-01T08:00:22/);
    expect(show.out()).toContain('[user] cli question 0 — ünïcode ✓ 中文\n');
    expect(show.out()).toContain('[assistant] → read_file({"path": "notes/1.md"}) \n');
    const imported = memoryIo(dir);
    expect(await main(['session', 'import', ...nanobot, '--sqlite', 'all.db'], imported)).toBe(0);
    expect(imported.out()).toBe('Imported 5 of 5 sessions.\n');
    expect(await snapshotTree(path.join(dir, 'install'))).toEqual(before);
    const source = new JsonlSessionStore({
      dir: path.join(dir, 'install', 'config', 'sessions', '3f2a9c1e8b7d4a6f9e0c1b2a3d4e5f60'),
      legacyDirs: [
        path.join(dir, 'install', 'config', 'sessions'),
        path.join(dir, 'install', 'workspace', 'sessions'),
      ],
    });
    const target = new SqliteSessionStore({ path: path.join(dir, 'all.db') });
    for (const key of KEYS) {
      const [from, to] = [await source.load(key), await target.load(key)];
      expect(from.messages).toHaveLength(COUNTS[key as keyof typeof COUNTS]);
      expect(to.messages).toEqual(from.messages);
      expect([to.metadata, to.lastConsolidated]).toEqual([from.metadata, from.lastConsolidated]);
    }
    await target.close();
  });

  it('builds, inspects and reports memory from the same nanobot folder, writing nothing there', async () => {
    const before = await snapshotTree(path.join(dir, 'install'));
    const inspected = memoryIo(dir);
    expect(
      await main(['inspect', ...nanobot, '--session', 'cli:direct', '--json'], inspected),
      inspected.err(),
    ).toBe(0);
    const report = JSON.parse(inspected.out()) as { sessionKey?: string; sections: readonly unknown[] };
    expect(report.sections.length).toBeGreaterThan(0);
    const built = memoryIo(dir);
    expect(
      await main(
        ['build', ...nanobot, '--preset', 'agent', '--session', 'cli:direct', '--json', 'Next?'],
        built,
      ),
      built.err(),
    ).toBe(0);
    const sent = JSON.parse(built.out()) as { messages: readonly { content: unknown }[] };
    expect(JSON.stringify(sent.messages)).toContain('cli question 20');
    const status = memoryIo(dir);
    expect(await main(['memory', 'status', ...nanobot, '--json'], status), status.err()).toBe(0);
    expect(await snapshotTree(path.join(dir, 'install'))).toEqual(before);
  });

  it('imports one legacy-named file (cli_huge.jsonl) and a folder of them', async () => {
    const one = memoryIo(dir);
    expect(
      await main(
        ['session', 'import', 'install/workspace/sessions/cli_huge.jsonl', '--sqlite', 'one.db'],
        one,
      ),
    ).toBe(0);
    expect(one.out()).toBe('Imported 1 of 1 session.\n');
    expect(one.err()).toContain('imported cli:huge (40 messages)');
    const folder = memoryIo(dir);
    const namespace = 'install/config/sessions/3f2a9c1e8b7d4a6f9e0c1b2a3d4e5f60';
    expect(await main(['session', 'import', namespace, '--sqlite', 'folder.db'], folder)).toBe(0);
    expect(folder.err()).toContain('imported cli:direct (23 messages)');
    expect(folder.out()).toBe('Imported 3 of 3 sessions.\n');
  });

  it('ends an import whose target cannot open with the store error, not as a bad source file', async () => {
    await mkdir(path.join(dir, 'target.db'));
    const io = memoryIo(dir);
    expect(
      await main(
        ['session', 'import', 'install/workspace/sessions/cli_huge.jsonl', '--sqlite', 'target.db'],
        io,
      ),
    ).toBe(4);
    expect(io.err()).toMatch(/^STORE_UNAVAILABLE: SQLite session store open failed on .*target\.db/m);
    expect(io.err()).not.toContain('fix the file');
  });

  it('says why when nanobot has no session folder for the workspace', async () => {
    await rm(path.join(dir, 'install', 'workspace', '.nanobot', 'workspace-id'));
    await rm(
      path.join(dir, 'install', 'config', 'sessions', '3f2a9c1e8b7d4a6f9e0c1b2a3d4e5f60', '.workspace'),
    );
    const io = memoryIo(dir);
    expect(await main(['session', 'list', ...nanobot], io)).toBe(2);
    expect(io.err()).toMatch(
      /NOT_FOUND: nanobot has not created a session folder for .* Older sessions are in/,
    );
  });
});

/** Every file under a folder with its bytes. */
async function snapshotTree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(root, file)] = (await readFile(file)).toString('base64');
  }
  return out;
}
