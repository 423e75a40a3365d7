import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import { main } from '../main.js';

let dir = '';

/** `chars` characters of short numbered words (about one token per two characters). */
function fileText(chars: number): string {
  return Array.from({ length: Math.ceil(chars / 6) }, (_, index) => `w${(index * 7919) % 10_007} `)
    .join('')
    .slice(0, chars);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-context-loss-'));
  expect(await main(['init', 'ws'], memoryIo(dir))).toBe(0);
  const lines: object[] = [];
  for (let turn = 0; turn < 4; turn += 1)
    lines.push(
      { role: 'user', content: `question ${turn}` },
      { role: 'assistant', content: `answer ${turn}` },
    );
  lines.push(
    { role: 'user', content: 'read the log' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', name: 'read_file', content: fileText(200_000) },
  );
  await writeFile(path.join(dir, 'big.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const WINDOW = ['--context-window', '20000'];

describe('a build that loses the whole history', () => {
  it('build prints a history-dropped warning on stderr and still exits 0', async () => {
    const io = memoryIo(dir);
    const args = ['build', '--preset', 'agent', '--workspace', 'ws', '--history', 'big.jsonl', ...WINDOW];
    expect(await main([...args, '--allow-over-budget', 'what now?'], io)).toBe(0);
    expect(io.err()).toMatch(
      /^warning \(history-dropped\): None of the \d+ history messages is sent \(snip-history dropped \d+/m,
    );
  });

  it('build --json lists it among the warnings and as contextLoss', async () => {
    const io = memoryIo(dir);
    const args = ['build', '--preset', 'agent', '--workspace', 'ws', '--history', 'big.jsonl', ...WINDOW];
    expect(await main([...args, '--allow-over-budget', '--json', 'what now?'], io)).toBe(0);
    const report = JSON.parse(io.out()) as {
      warnings: string[];
      contextLoss: { type: string; check: string; details: { stages: Record<string, number> } }[];
    };
    expect(report.warnings[0]).toMatch(/^None of the \d+ history messages is sent/);
    expect(report.contextLoss).toMatchObject([
      {
        type: 'history-dropped',
        check: 'context-loss',
        details: { stages: { 'snip-history': expect.any(Number) } },
      },
    ]);
  });

  it('inspect shows it first in the text report and on stderr, and in --json', async () => {
    const text = memoryIo(dir, { NO_COLOR: '1' });
    expect(
      await main(['inspect', '--workspace', 'ws', '--history', 'big.jsonl', ...WINDOW, 'what now?'], text),
    ).toBe(0);
    expect(text.out()).toMatch(/Warnings:\n {2}! None of the \d+ history messages is sent/);
    expect(text.err()).toMatch(/^warning: None of the \d+ history messages is sent/m);
    const json = memoryIo(dir);
    expect(
      await main(
        ['inspect', '--workspace', 'ws', '--history', 'big.jsonl', ...WINDOW, '--json', 'what now?'],
        json,
      ),
    ).toBe(0);
    const report = JSON.parse(json.out()) as { warnings: { type: string; details: { kind: string } }[] };
    expect(report.warnings[0]).toMatchObject({ type: 'context-loss', details: { kind: 'history-dropped' } });
  });

  it('says nothing of the kind when the history fits', async () => {
    const io = memoryIo(dir);
    await writeFile(path.join(dir, 'small.jsonl'), `${JSON.stringify({ role: 'user', content: 'hi' })}\n`);
    const args = ['build', '--preset', 'agent', '--workspace', 'ws', '--history', 'small.jsonl', ...WINDOW];
    expect(await main([...args, 'what now?'], io)).toBe(0);
    expect(io.err()).not.toContain('history-dropped');
  });
});
