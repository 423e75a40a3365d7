import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgQuery, requirePostgres } from '../../test/helpers/pg-test-server.js';
import { type ProcessStoreBackend, processStoreBackends } from '../../test/helpers/process-store-backends.js';
import {
  CONVERSATION,
  compactAndStore,
  loadView,
  PROVIDER_MODES,
  type ProviderMode,
  sendPlain,
} from '../../test/helpers/provider-compaction-driver.js';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import { startAnthropicCompactionServer } from '../testing/anthropic-compaction-server.js';
import { startOpenAICompactionServer } from '../testing/openai-compaction-server.js';
import type { ScriptedServer } from '../testing/scripted-json-server.js';

const WORKER = fileURLToPath(
  new URL('../../test/fixtures/workers/provider-compaction-worker.ts', import.meta.url),
);
const SCHEMA = `ctxloom_provider_${process.pid}`;

let dir: string;
let anthropic: ScriptedServer;
let openai: ScriptedServer;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-provider-'));
  anthropic = await startAnthropicCompactionServer({ tokenScale: 1000 });
  openai = await startOpenAICompactionServer({ tokenScale: 1000 });
});
afterAll(async () => {
  await anthropic.close();
  await openai.close();
  await rm(dir, { recursive: true, force: true });
  await pgQuery(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
});

type Backend = {
  readonly name: ProcessStoreBackend['name'] | 'memory';
  readonly target: () => string;
  readonly open: () => SessionStore;
};
const memory = new MemorySessionStore();
const BACKENDS: readonly Backend[] = [
  { name: 'memory', target: () => '', open: () => memory },
  ...processStoreBackends(() => dir, SCHEMA),
];

type Sent = {
  readonly view: readonly { id: string }[];
  readonly sent: readonly unknown[];
  readonly reply: string;
};

function inNewProcess(
  backend: Backend,
  run: { key: string; mode: ProviderMode; url: string },
): Promise<Sent> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', WORKER, backend.name, backend.target(), run.key, SCHEMA, run.mode, run.url],
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
      else resolve(JSON.parse(stdout) as Sent);
    }),
  );
}

/** The provider's block or item as the request holds it: first of the conversation. */
function firstOf(mode: ProviderMode, sent: readonly unknown[]): unknown {
  const first = sent[0] as Record<string, unknown>;
  if (!mode.startsWith('anthropic')) return first;
  const content = first['content'] as unknown[];
  return content[0];
}

const CASES = BACKENDS.flatMap((backend) => PROVIDER_MODES.map((mode) => ({ backend, mode })));

describe('provider compaction round trips through every store and a new process', () => {
  it.for(CASES)(
    '$backend.name × $mode: the block is stored, reloaded elsewhere and accepted unchanged',
    { timeout: 60_000 },
    async ({ backend, mode }, context) => {
      if (backend.name === 'postgres') requirePostgres(context);
      const server = mode.startsWith('anthropic') ? anthropic : openai;
      const key = `provider:${backend.name}:${mode}`;
      const store = backend.open();
      await store.append(key, CONVERSATION);
      const stored = await compactAndStore(mode, { url: server.url, store, key });
      const before = server.requests.length;
      const loaded =
        backend.name === 'memory'
          ? await sendPlain(mode, { url: server.url, view: await loadView(store, key) }).then(
              async (sent) => ({
                ...sent,
                view: await loadView(store, key),
              }),
            )
          : await (async () => {
              await store.close();
              return inNewProcess(backend, { key, mode, url: server.url });
            })();
      // The server accepted it (the SDK throws on a 400) and read exactly what ctxloom stored.
      // (after on-demand compaction the pinned requests and the new one are one user turn)
      expect(loaded.reply).toMatch(/^reply \d+ to: (.+\n)*And the next step\?$/);
      expect(server.requests.length).toBe(before + 1);
      const received = server.requests.at(-1)?.body as Record<string, unknown>;
      const wire = mode.startsWith('anthropic') ? received['messages'] : received['input'];
      expect(JSON.stringify(firstOf(mode, wire as unknown[]))).toBe(JSON.stringify(stored.payload));
      // Everything before the block is left out; the pins follow it; the later turns are raw.
      const ids = loaded.view.map((message) => message.id);
      expect(ids[0]).toBe(`${stored.recordId}-summary`);
      expect(ids.slice(1, 1 + stored.pins.length)).toEqual(stored.pins);
      expect(stored.pins).toContain('u1');
      expect(stored.pins).toContain('u3');
      expect(ids.at(-1)).toBe('u-next');
      expect(ids).not.toContain('t1');
    },
  );
});
