import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { startScriptedOpenAIServer } from '../../test/helpers/scripted-openai-server.js';
import { assistant, system, tool, user } from '../core/factories.js';
import { AiSdkChatModel } from './ai-sdk-chat-model.js';

const usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 3, text: 3, reasoning: 0 },
};

describe('AiSdkChatModel', () => {
  it('calls generateText with converted messages and tools, and maps the result', async () => {
    const mock = new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [{ type: 'text', text: 'Summary.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      }),
    });
    const model = new AiSdkChatModel({ model: mock });
    const result = await model.generate({
      messages: [
        system('sys'),
        user('hi'),
        assistant('', { toolCalls: [{ id: 'c', name: 'f', arguments: '{"a":1}' }] }),
        tool('done', { toolCallId: 'c' }),
      ],
      tools: [{ name: 'f', parameters: { type: 'object', properties: { a: { type: 'number' } } } }],
      toolChoice: 'none',
      maxOutputTokens: 50,
    });
    expect(result).toEqual({
      text: 'Summary.',
      finishReason: 'stop',
      toolCalls: [],
      usage: { inputTokens: 12, outputTokens: 3 },
    });
    const call = mock.doGenerateCalls[0];
    expect(call?.maxOutputTokens).toBe(50);
    expect(call?.toolChoice).toEqual({ type: 'none' });
    expect(call?.prompt.map((entry) => entry.role)).toEqual(['system', 'user', 'assistant', 'tool']);
  });

  it('returns tool calls and a length finish', async () => {
    const mock = new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [{ type: 'tool-call', toolCallId: 'x', toolName: 'f', input: '{"q":"z"}' }],
        finishReason: { unified: 'length', raw: 'length' },
        usage,
        warnings: [],
      }),
    });
    const result = await new AiSdkChatModel({ model: mock }).generate({
      messages: [user('hi')],
      tools: [{ name: 'f' }],
    });
    expect(result.finishReason).toBe('length');
    expect(result.toolCalls).toEqual([{ id: 'x', name: 'f', arguments: '{"q":"z"}' }]);
  });

  it('wraps model errors as MODEL_REQUEST_FAILED', async () => {
    const mock = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new Error('provider down');
      },
    });
    await expect(
      new AiSdkChatModel({ model: mock, maxRetries: 0 }).generate({ messages: [user('hi')] }),
    ).rejects.toMatchObject({
      code: 'MODEL_REQUEST_FAILED',
      message: expect.stringContaining('provider down'),
    });
  });

  it('talks to an OpenAI-compatible server through @ai-sdk/openai-compatible', async () => {
    const server = await startScriptedOpenAIServer([{ kind: 'reply', content: 'via the AI SDK' }]);
    try {
      const provider = createOpenAICompatible({ name: 'local', baseURL: server.baseURL });
      const model = new AiSdkChatModel({ model: provider.chatModel('local-model'), maxRetries: 0 });
      expect(model.id).toBe('ai-sdk:local.chat:local-model');
      const result = await model.generate({ messages: [system('be brief'), user('hi')] });
      expect(result).toMatchObject({
        text: 'via the AI SDK',
        finishReason: 'stop',
        usage: { inputTokens: 11, outputTokens: 7 },
      });
      expect(server.requests[0]).toMatchObject({
        model: 'local-model',
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hi' },
        ],
      });
    } finally {
      await server.close();
    }
  });
});
