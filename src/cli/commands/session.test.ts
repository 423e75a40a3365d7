import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import { SqliteSessionStore } from '../../index.js';
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
  it('lists and shows the sessions of a workspace', async () => {
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

  it('imports a nanobot sessions folder into SQLite, with progress on stderr', async () => {
    const io = memoryIo(dir);
    expect(await main(['session', 'import', 'ws/sessions', '--sqlite', 'db.sqlite'], io)).toBe(0);
    expect(io.out()).toBe('Imported 1 of 1 session.\n');
    expect(io.err()).toContain('[1/1] imported telegram:8281248569 (11 messages)');
    const store = new SqliteSessionStore({ path: path.join(dir, 'db.sqlite') });
    const record = await store.load('telegram:8281248569');
    await store.close();
    expect(record.messages).toHaveLength(11);
    expect(record.lastConsolidated).toBe(4);
    expect(record.metadata['title']).toBe('Trip');
    const again = memoryIo(dir);
    await main(['session', 'import', `ws/sessions/${FILE}`, '--sqlite', 'db.sqlite'], again);
    expect(again.err()).toContain('skipped telegram:8281248569');
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
