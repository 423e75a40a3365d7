import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closedServerURL,
  type ScriptedOpenAIServer,
  type ScriptedReply,
  startScriptedOpenAIServer,
} from '../../test/helpers/scripted-openai-server.js';
import { ContextError } from '../core/errors.js';
import { user } from '../core/factories.js';
import { ChatModelError, type ModelFailureKind, type ModelFailureReason } from './chat-model-error.js';
import { OpenAICompatibleChatModel } from './openai-compatible-chat-model.js';
import { failureKindForStatus, toChatModelError } from './to-chat-model-error.js';

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const fast = { retryBaseDelayMs: 1, maxRetryDelayMs: 5, timeoutMs: 2000 };

async function failure(script: readonly ScriptedReply[]): Promise<ChatModelError> {
  server = await startScriptedOpenAIServer(script);
  // Short only when the script hangs, so a slow machine never turns another case into a timeout.
  const timeoutMs = script.some((reply) => reply.kind === 'hang') ? 200 : fast.timeoutMs;
  const model = new OpenAICompatibleChatModel({
    baseURL: server.baseURL,
    model: 'm',
    maxRetries: 1,
    ...fast,
    timeoutMs,
  });
  const error = await model.generate({ messages: [user('hi')] }).catch((caught: unknown) => caught);
  if (!ChatModelError.isInstance(error)) throw new Error(`expected a ChatModelError, got ${String(error)}`);
  return error;
}

describe('OpenAICompatibleChatModel failures', () => {
  it.each<[string, ScriptedReply, ModelFailureKind, ModelFailureReason, number]>([
    ['401', { kind: 'status', status: 401 }, 'configuration', 'http-status', 1],
    ['403', { kind: 'status', status: 403 }, 'configuration', 'http-status', 1],
    [
      '404 (unknown model)',
      { kind: 'status', status: 404, body: '{"error":{"code":"model_not_found"}}' },
      'configuration',
      'http-status',
      1,
    ],
    ['400', { kind: 'status', status: 400 }, 'configuration', 'http-status', 1],
    ['429', { kind: 'status', status: 429 }, 'transient', 'http-status', 2],
    ['500', { kind: 'status', status: 500 }, 'transient', 'http-status', 2],
    ['503', { kind: 'status', status: 503 }, 'transient', 'http-status', 2],
    ['a timeout', { kind: 'hang' }, 'transient', 'timeout', 2],
    ['a reset connection', { kind: 'reset' }, 'transient', 'connection-reset', 2],
    ['a truncated JSON body', { kind: 'truncated' }, 'transient', 'truncated-body', 2],
    ['an HTML page', { kind: 'body', body: '<html>login</html>' }, 'configuration', 'not-json', 1],
    [
      'JSON without choices',
      { kind: 'body', body: '{"ok":true}', contentType: 'application/json' },
      'configuration',
      'no-choices',
      1,
    ],
  ])('classifies %s and retries only transient failures', async (_name, reply, kind, reason, attempts) => {
    const error = await failure([reply, reply]);
    expect({ kind: error.kind, reason: error.reason, attempts: error.attempts }).toEqual({
      kind,
      reason,
      attempts,
    });
    expect(server?.requests).toHaveLength(attempts);
    expect(error.code).toBe('MODEL_REQUEST_FAILED');
    expect(error.message).toContain(`${server?.baseURL}/chat/completions`);
    expect(error.toJSON()).toMatchObject({ details: { kind, reason, attempts } });
  });

  it('names the fix for each configuration status', async () => {
    expect((await failure([{ kind: 'status', status: 401 }])).message).toMatch(/HTTP 401.*check the API key/);
    expect((await failure([{ kind: 'status', status: 403 }])).message).toMatch(
      /permissions and the model name/,
    );
    expect((await failure([{ kind: 'status', status: 404 }])).message).toMatch(/base URL.*model name 'm'/);
    expect(
      (
        await failure([
          { kind: 'status', status: 500 },
          { kind: 'status', status: 500 },
        ])
      ).message,
    ).toMatch(/HTTP 500.*\(after 2 attempts\)/);
  });

  it('classifies a 200 that carries an error object by its code', async () => {
    const overloaded = {
      kind: 'body',
      body: '{"error":{"code":503,"message":"overloaded"}}',
      contentType: 'application/json',
    } as const;
    const error = await failure([overloaded, overloaded]);
    expect([error.kind, error.status, error.attempts]).toEqual(['transient', 503, 2]);
    expect(error.message).toContain('overloaded');
  });

  it('fails at once when nothing listens on the port', async () => {
    const model = new OpenAICompatibleChatModel({
      baseURL: await closedServerURL(),
      model: 'm',
      maxRetries: 3,
      ...fast,
    });
    const error = await model.generate({ messages: [user('hi')] }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'configuration', reason: 'connection-refused', attempts: 1 });
    expect(String(error)).toMatch(
      /nothing accepts connections there \(ECONNREFUSED\).*Start the model server/,
    );
  });

  it('fails at once on a port fetch refuses ("bad port"): it never works, so it is configuration', async () => {
    let calls = 0;
    const fetch: typeof globalThis.fetch = (input, init) => {
      calls += 1;
      return globalThis.fetch(input, init);
    };
    const model = new OpenAICompatibleChatModel({
      baseURL: 'http://127.0.0.1:6000/v1',
      model: 'm',
      fetch,
      maxRetries: 3,
      ...fast,
    });
    const error = await model.generate({ messages: [user('hi')] }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'configuration', reason: 'blocked-port', attempts: 1 });
    expect(calls).toBe(1);
    expect(String(error)).toMatch(/fetch refuses port 6000 .*Run the model server on another port/);
    expect(String(error)).not.toMatch(/work again later/);
  });

  it.each<[string, Record<string, unknown>, ModelFailureKind, ModelFailureReason]>([
    ['an unknown host', { code: 'ENOTFOUND' }, 'configuration', 'host-not-found'],
    ['an unreachable network', { code: 'ENETUNREACH' }, 'configuration', 'host-unreachable'],
    ['a bad certificate', { code: 'CERT_HAS_EXPIRED' }, 'configuration', 'tls'],
    ['a temporary DNS failure', { code: 'EAI_AGAIN' }, 'transient', 'host-not-found'],
    ['a socket closed mid-body', { code: 'UND_ERR_SOCKET' }, 'transient', 'connection-reset'],
    [
      'an aggregate of refusals',
      { errors: [{ code: 'ECONNREFUSED' }] },
      'configuration',
      'connection-refused',
    ],
  ])('classifies fetch failing with %s', async (_name, cause, kind, reason) => {
    let calls = 0;
    const fetch: typeof globalThis.fetch = async () => {
      calls += 1;
      throw new TypeError('fetch failed', { cause });
    };
    const model = new OpenAICompatibleChatModel({
      baseURL: 'http://x.test/v1',
      model: 'm',
      fetch,
      maxRetries: 1,
      ...fast,
    });
    await expect(model.generate({ messages: [user('hi')] })).rejects.toMatchObject({ kind, reason });
    expect(calls).toBe(kind === 'transient' ? 2 : 1);
  });

  it('refuses a base URL that is not a URL when constructed', () => {
    expect(() => new OpenAICompatibleChatModel({ baseURL: 'localhost:11434', model: 'm' })).toThrow(
      /baseURL 'localhost:11434' is not an http\(s\) URL/,
    );
    expect(
      () => new OpenAICompatibleChatModel({ baseURL: 'http://x/v1', model: 'm', maxRetries: -1 }),
    ).toThrow(/maxRetries must be a whole number ≥ 0, got -1/);
  });
});

