/**
 * The tool loop of issue "lossless, typed interop": an AI SDK loop of 9 steps with 3 tools, one
 * 200 KB result, a large `system`, and a history with Anthropic `cacheControl`, a signed and a
 * redacted reasoning part and tool outputs of every type, run through `createPrepareStep` and through
 * `ctxloomMiddleware`, against `@ai-sdk/anthropic` (a scripted Messages API server) and
 * `@ai-sdk/openai-compatible` (a scripted chat completions server). Every request body the servers
 * receive is checked: legal for the provider, within the budget, with every provider option and
 * output type that needed no change still there. Runs on AI SDK 6 (Node 20) and 7 (Node 24).
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  generateText,
  type LanguageModel,
  type ModelMessage,
  stepCountIs,
  tool,
  wrapLanguageModel,
} from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { richAiSdkHistory } from '../../test/fixtures/ai-sdk/rich-history.js';
import {
  anthropicBodyTokens,
  anthropicRequestViolations,
  openAIChatBodyTokens,
  openAIChatViolations,
} from '../../test/helpers/check-request-body.js';
import {
  type ScriptedAnthropicBlock,
  startScriptedAnthropicServer,
} from '../../test/helpers/scripted-anthropic-server.js';
import { startScriptedOpenAIServer } from '../../test/helpers/scripted-openai-server.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { traceDecisions } from '../pipeline/build-trace.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import type { AiSdkStepTrace } from './ai-sdk-step-trace.js';
import { createPrepareStep } from './create-prepare-step.js';
import { ctxloomMiddleware } from './ctxloom-middleware.js';

const BIG_RESULT = `${'L'.repeat(199_999)}!`;
const SYSTEM_TEXT = `You are a careful engineer. ${'Follow the house rules. '.repeat(340)}`;
const cache = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;
const system = [{ role: 'system' as const, content: SYSTEM_TEXT, providerOptions: cache }];

const tools = {
  read_file: tool({
    description: 'Read a file',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path: file }) => `// ${file}\n${'r'.repeat(3_000)}`,
  }),
  exec: tool({
    description: 'Run a command',
    inputSchema: z.object({ cmd: z.string() }),
    execute: async ({ cmd }) => (cmd === 'cat big.log' ? BIG_RESULT : `$ ${cmd}\n${'o'.repeat(3_000)}`),
  }),
  grep: tool({
    description: 'Search the workspace',
    inputSchema: z.object({ pattern: z.string() }),
    execute: async ({ pattern }) => `${pattern}: ${'g'.repeat(3_000)}`,
  }),
};

/** The 9 steps: 8 tool calls (3 tools, the second one 200 KB), then the answer. */
const CALLS: readonly {
  readonly name: keyof typeof tools;
  readonly input: Readonly<Record<string, string>>;
}[] = [
  { name: 'read_file', input: { path: 'src/a.ts' } },
  { name: 'exec', input: { cmd: 'cat big.log' } },
  { name: 'grep', input: { pattern: 'TODO' } },
  { name: 'read_file', input: { path: 'src/b.ts' } },
  { name: 'exec', input: { cmd: 'npm test' } },
  { name: 'grep', input: { pattern: 'FIXME' } },
  { name: 'read_file', input: { path: 'src/c.ts' } },
  { name: 'grep', input: { pattern: 'XXX' } },
];

const counter = new SimpleTokenCounter();
let workspace = '';
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-ai-sdk-loop-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function governor(): ContextGovernor {
  return new ContextGovernor({
    contextWindowTokens: 10_000,
    maxOutputTokens: 1_000,
    safetyBufferTokens: 1_000,
    workspace,
    sessionKey: 'loop:test',
    tokenCounter: counter,
  });
}

/** The history: the rich fixture without its system message (the large `system` replaces it). */
function history(): ModelMessage[] {
  return richAiSdkHistory().filter((message) => message.role !== 'system');
}

async function anthropicServer() {
  return startScriptedAnthropicServer([
    ...CALLS.map((call, step) => ({
      kind: 'reply' as const,
      content: [
        { type: 'thinking', thinking: `Step ${step}: call ${call.name}.`, signature: `sig-step-${step}` },
        { type: 'tool_use', id: `toolu_step_${step}`, name: call.name, input: call.input },
      ] satisfies ScriptedAnthropicBlock[],
    })),
    { kind: 'reply' as const, content: [{ type: 'text', text: 'All done.' }] },
  ]);
}

async function openAIServer() {
  return startScriptedOpenAIServer([
    ...CALLS.map((call, step) => ({
      kind: 'reply' as const,
      content: null,
      finishReason: 'tool_calls',
      toolCalls: [{ id: `call_step_${step}`, name: call.name, arguments: JSON.stringify(call.input) }],
    })),
    { kind: 'reply' as const, content: 'All done.' },
  ]);
}

type Run = { readonly model: LanguageModel; readonly via: 'prepare-step' | 'middleware' };

