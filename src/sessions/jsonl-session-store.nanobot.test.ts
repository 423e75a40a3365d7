import {
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { user } from '../core/factories.js';
import { getHistory } from './get-history.js';
import { JsonlSessionStore } from './jsonl-session-store.js';
import { sessionFileName } from './session-file-name.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/nanobot-sessions/', import.meta.url));
const KEY = 'telegram:8281248569';
const FILE = 'dGVsZWdyYW06ODI4MTI0ODU2OQ.jsonl';
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-nanobot-'));
  await copyFile(path.join(FIXTURES, FILE), path.join(dir, FILE));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('JsonlSessionStore on a nanobot session file', () => {
  it('loads the file as it is, reporting corrupt lines without touching the folder', async () => {
    const file = path.join(dir, FILE);
    const before = await snapshot(dir);
    const store = new JsonlSessionStore({ dir });
    const record = await store.load(KEY);
    expect(record.messages).toHaveLength(11);
    expect(record.warnings).toHaveLength(3);
    expect(record.warnings[0]).toMatch(/line 7 skipped \(not valid JSON\); .* is unchanged/);
    expect(record.warnings[2]).toMatch(/line 15 skipped \(unknown role "robot"\)/);
    expect(record.warnings[0]).toContain(`${file}.corrupt`);
    expect(record.lastConsolidated).toBe(4);
    expect(record.metadata['title']).toBe('Trip');
    expect(record.createdAt).toBe('2026-03-01T09:00:00.000000');
    expect(record.updatedAt).toBe('2026-03-01T09:03:05.000000');
    await store.list();
    const again = await store.load(KEY);
    expect(again.warnings).toEqual(record.warnings);
    expect(again.messages).toEqual(record.messages);
    expect(await snapshot(dir)).toEqual(before);
  });

  it('repairs on request: unreadable lines go to .corrupt with their bytes, the rest stays byte for byte', async () => {
    const file = path.join(dir, FILE);
    const original = await readFile(file);
    const store = new JsonlSessionStore({ dir });
    expect(await store.repair(KEY)).toEqual({ movedLines: 3, corruptFile: `${file}.corrupt` });
    const lines = splitLines(original);
    expect(await readFile(`${file}.corrupt`)).toEqual(
      Buffer.concat([lines[6], lines[10], lines[14]].map(withNewline)),
    );
    const kept = lines.filter((_, index) => ![6, 10, 14].includes(index));
    expect(await readFile(file)).toEqual(Buffer.concat(kept.map(withNewline)));
    const record = await store.load(KEY);
    expect(record.warnings).toEqual([]);
    expect(record.messages).toHaveLength(11);
    expect((await store.repair(KEY)).movedLines).toBe(0);
    expect(await readFile(`${file}.corrupt`)).toHaveLength(
      Buffer.concat([lines[6], lines[10], lines[14]].map(withNewline)).length,
    );
  });

  it('keeps every line byte for byte through a metadata rewrite, moving only the corrupt ones', async () => {
    const file = path.join(dir, FILE);
    const lines = splitLines(await readFile(file));
    const store = new JsonlSessionStore({ dir, now: () => new Date('2026-04-01T00:00:00Z') });
    await store.setMetadata(KEY, { title: 'Kyoto' });
    const after = splitLines(await readFile(file));
    expect(JSON.parse(after[0]?.toString() ?? '')).toEqual({
      _type: 'metadata',
      key: KEY,
      created_at: '2026-03-01T09:00:00.000000',
      updated_at: '2026-04-01T00:00:00.000Z',
      metadata: {
        _last_summary: { text: '- [durable] User plans a trip to Kyoto', last_active: '2026-03-01T09:30:00' },
        title: 'Kyoto',
      },
      last_consolidated: 4,
    });
    expect(after.slice(1)).toEqual(lines.filter((_, index) => index > 0 && ![6, 10, 14].includes(index)));
    expect((await readFile(`${file}.corrupt`, 'utf8')).split('\n')).toHaveLength(4);
  });

  it('drops the provider state when the archive pointer advances or the messages are rewritten, as nanobot does', async () => {
    const file = path.join(dir, FILE);
    const store = new JsonlSessionStore({ dir });
    const hasState = async () => (await readFile(file, 'utf8')).includes('"_type": "provider_state"');
    await store.setLastConsolidated(KEY, 4);
    expect(await hasState()).toBe(true);
    await store.setLastConsolidated(KEY, 2);
    expect(await hasState()).toBe(true);
    await store.setLastConsolidated(KEY, 6);
    expect(await hasState()).toBe(false);
    await copyFile(path.join(FIXTURES, FILE), file);
    const { messages } = await store.load(KEY);
    await store.rewrite(KEY, { messages: messages.slice(2) });
    expect(await hasState()).toBe(false);
  });

  it('maps nanobot fields onto messages and keeps the rest', async () => {
    const store = new JsonlSessionStore({ dir });
    const { messages } = await store.load(KEY);
    const call = messages[5];
    expect(call).toMatchObject({
      role: 'assistant',
      content: '',
      reasoning: 'Need the weather tool.',
      toolCalls: [{ id: 'call_w1', name: 'weather', arguments: '{"city": "Kyoto"}' }],
    });
    expect(messages[6]).toMatchObject({
      role: 'tool',
      toolCallId: 'call_w1',
      name: 'weather',
      content: 'Sunny, 18°C',
    });
    expect(messages[10]?.content).toEqual([
      { type: 'text', text: 'Got the ticket.' },
      { type: 'image', url: 'https://example.test/ticket.jpg', path: '/home/u/ticket.jpg' },
    ]);
    expect(messages[8]?.metadata?.['nanobot']).toEqual({
      media: ['/home/u/.nanobot/media/ticket.jpg'],
      sender_id: '8281248569',
    });
  });

  it('keeps every nanobot field and the provider state through a metadata change', async () => {
    const store = new JsonlSessionStore({ dir });
    await store.setMetadata(KEY, { title: 'Kyoto' });
    const lines = (await readFile(path.join(dir, FILE), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({
      _type: 'metadata',
      key: KEY,
      metadata: { title: 'Kyoto' },
      last_consolidated: 4,
    });
    expect(lines[1]).toEqual({ _type: 'provider_state', state: { previous_response_id: 'resp_123' } });
    expect(lines[3]).toMatchObject({ role: 'assistant', latency_ms: 1200 });
    expect(lines[4]).toMatchObject({ _command: true });
    expect(lines[7]).toMatchObject({
      tool_calls: [
        { id: 'call_w1', type: 'function', function: { name: 'weather', arguments: '{"city": "Kyoto"}' } },
      ],
    });
    expect(lines[12]).toMatchObject({
      thinking_blocks: [{ type: 'thinking', thinking: 'ok', signature: 'sig' }],
    });
    expect(lines[12].content[1]).toEqual({
      type: 'image_url',
      image_url: { url: 'https://example.test/ticket.jpg' },
      _meta: { path: '/home/u/ticket.jpg' },
    });
  });

  it('replays the session with nanobot rules', async () => {
    const store = new JsonlSessionStore({ dir });
    const record = await store.load(KEY);
    const replay = getHistory(record);
    expect(replay.map((message) => [message.role, message.content])).toEqual([
      ['user', expect.stringMatching(/^Next Friday\. What's the weather\?\n\n\[Runtime Context/)],
      ['assistant', ''],
      ['tool', 'Sunny, 18°C'],
      ['assistant', 'It will be sunny, 18°C.'],
      ['user', 'Here is my ticket\n[image: /home/u/.nanobot/media/ticket.jpg]'],
      ['assistant', expect.any(Array)],
    ]);
    expect(replay[5]?.metadata).toEqual({
      thinkingBlocks: [{ type: 'thinking', thinking: 'ok', signature: 'sig' }],
    });
    const publicView = getHistory(record, { includeRuntimeContext: false });
    expect(publicView[0]?.content).toBe("Next Friday. What's the weather?");
    expect(publicView[0]?.metadata).toBeUndefined();
  });

  it('appends without rewriting the existing bytes', async () => {
    const store = new JsonlSessionStore({ dir });
    await store.load(KEY);
    const file = path.join(dir, FILE);
    const before = await readFile(file, 'utf8');
    const inode = (await stat(file)).ino;
    await store.append(KEY, [user('one more', { id: 'x1' })]);
    const after = await readFile(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect((await stat(file)).ino).toBe(inode);
    expect(JSON.parse(after.trim().split('\n').at(-1) ?? '')).toMatchObject({
      role: 'user',
      content: 'one more',
      id: 'x1',
    });
  });

  it('starts a new line after a torn tail, losing only the torn fragment (kept until a repair)', async () => {
    const store = new JsonlSessionStore({ dir });
    await store.append('k', [user('a', { id: 'a' })]);
    const file = store.filePath('k');
    await writeFile(file, `${await readFile(file, 'utf8')}{"role": "user", "content": "to`);
    expect((await store.load('k')).warnings[0]).toMatch(/line 3 skipped \(not valid JSON; a torn last line/);
    await store.append('k', [user('b', { id: 'b' })]);
    const record = await store.load('k');
    expect(record.messages.map((message) => message.id)).toEqual(['a', 'b']);
    expect(record.warnings).toHaveLength(1);
    expect(await store.repair('k')).toMatchObject({ movedLines: 1 });
    expect(await readFile(`${file}.corrupt`, 'utf8')).toBe('{"role": "user", "content": "to\n');
    expect((await store.load('k')).warnings).toEqual([]);
  });

  it('keeps invalid UTF-8 as bytes: in .corrupt for a corrupt line, and in place for a valid line', async () => {
    const store = new JsonlSessionStore({ dir });
    const header = Buffer.from('{"_type": "metadata", "key": "bin", "metadata": {}, "last_consolidated": 0}');
    const valid = Buffer.concat([
      Buffer.from('{"role": "user", "content": "caf'),
      Buffer.from([0xe9, 0xff]),
      Buffer.from('", "timestamp": "2026-03-01T09:00:00"}'),
    ]);
    const corrupt = Buffer.concat([
      Buffer.from('{"role": "user", "content": "x'),
      Buffer.from([0xc3, 0x28, 0xa0]),
    ]);
    await writeFile(
      path.join(dir, sessionFileName('bin')),
      Buffer.concat([header, NL, valid, NL, corrupt, NL]),
    );
    const record = await store.load('bin');
    expect(record.messages.map((message) => message.content)).toEqual(['caf\ufffd\ufffd']);
    expect(record.warnings[0]).toMatch(/line 2 holds bytes that are not UTF-8; it loads with U\+FFFD/);
    expect(record.warnings[1]).toMatch(/line 3 skipped \(not valid JSON\)/);
    await store.setLastConsolidated('bin', 1);
    const [, kept] = splitLines(await readFile(path.join(dir, sessionFileName('bin'))));
    expect(kept).toEqual(valid);
    expect(await readFile(`${path.join(dir, sessionFileName('bin'))}.corrupt`)).toEqual(withNewline(corrupt));
    await store.rewrite('bin', { messages: (await store.load('bin')).messages });
    expect(splitLines(await readFile(path.join(dir, sessionFileName('bin'))))[1]).toEqual(valid);
  });

  it("removes its own stale temp files on the next rewrite, never nanobot's or a live writer's", async () => {
    const store = new JsonlSessionStore({ dir });
    const dead = path.join(dir, `.${FILE}.ctxloom-999999999-0123456789abcdef.tmp`);
    const live = path.join(dir, `.${FILE}.ctxloom-${process.pid}-0123456789abcdef.tmp`);
    const nanobots = path.join(dir, `.${FILE}.0123456789abcdef.tmp`);
    const young = path.join(dir, `.${FILE}.ctxloom-999999998-0123456789abcdef.tmp`);
    for (const temp of [dead, live, nanobots, young]) await writeFile(temp, 'x'.repeat(1000));
    const tenMinutesAgo = new Date(performance.timeOrigin + performance.now() - 600_000);
    for (const temp of [dead, live, nanobots]) await utimes(temp, tenMinutesAgo, tenMinutesAgo);
    await store.setMetadata(KEY, { title: 'x' });
    const names = await readdir(dir);
    expect(names).not.toContain(path.basename(dead));
    expect(names).toEqual(expect.arrayContaining([live, nanobots, young].map((temp) => path.basename(temp))));
  });

  it('stores hostile keys as base64url names inside the folder', async () => {
    const store = new JsonlSessionStore({ dir: path.join(dir, 'sessions') });
    await store.append('../../escape', [user('x', { id: 'x' })]);
    expect(await readdir(path.join(dir, 'sessions'))).toEqual(['Li4vLi4vZXNjYXBl.jsonl']);
    expect((await store.list()).map((entry) => entry.key)).toEqual(['../../escape']);
  });

  it("puts a workspace's sessions in <workspace>/sessions", () => {
    expect(JsonlSessionStore.forWorkspace('/ws').dir).toBe(path.resolve('/ws/sessions'));
  });

  it('lists the nanobot session from its first and last lines, with its key from the metadata record', async () => {
    const store = new JsonlSessionStore({ dir });
    const size = (await stat(path.join(dir, FILE))).size;
    expect(await store.list()).toEqual([
      {
        key: KEY,
        createdAt: '2026-03-01T09:00:00.000000',
        updatedAt: '2026-03-01T09:03:05.000000',
        file: path.join(dir, FILE),
        sizeBytes: size,
        warnings: [],
      },
    ]);
  });

  it('lists every readable session when one file cannot be read, reporting that one', async () => {
    await mkdir(path.join(dir, 'broken.jsonl'));
    await symlink(path.join(dir, 'gone'), path.join(dir, 'dangling.jsonl'));
    const listed = await new JsonlSessionStore({ dir }).list();
    expect(listed.map((entry) => entry.key)).toEqual(['broken', 'dangling', KEY]);
    expect(listed[0]?.warnings[0]).toMatch(/^Cannot read .*broken\.jsonl: EISDIR/);
    expect(listed[1]?.warnings[0]).toMatch(/^Cannot read .*dangling\.jsonl: ENOENT/);
    expect(listed[2]?.warnings).toEqual([]);
  });
});

const NL = Buffer.from('\n');

function withNewline(line: Buffer | undefined): Buffer {
  return Buffer.concat([line ?? Buffer.alloc(0), NL]);
}

function splitLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(0x0a, start);
    lines.push(bytes.subarray(start, end === -1 ? bytes.length : end));
    start = end === -1 ? bytes.length : end + 1;
  }
  return lines;
}

/** Every file in the folder with its bytes and mtime. */
async function snapshot(folder: string): Promise<Record<string, { bytes: string; mtimeMs: number }>> {
  const out: Record<string, { bytes: string; mtimeMs: number }> = {};
  for (const name of await readdir(folder)) {
    const file = path.join(folder, name);
    out[name] = { bytes: (await readFile(file)).toString('base64'), mtimeMs: (await stat(file)).mtimeMs };
  }
  return out;
}
