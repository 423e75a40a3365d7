/**
 * Measures what a big JSONL session costs: peak memory (RSS) of `load()` against the file size, the
 * time of `list()` on a folder holding it plus 200 small sessions, and the peak of a streaming rewrite
 * (`setMetadata`). Each measurement runs in a fresh child process so peaks do not mix. A measurement,
 * not a test (not picked up by `npm run bench`; run it on a quiet machine):
 *
 *   npx tsx bench/jsonl-session-memory.ts [--size-mb 1024] [--dir /tmp] [--text mixed|ascii]
 *
 * The session file is written in nanobot's own format (Python JSON spacing) and deleted afterwards.
 * `--text mixed` (the default) puts a few characters beyond Latin-1 (✓, 中文) in every message, the
 * worst case for memory: V8 then stores the whole string with 2 bytes per character. `ascii` does not.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { JsonlSessionStore } from '../src/index.js';
import { sessionFileName } from '../src/sessions/index.js';

const KEY = 'cli:huge';
const { values } = parseArgs({
  options: {
    'size-mb': { type: 'string', default: '1024' },
    dir: { type: 'string' },
    text: { type: 'string', default: 'mixed' },
    child: { type: 'string' },
  },
});

if (values.child !== undefined) await child(values.child, values.dir ?? '');
else await parent();

async function parent(): Promise<void> {
  const sizeBytes = Number(values['size-mb']) * 1024 * 1024;
  const dir = await mkdtemp(path.join(values.dir ?? tmpdir(), 'ctxloom-jsonl-memory-'));
  try {
    const written = await writeSession(path.join(dir, sessionFileName(KEY)), sizeBytes);
    for (let index = 0; index < 200; index += 1)
      await writeFile(
        path.join(dir, sessionFileName(`telegram:${index}`)),
        `{"_type": "metadata", "key": "telegram:${index}", "metadata": {}}\n{"role": "user", "content": "hi", "timestamp": "2026-03-01T09:00:00"}\n`,
      );
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
    process.stdout.write(
      `session file (${values.text} text): ${mb(written.bytes)}, ${written.messages.toLocaleString('en-US')} messages\n`,
    );
    const idle = measure('baseline', dir).peakRssBytes;
    process.stdout.write(`idle process (store imported): peak RSS ${mb(idle)}\n`);
    for (const task of ['load', 'list', 'rewrite']) {
      const result = measure(task, dir);
      const over = result.peakRssBytes - idle;
      const ratio = `${(result.peakRssBytes / written.bytes).toFixed(2)}x the file; +${mb(over)} over idle = ${(over / written.bytes).toFixed(2)}x`;
      process.stdout.write(
        `${task.padEnd(8)} peak RSS ${mb(result.peakRssBytes)} (${ratio}), ${result.ms.toFixed(0)} ms ${result.note}\n`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

type Result = { readonly peakRssBytes: number; readonly ms: number; readonly note: string };

function measure(task: string, dir: string): Result {
  const script = fileURLToPath(import.meta.url);
  const run = spawnSync(process.execPath, ['--import', 'tsx', script, '--child', task, '--dir', dir], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (run.status !== 0) throw new Error(`${task} failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as Result;
}

async function child(task: string, dir: string): Promise<void> {
  const store = new JsonlSessionStore({ dir });
  const started = performance.now();
  let note = '';
  if (task === 'load') {
    const record = await store.load(KEY);
    note = `(${record.messages.length.toLocaleString('en-US')} messages, ${record.warnings.length} warnings)`;
  } else if (task === 'list') {
    note = `(${(await store.list()).length} sessions)`;
  } else if (task === 'rewrite') {
    await store.setMetadata(KEY, { title: 'measured' });
    note = '(setMetadata: streaming copy)';
  }
  const ms = performance.now() - started;
  process.stdout.write(
    `${JSON.stringify({ peakRssBytes: process.resourceUsage().maxRSS * 1024, ms, note })}\n`,
  );
}

/** Writes nanobot-shaped lines (user, assistant with a tool call, tool result, answer) up to `sizeBytes`. */
async function writeSession(file: string, sizeBytes: number): Promise<{ bytes: number; messages: number }> {
  const handle = await open(file, 'w');
  const sentence =
    values.text === 'ascii'
      ? 'The quick brown fox jumps over the lazy dog; plain text only. '
      : 'The quick brown fox jumps over the lazy dog; ünïcode ✓ 中文. ';
  const filler = sentence.repeat(12);
  let messages = 0;
  let chunk: string[] = [
    `{"_type": "metadata", "key": "${KEY}", "created_at": "2026-03-01T09:00:00.000000", "updated_at": "2026-03-01T09:00:00.000000", "metadata": {}, "last_consolidated": 0}`,
  ];
  for (let bytes = 0; bytes < sizeBytes; ) {
    const index = messages;
    const time = `2026-03-01T09:${String(Math.floor(index / 60) % 60).padStart(2, '0')}:${String(index % 60).padStart(2, '0')}.000000`;
    const line = [
      `{"role": "user", "content": "${index} ${filler}", "timestamp": "${time}"}`,
      `{"role": "assistant", "content": "", "timestamp": "${time}", "tool_calls": [{"id": "call_${index}", "type": "function", "function": {"name": "read_file", "arguments": "{\\"path\\": \\"notes/${index}.md\\"}"}}]}`,
      `{"role": "tool", "tool_call_id": "call_${index - 1}", "name": "read_file", "content": "${filler}", "timestamp": "${time}"}`,
      `{"role": "assistant", "content": "${filler}", "timestamp": "${time}", "latency_ms": 812}`,
    ][index % 4] as string;
    chunk.push(line);
    bytes += Buffer.byteLength(line) + 1;
    messages += 1;
    if (chunk.length >= 10_000) {
      await handle.write(`${chunk.join('\n')}\n`);
      chunk = [];
    }
  }
  await handle.write(`${chunk.join('\n')}\n`);
  await handle.close();
  return { bytes: (await stat(file)).size, messages };
}
