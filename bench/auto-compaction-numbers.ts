/**
 * Automatic compaction on the bench's agent session (`generateAgentCorpus`): the session is replayed
 * user turn by user turn through a `ContextGovernor` with `compaction` (a scripted faithful
 * summariser, trigger 0.8 and target 0.5 of a 100,000-token budget), and prints the tokens each
 * compaction saved, the turns between compactions, and what the summariser calls' input costs under
 * Anthropic's prompt-cache rules (`simulatePromptCache`, Claude Sonnet 4.5 prices of `EVAL_PRICES`):
 * - standalone: the summariser gets the compaction prompt and the transcript of the run (what
 *   `compactHistory` sends), sharing no prefix with the agent's requests;
 * - shared prefix: the summariser request is the agent's own last request (tools, system, history,
 *   as cached) with one more user message asking for the summary, so it reads the agent's cache.
 * Run: `npx tsx bench/auto-compaction-numbers.ts [messages]` (default 3000). Asserts nothing.
 */
import { anthropicPromptCacheRequest, type PromptCacheRequest } from '../src/cache/index.js';
import { DEFAULT_COMPACTION_PROMPT } from '../src/compaction/index.js';
import { EVAL_PRICES } from '../src/eval/index.js';
import {
  ContextGovernor,
  type Message,
  simulatePromptCache,
  toAnthropicMessages,
  traceDecisions,
} from '../src/index.js';
import type { ChatModel, ChatRequest } from '../src/llm/index.js';
import { createScriptedSummarizer } from '../src/testing/index.js';
import { EstimatingTokenCounter } from '../src/tokens/index.js';
import { BUDGET_TOKENS, CORPUS_TOOLS, generateAgentCorpus } from './agent-corpus.js';

