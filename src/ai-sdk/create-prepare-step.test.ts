import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, type ModelMessage, stepCountIs, tool } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openAIChatRequestMessagesSchema } from '../../test/fixtures/schemas/openai-chat-request.js';
import {
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from '../../test/helpers/scripted-openai-server.js';
import { fromOpenAIChatMessages } from '../adapters/from-openai-chat-messages.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { traceDecisions } from '../pipeline/build-trace.js';
import { ContextBuilder } from '../presets/context-builder.js';
import type { AiSdkStepTrace } from './ai-sdk-step-trace.js';
import { createPrepareStep } from './create-prepare-step.js';

type Scripted = { readonly name: string; readonly arguments: string } | { readonly text: string };

/** The scripted OpenAI server, answering with these tool calls (ids call_1, call_2 …) or texts. */
function startScriptedServer(script: readonly Scripted[]) {
  return startScriptedOpenAIServer(
    script.map((step, index) =>
      'text' in step
        ? { kind: 'reply' as const, content: step.text }
        : {
            kind: 'reply' as const,
            content: null,
            finishReason: 'tool_calls',
            toolCalls: [{ id: `call_${index + 1}`, name: step.name, arguments: step.arguments }],
          },
    ),
  );
}

let workspace = '';
let server: ScriptedOpenAIServer | undefined;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-loop-'));
});
afterEach(async () => {
  await server?.close();
  await rm(workspace, { recursive: true, force: true });
});

const bigExecOutput = `${'E'.repeat(19_999)}!`;
const tools = {
  exec: tool({
    description: 'Run a command',
    inputSchema: z.object({ cmd: z.string() }),
    execute: async () => bigExecOutput,
  }),
  grep: tool({
    description: 'Search',
    inputSchema: z.object({ pattern: z.string() }),
    execute: async ({ pattern }) => `${pattern}:${'G'.repeat(3000)}`,
  }),
};
const script: readonly Scripted[] = [
  { name: 'exec', arguments: '{"cmd":"cat big.log"}' },
  { name: 'grep', arguments: '{"pattern":"one"}' },
  { name: 'grep', arguments: '{"pattern":"two"}' },
  { text: 'All done.' },
];

describe('createPrepareStep in a real AI SDK tool loop', () => {
  it('governs every step: offload and compaction appear in the traces, every request is legal', async () => {
    const started = await startScriptedServer(script);
    server = started;
    const model = createOpenAICompatible({ name: 'scripted', baseURL: started.baseURL }).chatModel(
      'scripted',
    );
    const governor = new ContextGovernor({
      contextWindowTokens: 100_000,
      blockLimit: 1_500,
      workspace,
      sessionKey: 'loop:test',
    });
    const traces: AiSdkStepTrace<ModelMessage>[] = [];
    const result = await generateText({
      model,
      tools,
      system: 'You are terse.',
      messages: [{ role: 'user', content: 'Find the errors in big.log.' }],
      stopWhen: stepCountIs(6),
      prepareStep: createPrepareStep({ governor }, { tools, onStep: (step) => traces.push(step) }),
    });

    expect(result.text).toBe('All done.');
    expect(result.steps).toHaveLength(4);
    expect(started.requests).toHaveLength(4);
    expect(traces.map((step) => step.stepNumber)).toEqual([0, 1, 2, 3]);
    const decisions = traces.flatMap((step) =>
      traceDecisions(step.trace).map((entry) => ({ step: step.stepNumber, type: entry.type })),
    );
    expect(decisions).toContainEqual({ step: 1, type: 'tool-result-offload' });
    expect(decisions.some((entry) => entry.type === 'tool-result-compact')).toBe(true);

    const offloaded = path.join(workspace, '.ctxloom', 'tool-results', 'loop_test', 'call_1.txt');
    expect(await readFile(offloaded, 'utf8')).toBe(bigExecOutput);

    for (const body of started.requests) {
      const messages = (body as { messages: unknown[] }).messages; // the request body the provider sent
      expect(openAIChatRequestMessagesSchema.safeParse(messages).error?.issues ?? []).toEqual([]);
      expect(validateToolCallIntegrity(fromOpenAIChatMessages(messages).messages)).toEqual([]);
    }
    const sent = (index: number) =>
      JSON.stringify((started.requests[index] as { messages: unknown }).messages);
    expect(sent(1)).toContain('[tool output persisted]');
    expect(sent(1)).not.toContain('E'.repeat(16_001));
    expect(sent(3)).toContain('was compacted to fit context');
    // The AI SDK's own history keeps the full results: only the model copy is governed.
    expect(JSON.stringify(result.steps.map((step) => step.response.messages))).toContain(bigExecOutput);
  });

  it('works with a builder too, and returns undefined when nothing changes', async () => {
    const started = await startScriptedServer([{ text: 'hi' }]);
    server = started;
    const model = createOpenAICompatible({ name: 'scripted', baseURL: started.baseURL }).chatModel(
      'scripted',
    );
    const builder = new ContextBuilder({
      filters: new ContextGovernor({ contextWindowTokens: 100_000 }).filters,
    });
    const traces: AiSdkStepTrace<ModelMessage>[] = [];
    const prepareStep = createPrepareStep({ builder }, { onStep: (step) => traces.push(step) });
    await generateText({ model, messages: [{ role: 'user', content: 'hello' }], prepareStep });
    expect(traces).toHaveLength(1);
    expect(traces[0]?.changed).toBe(false);
    const direct = await prepareStep({
      stepNumber: 0,
      messages: [
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'k', toolName: 'exec', input: {} }] },
      ],
    });
    expect(direct?.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: [
        {
          toolCallId: 'k',
          output: { type: 'text', value: '[Tool result unavailable — call was interrupted or lost]' },
        },
      ],
    });
  });
});
