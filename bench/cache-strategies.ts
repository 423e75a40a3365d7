/**
 * What each contender sends for one model call of the cache benchmark, in ctxloom message form: ctxloom
 * (forAgent with the governor and the cache-aware trim) and what users do today on the same stored
 * history (AI SDK pruneMessages + a token trim, LangChain trimMessages, Mastra TokenLimiterProcessor).
 */
import { AIMessage, type BaseMessage, trimMessages } from '@langchain/core/messages';
import { TokenLimiterProcessor } from '@mastra/core/processors';
import { type ModelMessage, pruneMessages } from 'ai';
import { fromAiSdkMessages, toAiSdkMessages } from '../src/ai-sdk/index.js';
import { readAiSdkMessages } from '../src/ai-sdk/read-ai-sdk-messages.js';
import { writeAiSdkMessages } from '../src/ai-sdk/write-ai-sdk-messages.js';
import { withCacheAwareTrim } from '../src/cache/index.js';
import { createSequentialIdGenerator, system, textOf } from '../src/core/index.js';
import { withGovernorRunState } from '../src/filters/index.js';
import {
  type BuildInput,
  ContextBuilder,
  type Message,
  type TokenCounter,
  type ToolDefinition,
} from '../src/index.js';
import { agentPresetOptions } from '../src/presets/index.js';
import { toLangChain } from './to-langchain.js';

/** What one call of a turn sees: the stored history, the user message, the in-flight messages. */
export type CallInput = {
  readonly history: readonly Message[];
  readonly user: Message;
  readonly inflight: readonly Message[];
  readonly step: number;
  readonly summary?: { readonly text: string; readonly lastActive: string };
};

/** A contender: the messages it sends for a call (system prompt first). */
export type Strategy = {
  readonly name: string;
  /** True when the Anthropic request carries only the AI SDK's default marker on the last message. */
  readonly lastMessageMarker: boolean;
  messagesFor(call: CallInput): Promise<readonly Message[]>;
};

/** ctxloom: forAgent + governor + cache-aware trim; the breakpoints are planned at conversion. */
export function ctxloomStrategy(run: {
  readonly workspace: string;
  readonly contextWindowTokens: number;
  readonly maxOutputTokens: number;
  readonly budget: number;
  readonly tools: readonly ToolDefinition[];
  readonly tokenCounter: TokenCounter;
  /** The row's name. @default 'ctxloom (forAgent + governor + planner)' */
  readonly name?: string;
  /** Characters from which a tool result is offloaded to a file (a 1,200-char preview stays). @default the governor's 16,000 */
  readonly maxToolResultChars?: number;
  /** The cache-aware trim's low-water mark. @default 0.3 */
  readonly lowWater?: number;
}): Strategy & { systemPrompt(): Promise<string> } {
  const options = agentPresetOptions({
    workspace: run.workspace,
    channel: 'cli',
    platform: { os: 'linux', arch: 'x64', nodeVersion: '20.20.2' },
    contextWindowTokens: run.contextWindowTokens,
    maxOutputTokens: run.maxOutputTokens,
    tokenCounter: run.tokenCounter,
    generateId: createSequentialIdGenerator('bench'),
    ...(run.maxToolResultChars === undefined
      ? {}
      : { governor: { maxToolResultChars: run.maxToolResultChars } }),
  });
  const builder = new ContextBuilder(
    withCacheAwareTrim(options, { maxTokens: run.budget, lowWater: run.lowWater ?? 0.3 }),
  );
  let turnStart: readonly Message[] = [];
  let compacted = new Set<string>();
  const inputOf = (call: CallInput): BuildInput => ({
    history: call.history,
    current: call.user.content,
    tools: run.tools,
    sessionKey: 'cli:bench',
    ...(call.summary === undefined ? {} : { summary: call.summary }),
  });
  return {
    name: run.name ?? 'ctxloom (forAgent + governor + planner)',
    lastMessageMarker: false,
    async systemPrompt() {
      const built = await builder.build({ current: 'x', tools: run.tools });
      return textOf(built.messages[0]?.content ?? '');
    },
    async messagesFor(call) {
      if (call.step === 0) {
        compacted = new Set();
        turnStart = (await builder.build(inputOf(call))).messages;
        return turnStart;
      }
      const messages = [...turnStart, ...call.inflight];
      const result = await builder.transform(
        messages,
        withGovernorRunState(inputOf(call), {
          inflightStartIndex: turnStart.length,
          inflightMessageIds: new Set(call.inflight.map((message) => message.id)),
          compactedToolCallIds: compacted,
        }),
      );
      return result.messages;
    },
  };
}

/** The same full request every peer starts from: the system prompt, the whole history, the turn. */
function fullRequest(systemPrompt: string, call: CallInput): Message[] {
  return [system(systemPrompt, { id: 'system' }), ...call.history, call.user, ...call.inflight];
}

/**
 * The full request with the history cut to its newest messages worth `window` tokens: a suffix trim
 * under a smaller budget keeps the same messages, so this only saves converting what it drops anyway.
 */
