import { describe, expect, it } from 'vitest';
import { runChatCompletions, runResponses } from '../../examples/openai-sdk.js';
import { openAIChatViolations } from '../helpers/check-request-body.js';
import { startScriptedResponsesServer } from '../helpers/scripted-openai-responses-server.js';
import { startScriptedOpenAIServer } from '../helpers/scripted-openai-server.js';

describe('the OpenAI SDK examples (docs/openai.md)', () => {
  it('loops on chat completions with legal requests', async () => {
    const server = await startScriptedOpenAIServer([
      {
        kind: 'reply',
        content: null,
        finishReason: 'tool_calls',
        toolCalls: [{ id: 'call_1', name: 'grep', arguments: '{"pattern":"answer"}' }],
      },
      { kind: 'reply', content: 'The answer is 42.' },
    ]);
    try {
      expect(
        await runChatCompletions({ baseURL: server.baseURL, apiKey: 'test' }, 'What is the answer?'),
      ).toBe('The answer is 42.');
      expect(server.requests).toHaveLength(2);
      for (const body of server.requests) expect(openAIChatViolations(body)).toEqual([]);
      // The 70 KB result is over the 16,000-character limit: truncated (no workspace to offload to).
      expect(JSON.stringify(server.requests[1]).length).toBeLessThan(20_000);
    } finally {
      await server.close();
    }
  });

  it('loops on the Responses API, passing the encrypted reasoning back untouched', async () => {
    const server = await startScriptedResponsesServer([
      {
        reasoning: { summary: 'Read the file.', encrypted: 'gAAAAB-secret' },
        calls: [{ callId: 'call_1', name: 'grep', arguments: '{"pattern":"answer"}' }],
      },
      { text: 'The answer is 42.' },
    ]);
    try {
      expect(await runResponses({ baseURL: server.baseURL, apiKey: 'test' }, 'What is the answer?')).toBe(
        'The answer is 42.',
      );
      expect(server.violations.flat()).toEqual([]);
      const second = server.requests[1]?.['input'] as Record<string, unknown>[];
      expect(second.map((item) => item['type'] ?? item['role'])).toEqual([
        'user',
        'reasoning',
        'function_call',
        'function_call_output',
      ]);
      expect(second[1]).toMatchObject({ id: 'rs_1', encrypted_content: 'gAAAAB-secret' });
    } finally {
      await server.close();
    }
  });
});
