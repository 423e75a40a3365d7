/**
 * The peers graded beside ctxloom in `npm run eval`, as eval strategies: the AI SDK's
 * `pruneMessages`, LangChain's `trimMessages` and Mastra's `TokenLimiterProcessor` (the adapters of
 * the cache benchmark, bench/cache-strategies.ts), a naive keep-last-N and a naive summary buffer.
 * Dev-only: src/ never imports this folder.
 */
import {
  aiSdkStrategy,
  type CallInput,
  langChainStrategy,
  mastraStrategy,
  type Strategy,
} from '../bench/cache-strategies.js';
import { system } from '../src/core/index.js';
import type { EvalStrategy, EvalStrategySetup } from '../src/eval/index.js';
import type { TokenCounter } from '../src/index.js';
import { summaryBufferStrategy } from './summary-buffer-strategy.js';

/** A bench contender as an eval strategy; its budget leaves room for the tool schemas, as the bench does. */
function fromBench(
  meta: { readonly id: string; readonly label: string },
  make: (run: {
    readonly systemPrompt: string;
    readonly budget: number;
    readonly tokenCounter: TokenCounter;
  }) => Strategy,
): EvalStrategy {
  return {
    specificationVersion: 'v1',
    ...meta,
    usesSummariser: false,
    isDefault: false,
    anthropicCache: 'last-message',
    async start(setup: EvalStrategySetup) {
      const strategy = make({
        systemPrompt: setup.systemPrompt,
        budget: setup.budgetTokens - setup.tokenCounter.countTools(setup.tools),
        tokenCounter: setup.tokenCounter,
      });
      return { messagesFor: (call: CallInput) => strategy.messagesFor(call) };
    },
  };
}

/** Keeps the system prompt and the newest `count` messages, cut anywhere (what a hand-written loop does). */
export function keepLastStrategy(count: number): EvalStrategy {
  return {
    specificationVersion: 'v1',
    id: `keep-last-${count}`,
    label: `naive keep-last-${count}`,
    usesSummariser: false,
    isDefault: false,
    anthropicCache: 'last-message',
    async start(setup) {
      const prompt = system(setup.systemPrompt, { id: 'eval-system' });
      return {
        async messagesFor(call) {
          return [prompt, ...[...call.history, call.user, ...call.inflight].slice(-count)];
        },
      };
    },
  };
}

/** Every peer of `npm run eval`. */
export function peerStrategies(): readonly EvalStrategy[] {
  return [
    fromBench(
      { id: 'ai-sdk-prune-messages', label: 'AI SDK pruneMessages (before-last-2-messages) + trim' },
      (run) => aiSdkStrategy({ ...run, toolCalls: 'before-last-2-messages' }),
    ),
    fromBench({ id: 'ai-sdk-trim', label: 'AI SDK pruneMessages (none) + trim' }, (run) =>
      aiSdkStrategy({ ...run, toolCalls: 'none' }),
    ),
    fromBench({ id: 'langchain-trim-messages', label: 'LangChain trimMessages' }, langChainStrategy),
    fromBench({ id: 'mastra-token-limiter', label: 'Mastra TokenLimiterProcessor' }, mastraStrategy),
    keepLastStrategy(30),
    summaryBufferStrategy(),
  ];
}
