import {
  anthropicPromptCacheRequest,
  type CacheBreakpointPlan,
  findVolatileContent,
  openAIPromptCacheRequest,
  type PromptCacheBlock,
  type PromptCacheRequest,
  type PromptCacheSimulation,
  type VolatileContent,
} from '../../cache/index.js';
import { apportionTokens } from '../../core/index.js';
import { type Message, toAnthropicMessages, toOpenAIChatMessages } from '../../index.js';
import type { RecordedRequest, RecordedUsage } from '../../recorder/index.js';

/** One model call to score: the messages sent, when, and the tools as the request recorder knows them. */
export type CacheCall = {
  readonly messages: readonly Message[];
  /** When it was sent, in milliseconds. */
  readonly at?: number;
  /** The recorded tool names and their tokens (the recorder keeps no schemas). */
  readonly tools?: { readonly names: readonly string[]; readonly tokens: number };
  /** What the provider reported for it, when the recorder has it. */
  readonly reported?: ReportedUsage;
};

/** Provider-reported usage of a recorded call. */
export type ReportedUsage = {
  readonly inputTokens?: number;
  readonly cachedInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
  readonly model?: string;
};

/** Where the calls came from: the request recorder's log or a replay of the stored session. */
export type CallSource =
  | {
      readonly kind: 'recorded';
      /** Where the log is. */
      readonly log: string;
      readonly requests: number;
      /** Requests logged without their messages, left out. */
      readonly skipped: number;
    }
  | { readonly kind: 'replay' };

/** Everything `ctxloom cache` prints. */
export type CacheReport = {
  readonly session: string;
  readonly model: string;
  readonly source: CallSource;
  readonly calls: readonly CacheCall[];
  readonly simulations: readonly PromptCacheSimulation[];
  readonly volatile: readonly VolatileContent[];
};

/** The calls as each provider's request, for `simulatePromptCache`. */
export type ProviderRequests = {
  readonly anthropic: readonly PromptCacheRequest[];
  readonly openai: readonly PromptCacheRequest[];
};

/**
 * The calls as Anthropic requests (breakpoints planned as `toAnthropicMessages` does, keeping the
 * previous request's anchors) and OpenAI chat requests, each with its time.
 */
export function providerRequests(calls: readonly CacheCall[], model: string): ProviderRequests {
  const anthropic: PromptCacheRequest[] = [];
  const openai: PromptCacheRequest[] = [];
  let previous: CacheBreakpointPlan | undefined;
  for (const call of calls) {
    const at = call.at === undefined ? {} : { at: call.at };
    const request = toAnthropicMessages(call.messages, {
      cache: { model, ...(previous === undefined ? {} : { previous }) },
    });
    previous = request.cachePlan;
    anthropic.push(withTools(anthropicPromptCacheRequest(request, { model, ...at }), call.tools));
    openai.push(withTools(openAIPromptCacheRequest(toOpenAIChatMessages(call.messages), at), call.tools));
  }
  return { anthropic, openai };
}

/**
 * The recorded requests that can be scored (those logged with their messages), oldest first, with
 * their times, tools and provider usage.
 */
export function recordedCalls(requests: readonly RecordedRequest[]): readonly CacheCall[] {
  return requests.flatMap((request) => {
    if (request.messages === undefined) return [];
    const at = Date.parse(request.at);
    const reported = request.usage === undefined ? undefined : reportedOf(request.usage);
    return [
      {
        messages: request.messages,
        ...(Number.isNaN(at) ? {} : { at }),
        ...(request.tools.length === 0
          ? {}
          : { tools: { names: request.tools, tokens: request.toolTokens } }),
        ...(reported === undefined ? {} : { reported }),
      },
    ];
  });
}

/**
 * Volatile bytes in the stable prefix across the calls: what differs from the previous call, and the
 * shapes that look volatile on their own near the call's time (see `findVolatileContent`).
 */
export function volatileAcross(calls: readonly CacheCall[]): readonly VolatileContent[] {
  const samples = calls.map((call) => ({
    messages: call.messages,
    // The recorder keeps tool names only: enough to see a tool list change order.
    tools: (call.tools?.names ?? []).map((name) => ({ name })),
  }));
  const found = samples.flatMap((sample, index) => {
    const previous = samples[index - 1];
    const at = calls[index]?.at;
    return [
      ...(previous === undefined
        ? []
        : findVolatileContent(sample.messages, { tools: sample.tools, compareWith: [previous] })),
      ...findVolatileContent(sample.messages, at === undefined ? {} : { now: new Date(at) }),
    ];
  });
  const seen = new Set<string>();
  return found.filter((finding) => {
    const key = `${finding.area}:${finding.index}:${finding.kind}:${finding.offset}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function reportedOf(usage: RecordedUsage): ReportedUsage {
  const { inputTokens, cachedInputTokens, cacheWriteInputTokens, model } = usage;
  return {
    ...(inputTokens === undefined ? {} : { inputTokens }),
    ...(cachedInputTokens === undefined ? {} : { cachedInputTokens }),
    ...(cacheWriteInputTokens === undefined ? {} : { cacheWriteInputTokens }),
    ...(model === undefined ? {} : { model }),
  };
}

/** The request with one block per recorded tool in front (the tools open the cached prefix). */
function withTools(request: PromptCacheRequest, tools: CacheCall['tools']): PromptCacheRequest {
  if (tools === undefined || tools.names.length === 0) return request;
  const shares = apportionTokens(
    tools.tokens,
    tools.names.map(() => 1),
  );
  const blocks: PromptCacheBlock[] = tools.names.map((name, index) => ({
    area: 'tools',
    index,
    part: 0,
    text: JSON.stringify({ name }),
    tokens: shares[index] ?? 0,
  }));
  return { ...request, blocks: [...blocks, ...request.blocks] };
}
