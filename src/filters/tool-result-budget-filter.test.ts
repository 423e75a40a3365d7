import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assistant, tool, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { createTestBuildContext } from '../testing/test-build-context.js';
import { ToolResultBudgetFilter } from './tool-result-budget-filter.js';

let workspace = '';
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-budget-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const context = createTestBuildContext();
const turn = (name: string, content: Message['content'], id = 'c1'): readonly Message[] => [
  user('go', { id: 'u' }),
  assistant('', { id: 'a', toolCalls: [{ id, name, arguments: '{}' }] }),
  tool(content, { id: 't', toolCallId: id, name }),
];

describe('ToolResultBudgetFilter', () => {
  it('marks empty results with the spec text', async () => {
    for (const empty of ['', '   ', [], [{ type: 'text' as const, text: ' ' }]]) {
      const { messages, decisions } = await new ToolResultBudgetFilter().apply(
        turn('exec', empty),
        {},
        context,
      );
      expect(messages[2]?.content).toBe('(exec completed with no output)');
      expect(decisions[0]?.type).toBe('message-rewrite');
    }
  });

  it('offloads an oversized result to the workspace; the file holds the full original', async () => {
    const original = `${'line of output\n'.repeat(1500)}END`;
    const filter = new ToolResultBudgetFilter({ workspace, sessionKey: 'cli:direct' });
    const input = turn('exec', original);
    const { messages, decisions } = await filter.apply(input, {}, context);
    const file = path.join(workspace, '.ctxloom', 'tool-results', 'cli_direct', 'c1.txt');
    expect(await readFile(file, 'utf8')).toBe(original);
    expect(messages[2]?.content).toBe(
      `[tool output persisted]\nFull output saved to: ${file}\nOriginal size: ${original.length} chars\nPreview:\n` +
        `${original.slice(0, 1200)}\n...\n(Read the saved file if you need the full output.)`,
    );
    expect(decisions[0]).toMatchObject({
      type: 'tool-result-offload',
      details: { path: file, originalChars: original.length },
    });
    expect(input[2]?.content).toBe(original);
    const again = await filter.apply(input, {}, context);
    expect(again.messages[2]?.content).toBe(messages[2]?.content);
    expect((await filter.apply(messages, {}, context)).messages).toBe(messages);
  });

  it('leaves its own reference alone on later runs even when maxChars is smaller than the reference', async () => {
    const filter = new ToolResultBudgetFilter({ workspace, maxToolResultChars: 50 });
    const first = await filter.apply(turn('exec', 'q'.repeat(60)), {}, context);
    expect(String(first.messages[2]?.content).startsWith('[tool output persisted]\n')).toBe(true);
    expect((await filter.apply(first.messages, {}, context)).messages).toBe(first.messages);
  });

  it('exempts read_file (not even truncated) and truncates without a workspace', async () => {
    const long = 'y'.repeat(16_001);
    const exempt = turn('read_file', long);
    expect((await new ToolResultBudgetFilter({ workspace }).apply(exempt, {}, context)).messages).toBe(
      exempt,
    );
    const { messages, decisions } = await new ToolResultBudgetFilter().apply(turn('exec', long), {}, context);
    expect(messages[2]?.content).toBe(`${'y'.repeat(16_000)}\n... (truncated)`);
    expect(decisions[0]?.type).toBe('message-truncate');
    expect((await new ToolResultBudgetFilter().apply(messages, {}, context)).messages).toBe(messages);
  });

  it('falls back to hard truncation when the write fails, and records why', async () => {
    await writeFile(path.join(workspace, '.ctxloom'), 'not a folder');
    const filter = new ToolResultBudgetFilter({ workspace, maxToolResultChars: 100 });
    const { messages, decisions } = await filter.apply(turn('grep', 'z'.repeat(150)), {}, context);
    expect(messages[2]?.content).toBe(`${'z'.repeat(100)}\n... (truncated)`);
    expect(decisions[0]).toMatchObject({
      type: 'message-truncate',
      details: { offloadError: expect.any(String) },
    });
  });

  it('truncates a list of text parts too when its offload fails, and records why', async () => {
    await writeFile(path.join(workspace, '.ctxloom'), 'not a folder');
    const filter = new ToolResultBudgetFilter({ workspace, maxToolResultChars: 100 });
    const parts = [
      { type: 'text' as const, text: 'y'.repeat(80) },
      { type: 'text' as const, text: 'y'.repeat(80) },
    ];
    const { messages, decisions } = await filter.apply(turn('grep', parts), {}, context);
    expect(messages[2]?.content).toBe(`${'y'.repeat(80)}\n${'y'.repeat(19)}\n... (truncated)`);
    expect(decisions[0]).toMatchObject({
      type: 'message-truncate',
      details: { offloadError: expect.any(String) },
    });
  });

  it('returns the same offloaded message object on a later build and a new file for a reused call id', async () => {
    const filter = new ToolResultBudgetFilter({ workspace, sessionKey: 's' });
    const first = turn('exec', 'a'.repeat(20_000), 'call_0');
    const built = await filter.apply(first, {}, context);
    const again = await filter.apply(first, {}, context);
    expect(again.messages[2]).toBe(built.messages[2]);
    expect(again.decisions).toEqual(built.decisions);
    const later = [
      ...first,
      user('again', { id: 'u2' }),
      assistant('', { id: 'a2', toolCalls: [{ id: 'call_0', name: 'exec', arguments: '{}' }] }),
      tool('b'.repeat(20_000), { id: 't2', toolCallId: 'call_0', name: 'exec' }),
    ];
    const next = await filter.apply(later, {}, context);
    expect(next.messages[2]).toBe(built.messages[2]);
    const paths = next.decisions.map((entry) => String(entry.details?.['path']));
    expect(new Set(paths).size).toBe(2);
    expect(await readFile(paths[1] as string, 'utf8')).toBe('b'.repeat(20_000));
    expect(String(next.messages[5]?.content)).toContain(paths[1] as string);
  });
});
