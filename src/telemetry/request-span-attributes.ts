import { traceDecisions } from '../pipeline/build-trace.js';
import type { ObservedRequest, ObservedUsage } from '../pipeline/request-observer.js';
import { countDecisions } from '../recorder/count-decisions.js';
import type { SpanAttributes } from './open-telemetry-types.js';

/**
 * The attributes of a request's span: the GenAI semantic conventions (`gen_ai.operation.name`,
 * `gen_ai.request.model`, `gen_ai.conversation.id`, `gen_ai.usage.input_tokens` as ctxloom counted
 * them) and ctxloom's own (`ctxloom.tokens.section.<id>`, decision, dropped and offloaded counts).
 */
export function requestSpanAttributes(request: ObservedRequest): SpanAttributes {
  const { trace } = request;
  const counts = countDecisions(traceDecisions(trace));
  const sections = Object.fromEntries(
    trace.sections.map((section) => [`ctxloom.tokens.section.${section.section}`, section.tokens]),
  );
  return {
    'gen_ai.operation.name': 'chat',
    ...(request.model === undefined ? {} : { 'gen_ai.request.model': request.model }),
    ...(request.sessionKey === undefined ? {} : { 'gen_ai.conversation.id': request.sessionKey }),
    'gen_ai.usage.input_tokens': trace.totalTokens,
    'ctxloom.source': request.source,
    ...(request.runId === undefined ? {} : { 'ctxloom.run.id': request.runId }),
    ...(request.stepNumber === undefined ? {} : { 'ctxloom.step.number': request.stepNumber }),
    'ctxloom.messages.count': request.messages.length,
    'ctxloom.tools.count': request.tools.length,
    'ctxloom.tokens.total': trace.totalTokens,
    'ctxloom.tokens.tools': trace.toolTokens,
    'ctxloom.token_counter': trace.tokenCounter,
    ...(trace.tokenCounterKind === undefined ? {} : { 'ctxloom.token_counter.kind': trace.tokenCounterKind }),
    ...sections,
    'ctxloom.decisions.count': counts.decisions,
    'ctxloom.dropped.count': counts.dropped,
    'ctxloom.offloaded.count': counts.offloaded,
    'ctxloom.compacted.count': counts.compacted,
    'ctxloom.truncated.count': counts.truncated,
  };
}

/** The GenAI attributes of the provider's answer to a request (its usage span). */
export function usageSpanAttributes(
  usage: ObservedUsage,
  request: ObservedRequest | undefined,
): SpanAttributes {
  const model = usage.model ?? request?.model;
  return {
    'gen_ai.operation.name': 'chat',
    ...(request?.model === undefined ? {} : { 'gen_ai.request.model': request.model }),
    ...(model === undefined ? {} : { 'gen_ai.response.model': model }),
    ...(request?.sessionKey === undefined ? {} : { 'gen_ai.conversation.id': request.sessionKey }),
    ...(usage.inputTokens === undefined ? {} : { 'gen_ai.usage.input_tokens': usage.inputTokens }),
    ...(usage.outputTokens === undefined ? {} : { 'gen_ai.usage.output_tokens': usage.outputTokens }),
    ...(usage.cachedInputTokens === undefined
      ? {}
      : { 'gen_ai.usage.cache_read.input_tokens': usage.cachedInputTokens }),
    ...(usage.cacheWriteInputTokens === undefined
      ? {}
      : { 'gen_ai.usage.cache_creation.input_tokens': usage.cacheWriteInputTokens }),
    ...(usage.latencyMs === undefined ? {} : { 'ctxloom.latency_ms': usage.latencyMs }),
  };
}