function recentRequest(
  systemPrompt: string,
  call: CallInput,
  run: { readonly window: number; readonly tokenCounter: TokenCounter },
): Message[] {
  let start = call.history.length;
  let tokens = 0;
  while (start > 0 && tokens < run.window) {
    start -= 1;
    tokens += run.tokenCounter.countMessage(call.history[start] as Message);
  }
  return fullRequest(systemPrompt, { ...call, history: call.history.slice(start) });
}

/**
 * AI SDK pruneMessages + dropping the oldest messages (then any leading non-user message) until the
 * request fits, as users write it. `toolCalls: 'before-last-2-messages'` is the documented agent
 * setting (older tool calls and results are removed); `none` keeps them.
 */
export function aiSdkStrategy(run: {
  readonly systemPrompt: string;
  readonly budget: number;
  readonly tokenCounter: TokenCounter;
  readonly toolCalls: 'before-last-2-messages' | 'none';
}): Strategy {
  return {
    name: `AI SDK pruneMessages (${run.toolCalls}) + trim`,
    lastMessageMarker: true,
    async messagesFor(call) {
      const request =
        run.toolCalls === 'none'
          ? recentRequest(run.systemPrompt, call, {
              window: 1.2 * run.budget,
              tokenCounter: run.tokenCounter,
            })
          : fullRequest(run.systemPrompt, call);
      const model = toAiSdkMessages(request, { carryMetadata: false }).messages as ModelMessage[];
      const pruned = pruneMessages({
        messages: model,
        reasoning: 'all',
        toolCalls: run.toolCalls,
        emptyMessages: 'remove',
      });
      const messages = fromAiSdkMessages(pruned).messages;
      let total = run.tokenCounter.countMessages(messages);
      let start = 1;
      const drop = (): void => {
        total -= run.tokenCounter.countMessage(messages[start] as Message);
        start += 1;
      };
      while (messages.length - start > 1 && total > run.budget) {
        drop();
        while (messages.length - start > 1 && messages[start]?.role !== 'user') drop();
      }
      return [messages[0] as Message, ...messages.slice(start)];
    },
  };
}

/** LangChain trimMessages (strategy 'last', system kept, starting on a human message). */
export function langChainStrategy(run: {
  readonly systemPrompt: string;
  readonly budget: number;
  readonly tokenCounter: TokenCounter;
}): Strategy {
  const converted = new WeakMap<Message, BaseMessage>();
  // trimMessages counts copies of the messages it was given, so the count is keyed by content.
  const memo = new Map<string, number>();
  const tokenCounter = (messages: BaseMessage[]): number =>
    messages.reduce((sum, message) => {
      const calls = message instanceof AIMessage ? (message.tool_calls ?? []) : [];
      const text = [
        String(message.content),
        ...calls.map((call) => `${call.name}\n${JSON.stringify(call.args)}`),
      ].join('\n');
      let count = memo.get(text);
      if (count === undefined) {
        count = run.tokenCounter.countText(text) + 4;
        memo.set(text, count);
      }
      return sum + count;
    }, 0);
  return {
    name: 'LangChain trimMessages',
    lastMessageMarker: true,
    async messagesFor(call) {
      const full = recentRequest(run.systemPrompt, call, {
        window: 3 * run.budget,
        tokenCounter: run.tokenCounter,
      });
      const lcMessages = full.map((message) => {
        const known = converted.get(message);
        if (known !== undefined) return known;
        const lc = toLangChain(message);
        converted.set(message, lc);
        return lc;
      });
      const kept = await trimMessages(lcMessages, {
        maxTokens: run.budget,
        strategy: 'last',
        tokenCounter,
        includeSystem: true,
        startOn: 'human',
      });
      // trimMessages returns copies of the system message and of a contiguous suffix: map them back by position.
      const suffix = kept.length - 1;
      return [full[0] as Message, ...(suffix > 0 ? full.slice(full.length - suffix) : [])];
    },
  };
}

/** Mastra's TokenLimiterProcessor on the provider prompt (its default `best-fit` trim at the LLM-request stage). */
export function mastraStrategy(run: {
  readonly systemPrompt: string;
  readonly budget: number;
  readonly tokenCounter: TokenCounter;
}): Strategy {
  const limiter = new TokenLimiterProcessor({ limit: run.budget });
  return {
    name: 'Mastra TokenLimiterProcessor',
    lastMessageMarker: true,
    async messagesFor(call) {
      const recent = recentRequest(run.systemPrompt, call, {
        window: 3 * run.budget,
        tokenCounter: run.tokenCounter,
      });
      const prompt = writeAiSdkMessages(recent, {
        dialect: 'prompt-v3',
        carryMetadata: false,
        toolPairing: 'repair',
      }).messages;
      // The provider prompt shape Mastra reads (LanguageModelV2Prompt), written by ctxloom's writer.
      const args = { prompt, stepNumber: call.step, steps: [], state: {} } as unknown as Parameters<
        TokenLimiterProcessor['processLLMRequest']
      >[0];
      const result = await limiter.processLLMRequest(args);
      const limited = (result?.prompt ?? prompt) as readonly object[];
      return readAiSdkMessages(limited, { format: 'AI SDK' }).messages;
    },
  };
}
