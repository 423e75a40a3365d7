/**
 * What the incremental reading of createPrepareStep rests on, checked against the real AI SDK (6 here,
 * 7 in the Node 24 run): `generateText` gives `prepareStep` the same message objects at every step of
 * a run (a new array of the run's initial messages and response messages so far), while a model
 * middleware gets a provider prompt made anew for every call (no message object is shared between
 * two calls), so ctxloomMiddleware has no identity to cache on and reads each prompt whole. And in a
 * real run, createPrepareStep reads the history's messages at the first step only.
 */
import {
  generateText,
  type LanguageModelMiddleware,
  type ModelMessage,
  stepCountIs,
  tool,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ContextGovernor } from '../filters/context-governor.js';
import { createPrepareStep } from './create-prepare-step.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model that calls `exec` twice, then answers. */
function looping() {
  let calls = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      calls += 1;
      return calls < 3
        ? {
            content: [{ type: 'tool-call', toolCallId: `c${calls}`, toolName: 'exec', input: '{}' }],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          }
        : {
            content: [{ type: 'text', text: 'done' }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage,
            warnings: [],
          };
    },
  });
}

const tools = {
  exec: tool({ inputSchema: z.object({}), execute: async () => 'output' }),
};
const history: ModelMessage[] = [
  { role: 'user', content: 'first' },
  { role: 'assistant', content: [{ type: 'text', text: 'answer' }] },
  { role: 'user', content: 'go' },
];

describe('the AI SDK across the steps of one run', () => {
  it('gives prepareStep the messages of the previous step again, as the same objects', async () => {
    const seen: ModelMessage[][] = [];
    await generateText({
      model: looping(),
      tools,
      messages: history,
      stopWhen: stepCountIs(5),
      prepareStep: ({ messages }) => {
        seen.push(messages);
        return undefined;
      },
    });
    expect(seen).toHaveLength(3);
    for (let step = 1; step < seen.length; step += 1) {
      const before = seen[step - 1] ?? [];
      const now = seen[step] ?? [];
      expect(now).not.toBe(before);
      expect(now.length).toBe(before.length + 2);
      expect(now.slice(0, before.length).every((message, index) => message === before[index])).toBe(true);
    }
  });

  it('gives a middleware a new prompt at every call: no message object is shared', async () => {
    const prompts: (readonly object[])[] = [];
    const middleware: LanguageModelMiddleware = {
      specificationVersion: 'v3',
      transformParams: async ({ params }) => {
        prompts.push(params.prompt);
        return params;
      },
    };
    await generateText({
      model: wrapLanguageModel({ model: looping(), middleware }),
      tools,
      messages: history,
      stopWhen: stepCountIs(5),
    });
    expect(prompts).toHaveLength(3);
    const first = new Set(prompts[0]);
    for (const prompt of prompts.slice(1)) expect(prompt.some((message) => first.has(message))).toBe(false);
  });
});

describe('createPrepareStep in a real run', () => {
  it('reads the history at the first step only (the AI SDK reads it again itself)', async () => {
    const reads: number[] = [];
    // The step whose prepareStep is running (the AI SDK reads the messages itself, after it).
    let step: number | undefined;
    // The history, its parts read through a proxy that notes the step reading them.
    const watch = <TPart extends object>(parts: TPart[]): TPart[] =>
      new Proxy(parts, {
        get(target, key, receiver) {
          if (step !== undefined && typeof key === 'string' && /^\d+$/.test(key)) reads.push(step);
          return Reflect.get(target, key, receiver);
        },
      });
    const watched: ModelMessage[] = [
      { role: 'user', content: watch([{ type: 'text', text: 'first' }]) },
      { role: 'assistant', content: watch([{ type: 'text', text: 'answer' }]) },
      { role: 'user', content: watch([{ type: 'text', text: 'go' }]) },
    ];
    const prepareStep = createPrepareStep({
      governor: new ContextGovernor({ contextWindowTokens: 100_000 }),
    });
    const result = await generateText({
      model: looping(),
      tools,
      messages: watched,
      stopWhen: stepCountIs(5),
      prepareStep: async (args) => {
        step = args.stepNumber;
        const prepared = await prepareStep(args);
        step = undefined;
        return prepared;
      },
    });
    expect(result.steps).toHaveLength(3);
    expect(reads.filter((at) => at === 0).length).toBeGreaterThan(0);
    expect(reads.filter((at) => at > 0)).toEqual([]);
  });
});
