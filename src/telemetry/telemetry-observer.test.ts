import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { user } from '../core/index.js';
import { ContextBuilder } from '../index.js';
import { TelemetryObserver } from './telemetry-observer.js';

function tracerWithExporter() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('test') };
}

describe('TelemetryObserver', () => {
  it('makes a span of each build with GenAI and ctxloom attributes, timed by the build', async () => {
    const { exporter, tracer } = tracerWithExporter();
    const clock = () => new Date('2026-01-02T03:04:05.000Z');
    const builder = ContextBuilder.forChat({
      systemPrompt: 'Be brief.',
      maxMessages: 2,
      observer: new TelemetryObserver({ tracer, clock }),
    });
    const built = await builder.build({
      history: [user('one'), user('two'), user('three')],
      sessionKey: 'cli:direct',
    });
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('ctxloom.build');
    const drops = built.trace.stages.flatMap((stage) => stage.decisions);
    expect(span?.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.conversation.id': 'cli:direct',
      'gen_ai.usage.input_tokens': built.trace.totalTokens,
      'ctxloom.source': 'build',
      'ctxloom.messages.count': built.messages.length,
      'ctxloom.tools.count': 0,
      'ctxloom.tokens.total': built.trace.totalTokens,
      'ctxloom.tokens.tools': 0,
      'ctxloom.token_counter': built.trace.tokenCounter,
      'ctxloom.token_counter.kind': built.trace.tokenCounterKind,
      ...Object.fromEntries(
        built.trace.sections.map((s) => [`ctxloom.tokens.section.${s.section}`, s.tokens]),
      ),
      'ctxloom.decisions.count': drops.length,
      'ctxloom.dropped.count': drops.flatMap((d) => d.messageIds).length,
      'ctxloom.offloaded.count': 0,
      'ctxloom.compacted.count': 0,
      'ctxloom.truncated.count': 0,
    });
    expect(span?.events.map((event) => event.attributes?.['ctxloom.decision.type'])).toEqual(
      drops.map((d) => d.type),
    );
    expect(span?.endTime).toEqual([Math.floor(clock().getTime() / 1000), 0]);
  });

  it('puts reported usage on a child span of the request', async () => {
    const { exporter, tracer } = tracerWithExporter();
    const observer = new TelemetryObserver({ tracer });
    const trace = (await ContextBuilder.forChat({}).build({ history: [user('a')] })).trace;
    const id = await observer.observeRequest({
      source: 'transform',
      messages: [],
      tools: [],
      trace,
      model: 'gpt-4o',
    });
    await observer.observeUsage({
      requestId: id ?? 'missing',
      inputTokens: 100,
      cachedInputTokens: 80,
      outputTokens: 5,
      latencyMs: 250,
    });
    const [request, call] = exporter.getFinishedSpans();
    expect(call?.name).toBe('chat gpt-4o');
    expect(call?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(call?.attributes).toMatchObject({
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.cache_read.input_tokens': 80,
      'gen_ai.usage.output_tokens': 5,
    });
  });

  it('records nothing and fails nothing without a registered tracer provider', async () => {
    const observer = new TelemetryObserver();
    const builder = ContextBuilder.forChat({ observer });
    await expect(builder.build({ history: [user('a')] })).resolves.toBeDefined();
    await expect(observer.observeUsage({ inputTokens: 1 })).resolves.toBeUndefined();
  });
});
