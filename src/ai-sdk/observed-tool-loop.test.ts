/**
 * A request recorder and OpenTelemetry spans end to end: an AI SDK tool loop against `@ai-sdk/anthropic`
 * (a scripted Messages API server), governed by `createPrepareStep` and by `ctxloomMiddleware`, with a
 * `RequestRecorder` (JSONL) and a `TelemetryObserver` (the OpenTelemetry SDK's in-memory exporter).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAnthropic } from '@ai-sdk/anthropic';
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { generateText, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startScriptedAnthropicServer } from '../../test/helpers/scripted-anthropic-server.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { combineRequestObservers } from '../recorder/combine-request-observers.js';
import { JsonlRequestStore } from '../recorder/jsonl-request-store.js';
import { readRecordedRequests } from '../recorder/read-recorded-requests.js';
import { RequestRecorder } from '../recorder/request-recorder.js';
import { TelemetryObserver } from '../telemetry/telemetry-observer.js';
import { aiSdkUsage } from './ai-sdk-usage.js';
import { createPrepareStep } from './create-prepare-step.js';
import { ctxloomMiddleware } from './ctxloom-middleware.js';

const BIG = `${'L'.repeat(40_000)}!`;
const tools = {
  exec: tool({
    description: 'Run a command',
    inputSchema: z.object({ cmd: z.string() }),
    execute: async ({ cmd }) => (cmd === 'cat big.log' ? BIG : `$ ${cmd}\nok`),
  }),
};
const messages: ModelMessage[] = [{ role: 'user', content: 'Check the logs, then run the tests.' }];

function script() {
  return startScriptedAnthropicServer([
    {
      kind: 'reply',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'exec', input: { cmd: 'cat big.log' } }],
    },
    {
      kind: 'reply',
      content: [{ type: 'tool_use', id: 'toolu_2', name: 'exec', input: { cmd: 'npm test' } }],
    },
    { kind: 'reply', content: [{ type: 'text', text: 'All done.' }] },
  ]);
}

const exporter = new InMemorySpanExporter();
beforeAll(() => {
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
});
afterAll(() => {
  trace.disable();
});

describe('an observed AI SDK tool loop', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-observed-'));
    exporter.reset();
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('records every prepareStep request with its usage and makes a span of each', async () => {
    const server = await script();
    try {
      const recorder = new RequestRecorder({ store: JsonlRequestStore.besideSessions(dir) });
      const observer = combineRequestObservers([recorder, new TelemetryObserver()]);
      const governor = new ContextGovernor({ maxToolResultChars: 2_000, contextWindowTokens: 200_000 });
      const result = await generateText({
        model: createAnthropic({ baseURL: server.baseURL, apiKey: 'test' })('claude-scripted'),
        tools,
        system: 'You are careful.',
        messages,
        stopWhen: stepCountIs(5),
        maxOutputTokens: 100,
        prepareStep: createPrepareStep(
          { governor },
          { tools, system: 'You are careful.', observer, input: { sessionKey: 'cli:direct' } },
        ),
      });
      await observer.observeUsage?.(aiSdkUsage(result.steps.at(-1)));
      expect(result.text).toBe('All done.');

      const records = await readRecordedRequests(recorder.store, { sessionKey: 'cli:direct' });
      expect(records.map((record) => [record.source, record.stepNumber])).toEqual([
        ['prepare-step', 0],
        ['prepare-step', 1],
        ['prepare-step', 2],
      ]);
      // the big result is truncated at step 1 (AI SDK 6 truncates it again at step 2; AI SDK 7 carries
      // the governed copy on), and the recorded messages are those the server received
      const truncatedAt = 1;
      expect(records[truncatedAt]?.counts.truncated).toBe(1);
      expect(JSON.stringify(records[2]?.sent)).not.toContain(BIG);
      expect(JSON.stringify(server.requests[2])).not.toContain(BIG);
      expect(records[2]?.messageHashes.map((entry) => entry.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
        'tool',
      ]);
      for (const record of records) {
        expect(record.usage).toMatchObject({
          inputTokens: 11,
          outputTokens: 7,
          cachedInputTokens: 0,
          model: 'claude-scripted',
        });
      }

      const spans = exporter.getFinishedSpans();
      const builds = spans.filter((span) => span.name === 'ctxloom.prepare-step');
      expect(builds).toHaveLength(3);
      expect(builds[truncatedAt]?.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.conversation.id': 'cli:direct',
        'gen_ai.usage.input_tokens': records[truncatedAt]?.totalTokens,
        'ctxloom.step.number': truncatedAt,
        'ctxloom.truncated.count': 1,
        'ctxloom.decisions.count': records[truncatedAt]?.counts.decisions,
        'ctxloom.tokens.tools': records[truncatedAt]?.toolTokens,
      });
      expect(builds[truncatedAt]?.events.map((event) => event.name)).toContain('ctxloom.decision');
      const calls = spans.filter((span) => span.name === 'chat claude-scripted');
      expect(calls).toHaveLength(3);
      for (const [index, call] of calls.entries()) {
        expect(call.attributes).toMatchObject({
          'gen_ai.usage.input_tokens': 11,
          'gen_ai.usage.output_tokens': 7,
          'gen_ai.response.model': 'claude-scripted',
        });
        expect(call.parentSpanContext?.spanId).toBe(builds[index]?.spanContext().spanId);
      }
    } finally {
      await server.close();
    }
  });

  it('records each middleware call with the usage and latency the provider reported', async () => {
    const server = await script();
    try {
      const recorder = new RequestRecorder({ store: JsonlRequestStore.besideSessions(dir) });
      const observer = combineRequestObservers([recorder, new TelemetryObserver()]);
      const governor = new ContextGovernor({ maxToolResultChars: 2_000, contextWindowTokens: 200_000 });
      const model = wrapLanguageModel({
        model: createAnthropic({ baseURL: server.baseURL, apiKey: 'test' })('claude-scripted'),
        middleware: ctxloomMiddleware({ governor }, { observer, input: { sessionKey: 'web:1' } }),
      });
      await generateText({ model, tools, messages, stopWhen: stepCountIs(5), maxOutputTokens: 100 });
      const records = await readRecordedRequests(recorder.store, { sessionKey: 'web:1' });
      expect(records.map((record) => [record.source, record.stepNumber, record.model])).toEqual([
        ['middleware', 0, 'claude-scripted'],
        ['middleware', 1, 'claude-scripted'],
        ['middleware', 2, 'claude-scripted'],
      ]);
      for (const record of records) {
        expect(record.usage?.inputTokens).toBe(11);
        expect(record.usage?.latencyMs).toBeGreaterThanOrEqual(0);
      }
      const spans = exporter.getFinishedSpans();
      expect(spans.filter((span) => span.name === 'ctxloom.middleware')).toHaveLength(3);
      expect(spans.filter((span) => span.name === 'chat claude-scripted')).toHaveLength(3);
    } finally {
      await server.close();
    }
  });
});
