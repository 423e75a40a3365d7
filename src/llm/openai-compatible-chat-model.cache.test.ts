import { afterEach, describe, expect, it } from 'vitest';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../test/helpers/scripted-openai-server.js';
import { user } from '../core/factories.js';
import { OpenAICompatibleChatModel } from './openai-compatible-chat-model.js';

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('OpenAICompatibleChatModel prompt caching', () => {
  it('sends prompt_cache_key from the session key and the 24h retention', async () => {
    server = await startScriptedOpenAIServer([{ kind: 'reply', content: 'ok' }]);
    const model = new OpenAICompatibleChatModel({
      baseURL: server.baseURL,
      model: 'gpt-5',
      promptCache: { sessionKey: 'cli:direct', retention: '24h' },
    });
    await model.generate({ messages: [user('hi')] });
    expect(server.requests[0]).toMatchObject({
      prompt_cache_key: 'cli:direct',
      prompt_cache_retention: '24h',
    });
  });

  it('sends neither field by default', async () => {
    server = await startScriptedOpenAIServer([{ kind: 'reply', content: 'ok' }]);
    await new OpenAICompatibleChatModel({ baseURL: server.baseURL, model: 'm' }).generate({
      messages: [user('hi')],
    });
    expect(server.requests[0]).not.toHaveProperty('prompt_cache_key');
  });
});
