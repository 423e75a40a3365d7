/**
 * createPrepareStep keeps no run state in its closure: interleaved runs sharing one prepareStep each
 * compact only their own in-flight results (AI SDK 6 and 7 argument shapes, and real concurrent
 * runs); the system prompt and the AI SDK `tools` object are counted; it works with `streamText`
 * and `ToolLoopAgent` too. Over 300 lines: the interleaving scenarios (AI SDK 6 and 7 argument
 * shapes, real concurrent runs) share their helpers here.
 */

import { createAnthropic } from '@ai-sdk/anthropic';
import * as ai from 'ai';
import { generateText, type ModelMessage, stepCountIs, streamText, ToolLoopAgent, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { anthropicBodyTokens, anthropicRequestViolations } from '../../test/helpers/check-request-body.js';
import { startScriptedAnthropicServer } from '../../test/helpers/scripted-anthropic-server.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { traceDecisions } from '../pipeline/build-trace.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import type { AiSdkStepTrace } from './ai-sdk-step-trace.js';
import { createPrepareStep, type PrepareStepArguments } from './create-prepare-step.js';

const RESULT = 'x'.repeat(4_000);

function call(id: string, toolName: string): ModelMessage {
  return { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName, input: {} }] };
}
function result(id: string, toolName: string): ModelMessage {
  return {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: id, toolName, output: { type: 'text', value: `${id} ${RESULT}` } },
    ],
  };
}
function stored(name: string, calls: number): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (let index = 0; index < calls; index += 1) {
    messages.push(
      { role: 'user', content: `${name} question ${index}` },
      call(`${name}-h${index}`, 'read_file'),
      result(`${name}-h${index}`, 'read_file'),
    );
  }
  messages.push({ role: 'user', content: `${name}: go` });
  return messages;
}

/** chars/4 counting, so that the 4,000-char results are over the 3,500-token block limit per step. */
function governor(): ContextGovernor {
  return new ContextGovernor({
    contextWindowTokens: 100_000,
    blockLimit: 3_500,
    tokenCounter: new SimpleTokenCounter(),
  });
}

/** The call ids compacted in a step, from its trace. */
function compactedIds(step: AiSdkStepTrace<ModelMessage>): string[] {
  return traceDecisions(step.trace)
    .filter((decision) => decision.type === 'tool-result-compact')
    .map((decision) => String(decision.details?.['toolCallId']));
}

/** The tool result texts a step sends, by call id. */
function sentResults(step: AiSdkStepTrace<ModelMessage>): Map<string, string> {
  const out = new Map<string, string>();
  for (const message of step.sent) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.output.type === 'text')
        out.set(part.toolCallId, part.output.value);
    }
  }
  return out;
}

/** The steps of the run whose history starts with `name`'s first question. */
function stepsOf(
  traces: readonly AiSdkStepTrace<ModelMessage>[],
  name: string,
): AiSdkStepTrace<ModelMessage>[] {
  const first = traces.find((trace) =>
    trace.messages.some((message) => message.content === `${name} question 0`),
  );
  return traces.filter((trace) => trace.runId === first?.runId);
}

/** Each run has 4 steps, compacted some of its own in-flight results, and never a history result. */
function expectOwnCompactions(traces: readonly AiSdkStepTrace<ModelMessage>[]): void {
  expect(new Set(traces.map((trace) => trace.runId)).size).toBe(2);
  for (const name of ['A', 'B']) {
    const steps = stepsOf(traces, name);
    expect(steps.map((step) => step.stepNumber)).toEqual([0, 1, 2, 3]);
    const compacted = steps.flatMap(compactedIds);
    expect(compacted.length).toBeGreaterThan(0);
    expect(compacted.filter((id) => !id.startsWith(`${name}-s`))).toEqual([]);
    const history = steps.flatMap((step) => [...sentResults(step)].filter(([id]) => id.includes('-h')));
    expect(history.filter(([id, text]) => text !== `${id} ${RESULT}`)).toEqual([]);
    expect(steps.filter((step) => step.trace.totalTokens > 3_500)).toEqual([]);
  }
}

type StepLog = { response: { messages: ModelMessage[] } }[];

