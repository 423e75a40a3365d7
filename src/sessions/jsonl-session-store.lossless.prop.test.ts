import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { JsonlSessionStore } from './jsonl-session-store.js';
import { fromNanobotDict, toNanobotDict } from './nanobot-message.js';
import { sessionFileName } from './session-file-name.js';

/** JSON as Python's `json.dumps(value, ensure_ascii=False)` writes it (nanobot's own lines): `", "` and `": "`. */
function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.entries(value)
      .map(([key, field]) => `${JSON.stringify(key)}: ${pythonJson(field)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}

const unknownKeys = fc.dictionary(
  fc.constantFrom(
    'media',
    '_command',
    'latency_ms',
    'sender_id',
    'subagent_task_id',
    'x_vendor',
    '_channel_delivery',
  ),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 2 },
);
const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text }, { requiredKeys: ['type', 'text'] }),
  fc.record({ type: fc.constant('text'), text, cache_control: fc.constant({ type: 'ephemeral' }) }),
  fc.record({
    type: fc.constant('image_url'),
    image_url: fc.oneof(
      fc.record({ url: fc.constant('https://example.test/a.png') }),
      fc.record({
        url: fc.constant('https://example.test/a.png'),
        detail: fc.constantFrom('low', 'high', 'auto'),
      }),
    ),
    _meta: fc.constant({ path: '/home/u/a.png' }),
  }),
);
const toolCall = fc.record(
  {
    id: fc.constantFrom('call_1', 'call_2', 'toolu_9'),
    type: fc.constant('function'),
    function: fc.record({ name: fc.constantFrom('read_file', 'exec'), arguments: fc.json({ maxDepth: 1 }) }),
    index: fc.nat(3),
    extra_content: fc.constant({ google: { thought_signature: 'c2ln' } }),
  },
  { requiredKeys: ['id', 'type', 'function'] },
);
const messageDict = fc
  .record(
    {
      role: fc.constantFrom('user', 'assistant', 'tool', 'system'),
      content: fc.oneof(text, fc.constant(null), fc.array(block, { maxLength: 3 })),
      timestamp: fc.constantFrom('2026-03-01T09:00:00.000000', '2026-03-01T09:00:05.123456'),
      tool_calls: fc.array(toolCall, { minLength: 1, maxLength: 2 }),
      tool_call_id: fc.constantFrom('call_1', 'call_2'),
      name: fc.constantFrom('read_file', 'bot'),
      reasoning_content: fc.oneof(text, fc.constant(null)),
      thinking_blocks: fc.constant([{ type: 'thinking', thinking: 'hm', signature: 'sig' }]),
    },
    { requiredKeys: ['role', 'content', 'timestamp'] },
  )
  .chain((dict) => unknownKeys.map((extra) => ({ ...extra, ...dict })));
const sessionLines = fc.record({
  messages: fc.array(messageDict, { minLength: 1, maxLength: 12 }),
  pythonStyle: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
  providerState: fc.boolean(),
  corruptAt: fc.option(fc.nat(11), { nil: undefined }),
});

type Session = typeof sessionLines extends fc.Arbitrary<infer T> ? T : never;

let dir: string;
let round = 0;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-lossless-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes a nanobot-shaped session file; returns its message lines as written. */
async function writeSession(session: Session): Promise<{ key: string; file: string; lines: string[] }> {
  round += 1;
  const key = `cli:${round}`;
  const file = path.join(dir, sessionFileName(key));
  const lines = session.messages.map((dict, index) =>
    session.pythonStyle[index] === true ? pythonJson(dict) : JSON.stringify(dict),
  );
  const header = pythonJson({
    _type: 'metadata',
    key,
    created_at: '2026-03-01T09:00:00',
    metadata: {},
    last_consolidated: 0,
  });
  const state = session.providerState
    ? [pythonJson({ _type: 'provider_state', state: { previous_response_id: 'r' } })]
    : [];
  const body = [...lines];
  if (session.corruptAt !== undefined)
    body.splice(Math.min(session.corruptAt, body.length), 0, '{"role": "user", "content": "tor');
  await writeFile(file, `${[header, ...state, ...body].join('\n')}\n`);
  return { key, file, lines };
}

async function messageLines(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line !== '' && !line.includes('"_type"'));
}

describe('lossless JSONL rewrites', () => {
  test.prop([sessionLines], { numRuns: 60 })(
    'metadata, archive-pointer and repair rewrites keep every message line byte for byte',
    async (session) => {
      const { key, file, lines } = await writeSession(session);
      const store = new JsonlSessionStore({ dir });
      await store.setMetadata(key, { title: 'x' });
      expect(await messageLines(file)).toEqual(lines);
      await store.setLastConsolidated(key, 1);
      await store.repair(key);
      expect(await messageLines(file)).toEqual(lines);
    },
  );

  test.prop([sessionLines, fc.nat(12)], { numRuns: 60 })(
    'rewriting the loaded messages (or a suffix of them) keeps their lines byte for byte',
    async (session, drop) => {
      const { key, file, lines } = await writeSession(session);
      const store = new JsonlSessionStore({ dir });
      const { messages } = await store.load(key);
      await store.rewrite(key, { messages });
      expect(await messageLines(file)).toEqual(lines);
      await store.rewrite(key, { messages: (await store.load(key)).messages.slice(drop) });
      expect(await messageLines(file)).toEqual(lines.slice(drop));
    },
  );

  test.prop([messageDict])('a converted message writes back every field it was read with', (generated) => {
    const dict: unknown = JSON.parse(JSON.stringify(generated));
    const message = fromNanobotDict(dict, 'id-1');
    if (typeof message === 'string') throw new Error(message);
    expect(toNanobotDict(message)).toEqual({ ...(dict as object), id: 'id-1' });
    expect(fromNanobotDict(JSON.parse(JSON.stringify(toNanobotDict(message))), 'other')).toEqual(message);
  });
});
