import { copyFile, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { user } from '../core/factories.js';
import { getHistory } from './get-history.js';
import { JsonlSessionStore } from './jsonl-session-store.js';

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
  it('loads the file as it is, skipping and keeping aside corrupt lines', async () => {
    const original = await readFile(path.join(dir, FILE), 'utf8');
    const store = new JsonlSessionStore({ dir });
    const record = await store.load(KEY);
    expect(record.messages).toHaveLength(11);
    expect(record.warnings).toHaveLength(3);
    expect(record.warnings[0]).toMatch(/line 7 skipped \(not valid JSON/);
    expect(record.warnings[2]).toMatch(/line 15 skipped \(unknown role "robot"\)/);
    expect(record.lastConsolidated).toBe(4);
    expect(record.metadata['title']).toBe('Trip');
    expect(record.createdAt).toBe('2026-03-01T09:00:00.000000');
    expect(record.updatedAt).toBe('2026-03-01T09:03:05.000000');
    const corrupt = await readFile(path.join(dir, `${FILE}.corrupt`), 'utf8');
    expect(corrupt).toBe(
      '{"role": "user", "content": "torn line without end\n[1, 2, 3]\n{"role": "robot", "content": "unknown role", "timestamp": "2026-03-01T09:03:03.000000"}\n',
    );
    expect(original).toContain('torn line without end');
    const again = await store.load(KEY);
    expect(again.warnings).toEqual([]);
    expect(again.messages).toEqual(record.messages);
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

  it('keeps every nanobot field and the provider state through a rewrite', async () => {
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

  it('starts a new line after a torn tail, losing only the torn fragment', async () => {
    const store = new JsonlSessionStore({ dir });
    await store.append('k', [user('a', { id: 'a' })]);
    const file = store.filePath('k');
    await writeFile(file, `${await readFile(file, 'utf8')}{"role": "user", "content": "to`);
    await store.append('k', [user('b', { id: 'b' })]);
    const record = await store.load('k');
    expect(record.messages.map((message) => message.id)).toEqual(['a', 'b']);
    expect(record.warnings).toHaveLength(1);
    expect(await readFile(`${file}.corrupt`, 'utf8')).toBe('{"role": "user", "content": "to\n');
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

  it('lists the nanobot session with its key from the metadata record', async () => {
    const store = new JsonlSessionStore({ dir });
    expect(await store.list()).toEqual([
      {
        key: KEY,
        messageCount: 11,
        createdAt: '2026-03-01T09:00:00.000000',
        updatedAt: '2026-03-01T09:03:05.000000',
      },
    ]);
  });
});
