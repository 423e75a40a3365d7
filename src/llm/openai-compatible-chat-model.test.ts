import { afterEach, describe, expect, it } from 'vitest';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../test/helpers/scripted-openai-server.js';
import { assistant, system, tool, user } from '../core/factories.js';
import { OpenAICompatibleChatModel } from './openai-compatible-chat-model.js';
import { retryDelayMs } from './retry-delay.js';

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const fast = { retryBaseDelayMs: 1, maxRetryDelayMs: 50 };

describe('OpenAICompatibleChatModel', () => {
  it('sends an OpenAI chat-completions request and reads the reply', async () => {
    server = await startScriptedOpenAIServer([{ kind: 'reply', content: 'Hello!' }]);
    const model = new OpenAICompatibleChatModel({ baseURL: `${server.baseURL}/`, apiKey: 'k', model: 'm1' });
    const result = await model.generate({
      messages: [
        system('sys', { id: 's' }),
        user(
          [
            { type: 'text', text: 'hi' },
            { type: 'image', url: 'https://x.test/a.png' },
          ],
          { id: 'u' },
        ),
        assistant('', { id: 'a', toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }] }),
        tool('r', { id: 't', toolCallId: 'c', name: 'f' }),
      ],
      tools: [{ name: 'f', description: 'does f', parameters: { type: 'object' } }],
      toolChoice: 'none',
      maxOutputTokens: 100,
    });
    expect(result).toEqual({
      text: 'Hello!',
      finishReason: 'stop',
      rawFinishReason: 'stop',
      toolCalls: [],
      usage: { inputTokens: 11, outputTokens: 7 },
    });
    expect(server.requests[0]).toEqual({
      model: 'm1',
      messages: [
        { role: 'system', content: 'sys' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image_url', image_url: { url: 'https://x.test/a.png' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', content: 'r', tool_call_id: 'c' },
      ],
      tools: [
        { type: 'function', function: { name: 'f', description: 'does f', parameters: { type: 'object' } } },
      ],
      tool_choice: 'none',
      max_tokens: 100,
    });
  });

  it('retries a 500 and a 429 with Retry-After, then succeeds', async () => {
    server = await startScriptedOpenAIServer([
      { kind: 'status', status: 500 },
      { kind: 'status', status: 429, headers: { 'retry-after': '0' } },
      { kind: 'reply', content: 'third time' },
    ]);
    const model = new OpenAICompatibleChatModel({ baseURL: server.baseURL, model: 'm', ...fast });
    expect((await model.generate({ messages: [user('hi')] })).text).toBe('third time');
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after maxRetries with the status and body excerpt', async () => {
    server = await startScriptedOpenAIServer([
      { kind: 'status', status: 503, body: 'overloaded, try later' },
      { kind: 'status', status: 503, body: 'overloaded, try later' },
    ]);
    const model = new OpenAICompatibleChatModel({
      baseURL: server.baseURL,
      model: 'm',
      maxRetries: 1,
      ...fast,
    });
    await expect(model.generate({ messages: [user('hi')] })).rejects.toMatchObject({
      code: 'MODEL_REQUEST_FAILED',
      details: { status: 503 },
      message: expect.stringContaining('overloaded, try later'),
    });
  });

  it('does not retry a 400', async () => {
    server = await startScriptedOpenAIServer([{ kind: 'status', status: 400, body: 'bad model' }]);
    const model = new OpenAICompatibleChatModel({ baseURL: server.baseURL, model: 'm', ...fast });
    await expect(model.generate({ messages: [user('hi')] })).rejects.toThrow(/HTTP 400.*bad model/);
    expect(server.requests).toHaveLength(1);
  });

  it('times out a hanging request and retries it', async () => {
    server = await startScriptedOpenAIServer([{ kind: 'hang' }, { kind: 'reply', content: 'late but fine' }]);
    const model = new OpenAICompatibleChatModel({
      baseURL: server.baseURL,
      model: 'm',
      timeoutMs: 100,
      ...fast,
    });
    expect((await model.generate({ messages: [user('hi')] })).text).toBe('late but fine');
  });

  it('reports a timeout when every attempt hangs', async () => {
    server = await startScriptedOpenAIServer([{ kind: 'hang' }]);
    const model = new OpenAICompatibleChatModel({
      baseURL: server.baseURL,
      model: 'm',
      timeoutMs: 50,
      maxRetries: 0,
    });
    await expect(model.generate({ messages: [user('hi')] })).rejects.toMatchObject({
      code: 'MODEL_REQUEST_FAILED',
      message: expect.stringContaining('within 50 ms'),
    });
  });

  it('aborts at once on the caller signal', async () => {
    server = await startScriptedOpenAIServer([{ kind: 'hang' }]);
    const model = new OpenAICompatibleChatModel({ baseURL: server.baseURL, model: 'm', timeoutMs: 10_000 });
    const controller = new AbortController();
    const pending = model.generate({ messages: [user('hi')], signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('reads tool calls, length and missing content', async () => {
    server = await startScriptedOpenAIServer([
      {
        kind: 'reply',
        content: null,
        finishReason: 'tool_calls',
        toolCalls: [{ id: 'c1', name: 'f', arguments: '{"a":1}' }],
      },
      { kind: 'reply', content: 'cut', finishReason: 'length' },
    ]);
    const model = new OpenAICompatibleChatModel({ baseURL: server.baseURL, model: 'm' });
    expect(await model.generate({ messages: [user('hi')] })).toMatchObject({
      text: '',
      finishReason: 'tool-calls',
      toolCalls: [{ id: 'c1', name: 'f', arguments: '{"a":1}' }],
    });
    expect((await model.generate({ messages: [user('hi')] })).finishReason).toBe('length');
  });

  it('reports an unreachable server after retries', async () => {
    const model = new OpenAICompatibleChatModel({
      baseURL: 'http://127.0.0.1:1/v1',
      model: 'm',
      maxRetries: 1,
      ...fast,
    });
    await expect(model.generate({ messages: [user('hi')] })).rejects.toMatchObject({
      code: 'MODEL_REQUEST_FAILED',
    });
  });
});

describe('retryDelayMs', () => {
  it('doubles per attempt, honours Retry-After seconds and dates, and caps', () => {
    expect(retryDelayMs({ attempt: 2, baseMs: 100, maxMs: 10_000 })).toBe(400);
    expect(retryDelayMs({ attempt: 0, retryAfter: '3', baseMs: 100, maxMs: 10_000 })).toBe(3000);
    expect(retryDelayMs({ attempt: 0, retryAfter: '120', baseMs: 100, maxMs: 10_000 })).toBe(10_000);
    const now = () => Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    expect(
      retryDelayMs({
        attempt: 0,
        retryAfter: 'Wed, 21 Oct 2026 07:28:05 GMT',
        baseMs: 1,
        maxMs: 10_000,
        now,
      }),
    ).toBe(5000);
  });
});