async function loop(run: Run, steps: AiSdkStepTrace<unknown>[]) {
  const onStep = (step: AiSdkStepTrace<unknown>) => steps.push(step);
  const source = { governor: governor() };
  return generateText({
    model:
      run.via === 'middleware'
        ? wrapLanguageModel({ model: run.model as never, middleware: ctxloomMiddleware(source, { onStep }) })
        : run.model,
    tools,
    system,
    messages: history(),
    stopWhen: stepCountIs(12),
    ...(run.via === 'prepare-step'
      ? { prepareStep: createPrepareStep(source, { tools, system, onStep }) }
      : {}),
  });
}

/** What every governed step must show: in budget, the 200 KB result offloaded, compaction of in-flight results only. */
function expectGovernedSteps(steps: readonly AiSdkStepTrace<unknown>[], budget: number): void {
  expect(steps).toHaveLength(9);
  expect(steps.map((step) => step.stepNumber)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  for (const step of steps) expect(step.trace.totalTokens).toBeLessThanOrEqual(budget);
  const decisions = steps.flatMap((step) => traceDecisions(step.trace));
  expect(decisions.some((decision) => decision.type === 'tool-result-offload')).toBe(true);
  const compacted = decisions.filter((decision) => decision.type === 'tool-result-compact');
  expect(compacted.length).toBeGreaterThan(0);
  const historyCallIds = new Set(['toolu_1', 'toolu_2', 'toolu_3', 'toolu_4', 'toolu_5', 'toolu_6']);
  for (const decision of compacted)
    expect(historyCallIds.has(String(decision.details?.['toolCallId']))).toBe(false);
  expect(decisions.filter((decision) => decision.type === 'message-drop')).toEqual([]);
}

describe('an AI SDK tool loop governed by ctxloom', () => {
  const budget = governor().budgetTokens;

  it.each(['prepare-step', 'middleware'] as const)(
    'through %s with @ai-sdk/anthropic sends only legal requests and keeps markers, signatures and output types',
    async (via) => {
      const server = await anthropicServer();
      try {
        const steps: AiSdkStepTrace<unknown>[] = [];
        const model = createAnthropic({ baseURL: server.baseURL, apiKey: 'test' })('claude-scripted');
        const result = await loop({ model, via }, steps);
        expect(result.text).toBe('All done.');
        expect(server.requests).toHaveLength(9);
        expect(server.violations.flat()).toEqual([]);
        expectGovernedSteps(steps, budget);
        server.requests.forEach((body, index) => {
          expect(anthropicRequestViolations(body)).toEqual([]);
          expect(anthropicBodyTokens(body, counter)).toBeLessThanOrEqual(budget);
          const sent = JSON.stringify(body);
          // The history's cache markers, signed and redacted thinking, failed result: sent every time.
          expect(body['system']).toEqual([
            { type: 'text', text: SYSTEM_TEXT, cache_control: { type: 'ephemeral' } },
          ]);
          expect(sent).toContain(
            '{"type":"thinking","thinking":"The user wants a check.","signature":"sig-abc"}',
          );
          expect(sent).toContain('{"type":"redacted_thinking","data":"redacted-xyz"}');
          expect(sent).toContain('"tool_use_id":"toolu_2","content":"exit 1","is_error":true');
          expect(sent).toContain('"caller":{"type":"direct"}');
          expect((sent.match(/"cache_control"/g) ?? []).length).toBe(4);
          // The thinking of every step of this run comes back with its signature.
          for (let step = 0; step < index; step += 1)
            expect(sent).toContain(`"signature":"sig-step-${step}"`);
          expect(sent).not.toContain('L'.repeat(20_000));
        });
        expect(JSON.stringify(server.requests[2])).toContain('[tool output persisted]');
        expect(await readdir(path.join(workspace, '.ctxloom', 'tool-results', 'loop_test'))).toHaveLength(1);
      } finally {
        await server.close();
      }
    },
  );

  it.each(['prepare-step', 'middleware'] as const)(
    'through %s with @ai-sdk/openai-compatible sends only legal requests within the budget',
    async (via) => {
      const server = await openAIServer();
      try {
        const steps: AiSdkStepTrace<unknown>[] = [];
        const model = createOpenAICompatible({ name: 'scripted', baseURL: server.baseURL }).chatModel(
          'scripted',
        );
        const result = await loop({ model, via }, steps);
        expect(result.text).toBe('All done.');
        expect(server.requests).toHaveLength(9);
        expectGovernedSteps(steps, budget);
        for (const body of server.requests) {
          expect(openAIChatViolations(body)).toEqual([]);
          expect(openAIChatBodyTokens(body, counter)).toBeLessThanOrEqual(budget);
          expect(JSON.stringify(body)).not.toContain('L'.repeat(20_000));
        }
      } finally {
        await server.close();
      }
    },
  );

  it('gives the history back as the same objects at every step (prepareStep)', async () => {
    const server = await anthropicServer();
    try {
      const steps: AiSdkStepTrace<ModelMessage>[] = [];
      const messages = history();
      await generateText({
        model: createAnthropic({ baseURL: server.baseURL, apiKey: 'test' })('claude-scripted'),
        tools,
        system,
        messages,
        stopWhen: stepCountIs(12),
        prepareStep: createPrepareStep(
          { governor: governor() },
          { tools, system, onStep: (step) => steps.push(step) },
        ),
      });
      for (const step of steps) {
        for (const message of messages) expect(step.sent).toContain(message);
      }
      expect(steps.filter((step) => step.changed).length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});
