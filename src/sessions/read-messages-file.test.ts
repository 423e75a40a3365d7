import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateToolCallIntegrity } from '../index.js';
import { readMessagesFile } from './read-messages-file.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-history-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}

describe('readMessagesFile', () => {
  it('reads ctxloom messages from JSONL, skipping blank and metadata lines', async () => {
    const file = await write(
      'h.jsonl',
      [
        '{"_type":"metadata","key":"cli:direct"}',
        '{"id":"u1","role":"user","content":"hi"}',
        '',
        '{"id":"a1","role":"assistant","content":"","toolCalls":[{"id":"c1","name":"ls","arguments":"{}"}]}',
        '{"id":"t1","role":"tool","toolCallId":"c1","content":"a.txt"}',
      ].join('\n'),
    );
    const messages = await readMessagesFile(file);
    expect(messages.map((message) => message.id)).toEqual(['u1', 'a1', 't1']);
    expect(validateToolCallIntegrity(messages)).toEqual([]);
  });

  it('reads a JSON array and a { messages } object', async () => {
    const list = [{ id: 'u1', role: 'user', content: 'hi' }];
    expect(await readMessagesFile(await write('a.json', JSON.stringify(list)))).toEqual(list);
    expect(await readMessagesFile(await write('b.json', JSON.stringify({ messages: list })))).toEqual(list);
  });

  it('converts OpenAI-style entries leniently, keeping tool-call pairing', async () => {
    const file = await write(
      'openai.json',
      JSON.stringify([
        { role: 'user', content: 'list' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'a.txt' },
      ]),
    );
    const messages = await readMessagesFile(file);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[1]?.toolCalls).toEqual([{ id: 'c1', name: 'ls', arguments: '{}' }]);
    expect(messages[2]?.toolCallId).toBe('c1');
    expect(validateToolCallIntegrity(messages)).toEqual([]);
  });

  it('names the file, the line and the bad field of an invalid entry', async () => {
    const file = await write(
      'bad.jsonl',
      '{"id":"1","role":"user","content":"ok"}\n{"id":"2","role":"user","content":5}\n',
    );
    await expect(readMessagesFile(file)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/bad\.jsonl:2: not a valid message \(content: /),
    });
  });

  it('names the line of invalid JSON and rejects a JSON file that is not a list', async () => {
    const broken = await write('broken.jsonl', '{"id":"1","role":"user","content":"ok"}\n{nope\n');
    await expect(readMessagesFile(broken)).rejects.toMatchObject({
      message: expect.stringMatching(/broken\.jsonl:2: not valid JSON/),
    });
    const object = await write('object.json', '{"history": []}');
    await expect(readMessagesFile(object)).rejects.toMatchObject({
      message: expect.stringContaining(
        'expected a JSON array of messages or an object with a "messages" array',
      ),
    });
  });

  it('reports a missing file as NOT_FOUND', async () => {
    await expect(readMessagesFile(path.join(dir, 'none.jsonl'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
