import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, type ModelMessage, stepCountIs, tool } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openAIChatRequestMessagesSchema } from '../../test/fixtures/schemas/openai-chat-request.js';
import { fromOpenAIChatMessages } from '../adapters/from-openai-chat-messages.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { traceDecisions } from '../pipeline/build-trace.js';
import { ContextBuilder } from '../presets/context-builder.js';
import type { AiSdkStepTrace } from './ai-sdk-step-trace.js';
import { createPrepareStep } from './create-prepare-step.js';

type Scripted = { readonly name: string; readonly arguments: string } | { readonly text: string };

/** A local OpenAI-compatible chat completions server that answers with scripted tool calls. */
async function startScriptedServer(
  script: readonly Scripted[],
): Promise<{ server: Server; url: string; requests: unknown[] }> {
  const requests: unknown[] = [];
  const server = createServer(async (request: IncomingMessage, response) => {
    let body = '';
    for await (const chunk of request) body += String(chunk);
    const parsed: unknown = JSON.parse(body);
    requests.push(parsed);
    const step = script[requests.length - 1] ?? { text: 'out of script' };
    const message =
      'text' in step
        ? { role: 'assistant', content: step.text }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: `call_${requests.length}`,
                type: 'function',
                function: { name: step.name, arguments: step.arguments },
              },
            ],
          };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: 0,
        model: 'scripted',
        choices: [{ index: 0, message, finish_reason: 'text' in step ? 'stop' : 'tool_calls' }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo; // listening on TCP, so an AddressInfo
  return { server, url: `http://127.0.0.1:${port}/v1`, requests };
}

let workspace = '';
let server: Server | undefined;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-loop-'));
});
afterEach(async () => {
  server?.close();
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
    server = started.server;
    const model = createOpenAICompatible({ name: 'scripted', baseURL: started.url }).chatModel('scripted');
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
    server = started.server;
    const model = createOpenAICompatible({ name: 'scripted', baseURL: started.url }).chatModel('scripted');
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