describe('finish reasons', () => {
  it('reports a missing finish reason as unknown and keeps the raw reason', async () => {
    server = await startScriptedOpenAIServer([
      { kind: 'reply', content: 'x', finishReason: null },
      { kind: 'reply', content: 'x', finishReason: 'content_filter' },
      { kind: 'reply', content: 'x', finishReason: 'eos' },
      { kind: 'reply', content: 'x', finishReason: 'weird' },
      { kind: 'reply', content: '', reasoning: 'I think', finishReason: 'stop' },
    ]);
    const model = new OpenAICompatibleChatModel({ baseURL: server.baseURL, model: 'm' });
    const results = [];
    for (let index = 0; index < 5; index += 1) results.push(await model.generate({ messages: [user('hi')] }));
    expect(results.map((result) => [result.finishReason, result.rawFinishReason])).toEqual([
      ['unknown', undefined],
      ['content-filter', 'content_filter'],
      ['stop', 'eos'],
      ['other', 'weird'],
      ['stop', 'stop'],
    ]);
    expect(results[4]?.reasoning).toBe('I think');
  });
});

describe('toChatModelError', () => {
  it('classifies what other ChatModel implementations throw', () => {
    const apiCallError = Object.assign(new Error('Unauthorized'), { statusCode: 401 });
    expect(
      toChatModelError(new ContextError({ code: 'MODEL_REQUEST_FAILED', message: 'x', cause: apiCallError })),
    ).toMatchObject({ kind: 'configuration', status: 401 });
    expect(toChatModelError(Object.assign(new Error('busy'), { status: 529 }))).toMatchObject({
      kind: 'transient',
      status: 529,
    });
    expect(
      toChatModelError(new ContextError({ code: 'DEPENDENCY_MISSING', message: 'install ai' })),
    ).toMatchObject({ kind: 'configuration' });
    expect(toChatModelError(new Error('socket hang up'))).toMatchObject({
      kind: 'transient',
      reason: 'other',
    });
    expect(toChatModelError(new ContextError({ code: 'ABORTED', message: 'stop' }))).toBeUndefined();
    expect(failureKindForStatus(408)).toBe('transient');
    expect(failureKindForStatus(422)).toBe('configuration');
  });
});

describe('toChatModelError with the AI SDK', () => {
  const call = async (baseURL: string): Promise<unknown> => {
    const provider = createOpenAICompatible({ name: 'test', baseURL, apiKey: 'k' });
    return generateText({ model: provider('m'), prompt: 'hi', maxRetries: 0 }).catch(
      (caught: unknown) => caught,
    );
  };

  it('classifies what generateText throws for a 401, a 503 and a closed port', async () => {
    server = await startScriptedOpenAIServer([
      { kind: 'status', status: 401 },
      { kind: 'status', status: 503 },
    ]);
    expect(toChatModelError(await call(server.baseURL))).toMatchObject({
      kind: 'configuration',
      status: 401,
    });
    expect(toChatModelError(await call(server.baseURL))).toMatchObject({ kind: 'transient', status: 503 });
    expect(toChatModelError(await call(await closedServerURL()))).toMatchObject({
      kind: 'configuration',
      reason: 'connection-refused',
    });
    expect(toChatModelError(await call('http://127.0.0.1:6000/v1'))).toMatchObject({
      kind: 'configuration',
      reason: 'blocked-port',
    });
  });
});