const MODEL = 'claude-sonnet-4-5';
const TURN_MS = 60_000;

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 3000);
  const corpus = generateAgentCorpus(count);
  const counter = new EstimatingTokenCounter();
  // The scripted faithful summariser keeps every line; a model stops at its output cap (2,000 tokens,
  // about 8,000 characters): this one does the same, so summaries have a model's size.
  const faithful = createScriptedSummarizer('faithful');
  const calls: ChatRequest[] = [];
  const summarizer: ChatModel & { readonly calls: readonly ChatRequest[] } = {
    specificationVersion: 'v1',
    id: 'scripted:faithful-capped',
    calls,
    async generate(request) {
      calls.push(request);
      const reply = await faithful.generate(request);
      return { ...reply, text: reply.text.slice(0, (request.maxOutputTokens ?? 2000) * 4) };
    },
  };
  const governor = new ContextGovernor({
    contextWindowTokens: BUDGET_TOKENS + 8192,
    maxOutputTokens: 8192,
    safetyBufferTokens: 0,
    tokenCounter: counter,
    compaction: { summarizer, trigger: 0.8, target: 0.5, keepRecent: 8000 },
  });
  const userTurns = corpus.flatMap((message, index) => (message.role === 'user' && index > 0 ? [index] : []));
  const agentRequests: PromptCacheRequest[] = [];
  const shared: { readonly at: number; readonly request: PromptCacheRequest }[] = [];
  const standalone: PromptCacheRequest[] = [];
  const compactions: { readonly turn: number; readonly before: number; readonly after: number }[] = [];
  let previous: readonly Message[] | undefined;
  for (const [turn, end] of userTurns.entries()) {
    const list = corpus.slice(0, end + 1);
    const at = turn * TURN_MS;
    const calls = summarizer.calls.length;
    const { messages, trace } = await governor.prepareForModel(list, { tools: CORPUS_TOOLS });
    for (const entry of traceDecisions(trace)) {
      if (entry.details?.['outcome'] !== 'compacted') continue;
      compactions.push({ turn, before: entry.tokensBefore ?? 0, after: entry.tokensAfter ?? 0 });
    }
    for (const call of summarizer.calls.slice(calls)) {
      // What compactHistory sent: the compaction prompt and the run's transcript.
      standalone.push(
        anthropicPromptCacheRequest(toAnthropicMessages(call.messages, { cache: 'off' }), {
          at,
          model: MODEL,
        }),
      );
      // The same summary asked at the end of the agent's previous request, which the cache holds.
      const ask: Message = {
        id: `ask-${turn}`,
        role: 'user',
        content: `${DEFAULT_COMPACTION_PROMPT}\n\nSummarise the conversation above, except its newest 8000 tokens.`,
      };
      if (previous !== undefined)
        shared.push({
          at: at - 1,
          request: anthropicPromptCacheRequest(
            toAnthropicMessages([...previous, ask], { cache: 'auto', tools: CORPUS_TOOLS }),
            { at: at - 1, model: MODEL },
          ),
        });
    }
    agentRequests.push(
      anthropicPromptCacheRequest(toAnthropicMessages(messages, { cache: 'auto', tools: CORPUS_TOOLS }), {
        at,
        model: MODEL,
      }),
    );
    previous = messages;
  }
  const price = EVAL_PRICES.anthropic;
  const usd = (baseTokens: number): number => (baseTokens * price.inputUsdPerMillionTokens) / 1_000_000;
  // Standalone: the summariser requests on their own (nothing of theirs is in any cache).
  const alone = simulatePromptCache(standalone, { provider: 'anthropic', model: MODEL });
  // Shared: the agent's requests with the summariser requests in their place in time.
  const merged = [
    ...agentRequests.map((request) => ({ request, summary: false })),
    ...shared.map((entry) => ({ request: entry.request, summary: true })),
  ].sort((left, right) => (left.request.at ?? 0) - (right.request.at ?? 0));
  const together = simulatePromptCache(
    merged.map((entry) => entry.request),
    { provider: 'anthropic', model: MODEL },
  );
  const sharedCost = together.requests
    .filter((_, index) => merged[index]?.summary === true)
    .reduce(
      (sum, request) => ({
        input: sum.input + request.inputTokens,
        cost: sum.cost + request.cost,
        read: sum.read + request.cacheReadTokens,
      }),
      { input: 0, cost: 0, read: 0 },
    );
  const saved = compactions.map((entry) => entry.before - entry.after);
  const gaps = compactions.slice(1).map((entry, index) => entry.turn - (compactions[index]?.turn ?? 0));
  const mean = (values: readonly number[]): number =>
    values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
  const out = [
    `agent session: ${corpus.length} messages, ${userTurns.length} user turns, budget ${BUDGET_TOKENS} tokens (trigger 0.8, target 0.5, keepRecent 8000), summariser scripted:faithful cut at its 2,000-token cap`,
    `compactions: ${compactions.length}; summariser calls: ${summarizer.calls.length}`,
    `tokens saved per compaction: mean ${Math.round(mean(saved))}, min ${Math.min(...saved)}, max ${Math.max(...saved)} (list ${Math.round(mean(compactions.map((entry) => entry.before)))} → ${Math.round(mean(compactions.map((entry) => entry.after)))} on average)`,
    `user turns between compactions: mean ${mean(gaps).toFixed(1)}, min ${Math.min(...gaps)}, max ${Math.max(...gaps)} (first at turn ${compactions[0]?.turn})`,
    `summariser input, standalone prompt: ${alone.totals.inputTokens} tokens, cost ${alone.totals.cost.toFixed(0)} base tokens = $${usd(alone.totals.cost).toFixed(3)} (${(alone.totals.cost / Math.max(1, standalone.length)).toFixed(0)} a call)`,
    `summariser input, shared cached prefix: ${sharedCost.input} tokens (${sharedCost.read} read from the agent's cache), cost ${sharedCost.cost.toFixed(0)} base tokens = $${usd(sharedCost.cost).toFixed(3)} (${(sharedCost.cost / Math.max(1, shared.length)).toFixed(0)} a call)`,
    `prices: ${price.source}: $${price.inputUsdPerMillionTokens}/M input, reads ${price.cacheReadMultiplier}x, 5-minute writes ${price.cacheWriteMultiplier}x`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
