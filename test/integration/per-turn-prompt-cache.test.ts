import { describe, expect, it } from 'vitest';
import { anthropicPromptCacheRequest } from '../../src/cache/index.js';
import { system } from '../../src/core/index.js';
import {
  type Message,
  simulatePromptCache,
  type ToolDefinition,
  toAnthropicMessages,
} from '../../src/index.js';
import { generateToolLoopSession } from '../helpers/tool-loop-session.js';

const TOOLS: readonly ToolDefinition[] = ['read_file', 'exec', 'grep'].map((name) => ({
  name,
  description: `${name}: runs inside the workspace and returns plain text. `.repeat(8),
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
}));
const SYSTEM = system(
  'You are a coding agent working in a repository. Follow the workspace rules. '.repeat(60),
  {
    id: 'system',
  },
);

/** One request per user turn: the whole history so far and the new user message, planned with `cache: 'auto'`. */
function perTurnRequests(turns: ReturnType<typeof generateToolLoopSession>) {
  return turns.map((turn, index) => {
    const history: Message[] = [SYSTEM, ...turns.slice(0, index).flatMap((earlier) => earlier.messages)];
    const sent = toAnthropicMessages([...history, ...turn.messages.slice(0, 1)], {
      cache: 'auto',
      tools: TOOLS,
    });
    return {
      sent,
      described: anthropicPromptCacheRequest(sent, { at: turn.at, model: 'claude-sonnet-4-5' }),
    };
  });
}

describe("per-user-turn requests with cache: 'auto'", () => {
  const turns = generateToolLoopSession({ turns: 60, seed: 11 });
  const requests = perTurnRequests(turns);

  it('the generated session has tool loops that add more than 20 blocks between two user turns', () => {
    const growth = requests
      .slice(1)
      .map(
        (request, index) => request.described.blocks.length - (requests[index]?.described.blocks.length ?? 0),
      );
    expect(Math.max(...growth)).toBeGreaterThan(20);
    expect(growth.filter((added) => added > 20).length).toBeGreaterThan(10);
  });

  it('keeps the steady-state hit rate at 0.95 or more under the 20-block lookback', () => {
    const simulation = simulatePromptCache(
      requests.map((request) => request.described),
      { provider: 'anthropic', steadyStateFrom: 1 },
    );
    expect(simulation.totals.illegalRequests).toBe(0);
    expect(simulation.totals.steadyStateHitRate).toBeGreaterThanOrEqual(0.95);
    for (const { sent } of requests) expect(sent.cachePlan?.markers.length ?? 0).toBeLessThanOrEqual(4);
  });

  it('marks the end of the previous user turn, which the previous request wrote as its tail', () => {
    for (let index = 1; index < requests.length; index += 1) {
      const previousTail = requests[index - 1]?.sent.cachePlan?.markers.find(
        (marker) => marker.kind === 'tail',
      );
      const keys = requests[index]?.sent.cachePlan?.markers.map((marker) => marker.key) ?? [];
      expect(keys).toContain(previousTail?.key);
    }
  });
});
