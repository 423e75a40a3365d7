import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import { main } from '../main.js';

let dir = '';
const OUTPUT = Array.from({ length: 4_000 }, (_, index) => `line ${index} of the test log`).join('\n');

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-build-offloads-'));
  expect(await main(['init', 'ws'], memoryIo(dir))).toBe(0);
  const lines = [
    { role: 'user', content: 'run the tests' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_08', type: 'function', function: { name: 'exec', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'call_08', name: 'exec', content: OUTPUT },
    { role: 'assistant', content: 'They pass.' },
  ];
  await writeFile(path.join(dir, 'h.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

async function build(extra: readonly string[]) {
  const io = memoryIo(dir);
  const args = ['build', '--preset', 'agent', '--workspace', 'ws', '--history', 'h.jsonl', '--no-summary'];
  const code = await main([...args, '--format', 'openai', ...extra, 'and now?'], io);
  const messages = JSON.parse(io.out()) as { role: string; content: unknown }[];
  const reference = String(messages.find((message) => message.role === 'tool')?.content);
  return { code, reference };
}

describe('ctxloom build --preset agent and offloaded tool results', () => {
  it('writes nothing by default and says the output would be saved, never that it was', async () => {
    const { code, reference } = await build([]);
    expect(code).toBe(0);
    const file = path.join(dir, 'ws', '.ctxloom', 'tool-results', 'cli_direct', 'call_08.txt');
    expect(reference).toContain(`Full output would be saved to: ${file} (not written)`);
    expect(reference).not.toContain('Full output saved to');
    expect(reference.startsWith('[tool output not persisted: dry run]\n')).toBe(true);
    expect(await exists(path.join(dir, 'ws', '.ctxloom'))).toBe(false);
  });

  it('with --write-offloads saves the file the reference names', async () => {
    const { code, reference } = await build(['--write-offloads']);
    expect(code).toBe(0);
    const match = /^Full output saved to: (.+)$/m.exec(reference);
    expect(match?.[1]).toBe(path.join(dir, 'ws', '.ctxloom', 'tool-results', 'cli_direct', 'call_08.txt'));
    expect(await readFile(match?.[1] ?? '', 'utf8')).toBe(OUTPUT);
    // once the file is there, a dry run names it as saved too
    expect((await build([])).reference).toBe(reference);
  });

  it('refuses --write-offloads for a preset that offloads nothing', async () => {
    const io = memoryIo(dir);
    expect(await main(['build', '--workspace', 'ws', '--write-offloads', 'hi'], io)).toBe(2);
    expect(io.err()).toMatch(
      /^INVALID_OPTIONS: --write-offloads saves the agent preset's offloaded tool results/,
    );
  });
});
