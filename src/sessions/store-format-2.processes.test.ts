import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../test/helpers/canonical-json.js';
import { pgQuery, requirePostgres } from '../../test/helpers/pg-test-server.js';
import { type ProcessStoreBackend, processStoreBackends } from '../../test/helpers/process-store-backends.js';
import type { Message } from '../core/message.js';
import { richMessageArbitrary } from '../testing/message-format-2-arbitraries.js';
import { LenientMessageCoercer } from './lenient-message-coercer.js';
import { MemorySessionStore } from './memory-session-store.js';
import { MessageStore } from './message-store.js';
import { StrictMessageCoercer } from './strict-message-coercer.js';

const WORKER = fileURLToPath(new URL('../../test/fixtures/workers/session-load-worker.ts', import.meta.url));
const SCHEMA = `ctxloom_format2_${process.pid}`;
const STAMP = { timestamp: '2026-12-07T12:00:00.000000' };

/** The conversations of issue #25, as ctxloom holds them once the adapters have read them. */
const ISSUE_MESSAGES: readonly Message[] = [
  {
    id: 'sys',
    role: 'system',
    content: 'You are terse.',
    providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
    metadata: STAMP,
  },
  {
    id: 'u1',
    role: 'user',
    content: [
      {
        type: 'text',
        text: 'Search the repo.',
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
    ],
    metadata: STAMP,
  },
  {
    id: 'a1',
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Look for hits.', provider: 'anthropic', signature: 'EqQBCkYIARgCIkB' },
      { type: 'reasoning', text: '', provider: 'anthropic', redactedData: 'EmwKAhgBEgy3va3p' },
      { type: 'text', text: 'Searching.', native: { anthropic: { citations: [] } } },
    ],
    toolCalls: [
      {
        id: 'toolu_1',
        name: 'search',
        arguments: '{"q":"x"}',
        providerOptions: { openai: { itemId: 'fc_1' } },
      },
    ],
    metadata: STAMP,
  },
  {
    id: 't1',
    role: 'tool',
    toolCallId: 'toolu_1',
    name: 'search',
    content: '{"hits":3}',
    output: 'json',
    metadata: STAMP,
  },
  {
    id: 'a2',
    role: 'assistant',
    content: [
      {
        type: 'provider',
        format: 'anthropic',
        kind: 'compaction',
        value: { type: 'compaction', content: 'summary', encrypted_content: 'ZW5j', signature: 'c2ln' },
      },
      {
        type: 'reasoning',
        text: 'summary',
        provider: 'openai',
        encryptedContent: 'gAAAAB',
        providerOptions: { openai: { itemId: 'rs_1' } },
        native: { 'openai-responses': { id: 'rs_1', status: 'completed' } },
      },
      { type: 'text', text: 'Found 3.' },
    ],
    native: { 'openai-chat': { refusal: null, annotations: [] } },
    metadata: STAMP,
  },
  {
    id: 't2',
    role: 'tool',
    toolCallId: 'toolu_1',
    name: 'search',
    content: 'boom',
    output: 'error-text',
    metadata: STAMP,
  },
];

const CORPUS: readonly Message[] = [
  ...ISSUE_MESSAGES,
  ...fc.sample(richMessageArbitrary(), { numRuns: 200, seed: 25 }),
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-format2-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await pgQuery(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
});

type Backend = ProcessStoreBackend;
const BACKENDS = processStoreBackends(() => dir, SCHEMA);

function loadInNewProcess(backend: Backend, key: string): Promise<{ messages: unknown; warnings: unknown }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', WORKER, backend.name, backend.target(), key, SCHEMA],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) =>
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`worker exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout));
    }),
  );
}

describe('message format 2 across stores and processes', () => {
  it.for([...BACKENDS])(
    '$name: a fresh process loads every appended message deep-equal',
    { timeout: 120_000 },
    async (backend, context) => {
      if (backend.name === 'postgres') requirePostgres(context);
      const key = `format2:${backend.name}`;
      const store = backend.open();
      for (let start = 0; start < CORPUS.length; start += 50)
        await store.append(key, CORPUS.slice(start, start + 50));
      const sameProcess = await store.load(key);
      await store.close();
      const loaded = await loadInNewProcess(backend, key);
      expect(loaded.warnings).toEqual([]);
      expect(canonicalJson(loaded.messages)).toBe(canonicalJson(CORPUS));
      expect(canonicalJson(sameProcess.messages)).toBe(canonicalJson(CORPUS));
    },
  );

  it('memory: load gives every appended message deep-equal', async () => {
    const store = new MemorySessionStore();
    await store.append('m', CORPUS);
    expect(canonicalJson((await store.load('m')).messages)).toBe(canonicalJson(CORPUS));
  });

  it.for([
    ['strict', new StrictMessageCoercer()],
    ['lenient', new LenientMessageCoercer()],
  ] as const)('MessageStore with the %s coercer keeps every field', async ([, coercer]) => {
    const store = new MessageStore({ sessionKey: 'm', coercer });
    expect(canonicalJson(await store.append(CORPUS))).toBe(canonicalJson(CORPUS));
    expect(canonicalJson((await store.store.load('m')).messages)).toBe(canonicalJson(CORPUS));
  });
});
