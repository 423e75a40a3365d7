import { describe, expect, it } from 'vitest';
import { runAnthropicAgent } from '../../examples/anthropic-sdk.js';
import { startScriptedAnthropicServer } from '../helpers/scripted-anthropic-server.js';

describe('the Anthropic SDK example (docs/anthropic.md)', () => {
  it('loops with thinking and cache breakpoints, sending only legal requests', async () => {
    const server = await startScriptedAnthropicServer([
      {
        kind: 'reply',
        content: [
          { type: 'thinking', thinking: 'Search first.', signature: 'sig-1' },
          { type: 'tool_use', id: 'toolu_1', name: 'grep', input: { pattern: 'answer' } },
        ],
      },
      {
        kind: 'reply',
        content: [
          { type: 'thinking', thinking: 'Found it.', signature: 'sig-2' },
          { type: 'text', text: 'The answer is 42.' },
        ],
      },
    ]);
    try {
      expect(await runAnthropicAgent({ baseURL: server.origin, apiKey: 'test' }, 'What is the answer?')).toBe(
        'The answer is 42.',
      );
      expect(server.violations.flat()).toEqual([]);
      const second = server.requests[1] ?? {};
      expect(second['system']).toEqual([
        {
          type: 'text',
          text: 'You are a careful engineer. Search before you answer.',
          cache_control: { type: 'ephemeral' },
        },
      ]);
      expect(second['tools']).toMatchObject([{ name: 'grep', cache_control: { type: 'ephemeral' } }]);
      expect(JSON.stringify(second['messages'])).toContain(
        '{"type":"thinking","thinking":"Search first.","signature":"sig-1"}',
      );
      // The 70 KB result is over the 16,000-character limit: truncated.
      expect(JSON.stringify(second).length).toBeLessThan(20_000);
    } finally {
      await server.close();
    }
  });
});
