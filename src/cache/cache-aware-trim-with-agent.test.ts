import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistant, user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import { ContextBuilder } from '../presets/context-builder.js';
import { agentPresetOptions } from '../presets/for-agent.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { withCacheAwareTrim } from './cache-aware-trim-filter.js';

let workspace = '';
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-trim-agent-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function trimmedAgent(historyWindow: boolean): ContextBuilder {
  const options = agentPresetOptions({
    workspace,
    platform: { os: 'linux', arch: 'x64', nodeVersion: '20.20.2' },
    skills: { builtinDir: null },
    includeMemory: false,
    recentHistory: false,
    tokenCounter: new SimpleTokenCounter(),
    contextWindowTokens: 1_000_000,
    governor: { blockLimit: 4_000 },
    historyWindow,
  });
  return new ContextBuilder(withCacheAwareTrim(options, { maxTokens: 3_000, lowWater: 0.3 }));
}

describe('the cache-aware trim in the agent preset', () => {
  it('keeps its cut points when forAgent would leave old history out: the same start as the whole history, turn after turn', async () => {
    const generateId = createSequentialIdGenerator('t');
    const history: Message[] = [];
    const windowed = trimmedAgent(true);
    const whole = trimmedAgent(false);
    const starts = new Set<string | undefined>();
    for (let turn = 0; turn < 120; turn += 1) {
      history.push(user(`question ${turn} `.repeat(8), { generateId }));
      history.push(assistant(`answer ${turn} `.repeat(24), { generateId }));
      const input = { history: [...history], current: `next ${turn}` };
      const got = await windowed.build(input);
      const want = await whole.build(input);
      // System prompt and current message get fresh ids per builder; the history keeps its own.
      const shape = (messages: readonly Message[]) =>
        messages.map((message, index) =>
          index === 0 || index === messages.length - 1 ? message.content : message.id,
        );
      expect(shape(got.messages)).toEqual(shape(want.messages));
      starts.add(got.messages[1]?.id);
    }
    // The start moved in steps (hysteresis), far fewer times than there were turns.
    expect(starts.size).toBeGreaterThan(2);
    expect(starts.size).toBeLessThan(30);
  });
});
