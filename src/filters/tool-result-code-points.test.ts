/**
 * Tool-result sizes are measured in code points, as nanobot measures them: the offload threshold, the
 * "Original size" line, the preview and the hard truncation all count an emoji as one character.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assistant, tool, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { TRUNCATION_SUFFIX } from '../core/truncate-text.js';
import { createTestBuildContext } from '../testing/test-build-context.js';
import { ToolResultBudgetFilter } from './tool-result-budget-filter.js';

let workspace = '';
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-code-points-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const context = createTestBuildContext();
const turn = (content: string): readonly Message[] => [
  user('go', { id: 'u' }),
  assistant('', { id: 'a', toolCalls: [{ id: 'c1', name: 'exec', arguments: '{}' }] }),
  tool(content, { id: 't', toolCallId: 'c1', name: 'exec' }),
];

describe('tool-result sizes in code points', () => {
  it('keeps a result of 100 emoji under a 100-character limit (200 UTF-16 units)', async () => {
    const input = turn('🚀'.repeat(100));
    const { messages } = await new ToolResultBudgetFilter({ workspace, maxToolResultChars: 100 }).apply(
      input,
      {},
      context,
    );
    expect(messages[2]).toBe(input[2]);
  });

  it('offloads past the limit with the size and preview in code points', async () => {
    const filter = new ToolResultBudgetFilter({
      workspace,
      maxToolResultChars: 300,
      offload: { previewChars: 10 },
    });
    const { messages } = await filter.apply(turn('🚀'.repeat(301)), {}, context);
    const reference = String(messages[2]?.content);
    expect(reference).toContain('Original size: 301 chars');
    expect(reference).toContain(`Preview:\n${'🚀'.repeat(10)}\n...`);
  });

  it('truncates without a workspace at a code point, never inside a surrogate pair', async () => {
    const filter = new ToolResultBudgetFilter({ maxToolResultChars: 5 });
    const { messages } = await filter.apply(turn(`ab${'🚀'.repeat(10)}`), {}, context);
    expect(messages[2]?.content).toBe(`ab🚀🚀🚀${TRUNCATION_SUFFIX}`);
  });
});

describe('a cap smaller than the offload reference', () => {
  it('cuts the reference to the cap, as nanobot does after offloading', async () => {
    const filter = new ToolResultBudgetFilter({ workspace, maxToolResultChars: 120 });
    const { messages } = await filter.apply(turn('x'.repeat(1_300)), {}, context);
    const reference = String(messages[2]?.content);
    expect(reference.startsWith('[tool output persisted]\nFull output saved to: ')).toBe(true);
    expect(reference).toHaveLength(120 + TRUNCATION_SUFFIX.length);
    expect(reference.endsWith(TRUNCATION_SUFFIX)).toBe(true);
  });
});