describe('one createPrepareStep shared by interleaved runs', () => {
  it.each([
    ['A', 'B'],
    ['B', 'A'],
  ] as const)(
    'compacts only each run’s own in-flight results (AI SDK 6 arguments: run %s step 0, run %s step 0, …)',
    async (first, second) => {
      const traces: AiSdkStepTrace<ModelMessage>[] = [];
      const prepareStep = createPrepareStep(
        { governor: governor() },
        { onStep: (step) => traces.push(step) },
      );
      const runs = {
        A: { history: stored('A', 1), steps: [] as StepLog },
        B: { history: stored('B', 2), steps: [] as StepLog },
      };
      const responses: Record<'A' | 'B', ModelMessage[]> = { A: [], B: [] };
      for (let step = 0; step < 4; step += 1) {
        for (const name of [first, second]) {
          const run = runs[name];
          const args: PrepareStepArguments = {
            stepNumber: step,
            steps: run.steps,
            messages: [...run.history, ...responses[name]],
          };
          await prepareStep(args);
          const id = `${name}-s${step}`;
          responses[name].push(call(id, 'exec'), result(id, 'exec'));
          // AI SDK 6: each step lists the run's response messages so far.
          run.steps.push({ response: { messages: [...responses[name]] } });
        }
      }
      expectOwnCompactions(traces);
    },
  );

  it('compacts only each run’s own in-flight results (AI SDK 7 arguments: initialMessages, returned messages carried on)', async () => {
    const traces: AiSdkStepTrace<ModelMessage>[] = [];
    const prepareStep = createPrepareStep({ governor: governor() }, { onStep: (step) => traces.push(step) });
    const state = {
      A: {
        initial: stored('A', 1),
        carried: undefined as ModelMessage[] | undefined,
        steps: [] as StepLog,
      },
      B: {
        initial: stored('B', 2),
        carried: undefined as ModelMessage[] | undefined,
        steps: [] as StepLog,
      },
    };
    for (let step = 0; step < 4; step += 1) {
      for (const name of ['A', 'B'] as const) {
        const run = state[name];
        const messages = run.carried ?? run.initial;
        const prepared = await prepareStep({
          stepNumber: step,
          steps: run.steps,
          messages,
          initialMessages: run.initial,
        });
        const id = `${name}-s${step}`;
        const response = [call(id, 'exec'), result(id, 'exec')];
        // AI SDK 7: what prepareStep returned is the conversation of the next step.
        run.carried = [...(prepared?.messages ?? messages), ...response];
        run.steps.push({ response: { messages: response } });
      }
    }
    expectOwnCompactions(traces);
  });

  it.each([
    ['A', 'B'],
    ['B', 'A'],
  ] as const)('keeps two concurrent generateText runs apart (%s goes first)', async (first, second) => {
    const gate = turnstile([0, 1, 2, 3].flatMap((step) => [`${first}${step}`, `${second}${step}`]));
    const model = (name: string) => {
      let step = 0;
      return new MockLanguageModelV3({
        doGenerate: async () => {
          const token = `${name}${step}`;
          await gate.wait(token);
          step += 1;
          const content =
            step <= 3
              ? [
                  {
                    type: 'tool-call' as const,
                    toolCallId: `${name}-s${step}`,
                    toolName: 'exec',
                    input: '{}',
                  },
                ]
              : [{ type: 'text' as const, text: 'done' }];
          setTimeout(gate.done, 0);
          return {
            content,
            finishReason: { unified: step <= 3 ? 'tool-calls' : 'stop', raw: undefined },
            usage: {
              inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: 1, text: 1, reasoning: 0 },
            },
            warnings: [],
          };
        },
      });
    };
    const tools = { exec: tool({ inputSchema: z.object({}), execute: async () => RESULT }) };
    const traces: AiSdkStepTrace<ModelMessage>[] = [];
    const prepareStep = createPrepareStep(
      { governor: governor() },
      { tools, onStep: (step) => traces.push(step) },
    );
    const run = (name: string, history: ModelMessage[]) =>
      generateText({ model: model(name), tools, messages: history, stopWhen: stepCountIs(6), prepareStep });
    const histories = { A: stored('A', 1), B: stored('B', 2) };
    const results = await Promise.all([run(first, histories[first]), run(second, histories[second])]);
    expect(results.map((result) => result.text)).toEqual(['done', 'done']);
    expectOwnCompactions(traces);
  });
});

describe('createPrepareStep counts what the model receives', () => {
  const bigSystem = 'S'.repeat(8_000);

  it('counts the system prompt passed to generateText, so every request fits a small window', async () => {
    const server = await startScriptedAnthropicServer([
      ...[1, 2, 3, 4, 5, 6, 7].map((step) => ({
        kind: 'reply' as const,
        content: [
          { type: 'tool_use' as const, id: `toolu_${step}`, name: 'grep', input: { pattern: `p${step}` } },
        ],
      })),
      { kind: 'reply' as const, content: [{ type: 'text' as const, text: 'done' }] },
    ]);
    try {
      const counter = new SimpleTokenCounter();
      const window = new ContextGovernor({
        contextWindowTokens: 6_000,
        maxOutputTokens: 1_000,
        safetyBufferTokens: 0,
        tokenCounter: counter,
      });
      const tools = {
        grep: tool({
          description: 'Search',
          inputSchema: z.object({ pattern: z.string() }),
          execute: async ({ pattern }) => `${pattern} ${'g'.repeat(3_000)}`,
        }),
      };
      await generateText({
        model: createAnthropic({ baseURL: server.baseURL, apiKey: 'test' })('claude-scripted'),
        system: bigSystem,
        tools,
        messages: [{ role: 'user', content: 'Search everything.' }],
        stopWhen: stepCountIs(10),
        prepareStep: createPrepareStep({ governor: window }, { system: bigSystem, tools }),
      });
      expect(server.requests).toHaveLength(8);
      for (const body of server.requests) {
        expect(anthropicRequestViolations(body)).toEqual([]);
        expect(anthropicBodyTokens(body, counter)).toBeLessThanOrEqual(window.budgetTokens);
      }
    } finally {
      await server.close();
    }
  });

  it('counts the JSON schemas of the AI SDK tools object (zod included)', async () => {
    const traces: AiSdkStepTrace<ModelMessage>[] = [];
    const tools = {
      lookup: tool({
        description: 'Look a word up',
        inputSchema: z.object({ word: z.string().describe('the word to look up') }),
      }),
      raw: tool({
        description: 'Raw JSON schema',
        inputSchema: ai.jsonSchema({ type: 'object', properties: { n: { type: 'number' } } }),
      }),
    };
    const prepareStep = createPrepareStep(
      { governor: governor() },
      { tools, onStep: (step) => traces.push(step) },
    );
    await prepareStep({ stepNumber: 0, messages: [{ role: 'user', content: 'hi' }] });
    const counter = new SimpleTokenCounter();
    expect(traces[0]?.trace.toolTokens).toBe(
      counter.countTools([
        {
          name: 'lookup',
          description: 'Look a word up',
          parameters: z.toJSONSchema(z.object({ word: z.string().describe('the word to look up') }), {
            target: 'draft-7',
          }),
        },
        {
          name: 'raw',
          description: 'Raw JSON schema',
          parameters: { type: 'object', properties: { n: { type: 'number' } } },
        },
      ]),
    );
  });
});

