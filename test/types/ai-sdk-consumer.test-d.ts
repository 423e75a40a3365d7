/**
 * Type test: what a user of AI SDK 6 or 7 writes with `ctxloom/ai-sdk` typechecks. `npm run typecheck`
 * checks it against AI SDK 6 (`ai`); `tsc -p test/types/tsconfig.ai-v7.json` (in CI) against AI SDK 7
 * (`ai` mapped to `ai-v7`), together with the whole `src/ai-sdk` folder it imports.
 */
import {
  generateText,
  type ModelMessage,
  stepCountIs,
  streamText,
  ToolLoopAgent,
  tool,
  wrapLanguageModel,
} from 'ai';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  contextToolSet,
  createPrepareStep,
  ctxloomMiddleware,
  fromAiSdkMessages,
  toAiSdkMessages,
} from '../../src/ai-sdk/index.js';
import { createContextTools } from '../../src/context-tools/index.js';
import { ContextGovernor } from '../../src/filters/context-governor.js';
import { MemorySessionStore } from '../../src/sessions/memory-session-store.js';

declare const model: Parameters<typeof wrapLanguageModel>[0]['model'];

describe('ctxloom/ai-sdk in user code', () => {
  it('plugs into generateText, streamText, ToolLoopAgent and wrapLanguageModel', () => {
    const governor = new ContextGovernor({ contextWindowTokens: 100_000 });
    const tools = {
      grep: tool({
        description: 'Search',
        inputSchema: z.object({ pattern: z.string() }),
        execute: async () => 'found',
      }),
    };
    const system = 'Be brief.';
    const prepareStep = createPrepareStep({ governor }, { tools, system });
    const messages: ModelMessage[] = toAiSdkMessages([]).messages;
    const read = fromAiSdkMessages(messages);
    expectTypeOf(toAiSdkMessages(read.messages, { origins: read.origins }).messages).toEqualTypeOf<
      ModelMessage[]
    >();
    void generateText({ model, tools, system, messages, stopWhen: stepCountIs(5), prepareStep });
    void streamText({ model, tools, system, messages, stopWhen: stepCountIs(5), prepareStep });
    void new ToolLoopAgent({ model, tools, prepareStep });
    void generateText({
      model: wrapLanguageModel({ model, middleware: ctxloomMiddleware({ governor }) }),
      messages,
    });
  });

  it('spreads the context tools into the tools of generateText and ToolLoopAgent', async () => {
    const contextTools = createContextTools({
      workspace: '/tmp/agent',
      store: new MemorySessionStore(),
      sessionKey: 'cli:direct',
    });
    const tools = {
      grep: tool({
        description: 'Search',
        inputSchema: z.object({ pattern: z.string() }),
        execute: async () => 'found',
      }),
      ...(await contextToolSet(contextTools)),
    };
    void generateText({ model, tools, prompt: 'Go', stopWhen: stepCountIs(5) });
    void new ToolLoopAgent({ model, tools });
  });
});