describe('createPrepareStep in the other AI SDK loops', () => {
  it('works with streamText', async () => {
    const server = await startScriptedAnthropicServer([
      {
        kind: 'reply',
        content: [
          { type: 'thinking', thinking: 'look', signature: 'sig-1' },
          { type: 'tool_use', id: 'toolu_1', name: 'grep', input: { pattern: 'a' } },
        ],
      },
      { kind: 'reply', content: [{ type: 'text', text: 'found it' }] },
    ]);
    try {
      const traces: AiSdkStepTrace<ModelMessage>[] = [];
      const tools = {
        grep: tool({
          inputSchema: z.object({ pattern: z.string() }),
          execute: async () => 'r'.repeat(30_000),
        }),
      };
      const result = streamText({
        model: createAnthropic({ baseURL: server.baseURL, apiKey: 'test' })('claude-scripted'),
        tools,
        messages: [{ role: 'user', content: 'find a' }],
        stopWhen: stepCountIs(4),
        prepareStep: createPrepareStep(
          { governor: new ContextGovernor({ contextWindowTokens: 100_000 }) },
          { tools, onStep: (step) => traces.push(step) },
        ),
      });
      expect(await result.text).toBe('found it');
      expect(traces.map((trace) => trace.stepNumber)).toEqual([0, 1]);
      expect(server.requests[1]?.['stream']).toBe(true);
      expect(JSON.stringify(server.requests[1])).toContain('"signature":"sig-1"');
      expect(JSON.stringify(server.requests[1])).not.toContain('r'.repeat(20_000));
      expect(server.violations.flat()).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('works with ToolLoopAgent', async () => {
    const server = await startScriptedAnthropicServer([
      {
        kind: 'reply',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'grep', input: { pattern: 'a' } }],
      },
      { kind: 'reply', content: [{ type: 'text', text: 'agent done' }] },
    ]);
    try {
      const traces: AiSdkStepTrace<ModelMessage>[] = [];
      const tools = {
        grep: tool({
          inputSchema: z.object({ pattern: z.string() }),
          execute: async () => 'r'.repeat(30_000),
        }),
      };
      const agent = new ToolLoopAgent({
        model: createAnthropic({ baseURL: server.baseURL, apiKey: 'test' })('claude-scripted'),
        tools,
        stopWhen: stepCountIs(4),
        prepareStep: createPrepareStep(
          { governor: new ContextGovernor({ contextWindowTokens: 100_000 }) },
          { tools, onStep: (step) => traces.push(step) },
        ),
      });
      const result = await agent.generate({ prompt: 'find a' });
      expect(result.text).toBe('agent done');
      expect(traces.map((trace) => trace.stepNumber)).toEqual([0, 1]);
      expect(JSON.stringify(server.requests[1])).not.toContain('r'.repeat(20_000));
    } finally {
      await server.close();
    }
  });

  it('runs against the AI SDK major of this Node (6 on Node 20, 7 on Node 24)', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect('isStepCount' in ai).toBe(major >= 24);
  });
});

/** Lets calls through one at a time, in the given order of tokens. */
function turnstile(order: readonly string[]): { wait: (token: string) => Promise<void>; done: () => void } {
  let turn = 0;
  const waiters = new Map<string, () => void>();
  return {
    wait: (token) =>
      new Promise<void>((resolve) => {
        if (order[turn] === token) resolve();
        else waiters.set(token, resolve);
      }),
    done: () => {
      turn += 1;
      const next = order[turn] ?? '';
      waiters.get(next)?.();
      waiters.delete(next);
    },
  };
}
