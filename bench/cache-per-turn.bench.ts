/**
 * Prompt-cache benchmark, per user turn: a generated 60-turn agent session whose tool loops often add
 * more than 20 content blocks between two user turns, sent once per user turn (the whole history and
 * the new user message) through `toAnthropicMessages(…, { cache: 'auto' })`. `simulatePromptCache`
 * scores the requests under Anthropic's rules (20-block lookback). Prints the steady-state hit rate,
 * the ceiling (each request reading all of the previous one), the markers used and the time to convert
 * and plan one request; asserts nothing.
 */
import { anthropicPromptCacheRequest, type PromptCacheRequest } from '../src/cache/index.js';
import { system } from '../src/core/index.js';
import { type Message, simulatePromptCache, toAnthropicMessages } from '../src/index.js';
import { generateToolLoopSession } from '../test/helpers/tool-loop-session.js';
import { CACHE_BENCH_TOOLS } from './cache-session.js';

const MODEL = 'claude-sonnet-4-5';
const ROUNDS = 5;

export async function run(): Promise<void> {
  const turns = generateToolLoopSession({ turns: 60 });
  const prompt = system('You are a coding agent working in a repository. '.repeat(80), { id: 'system' });
  const histories = turns.map((turn, index): readonly Message[] => [
    prompt,
    ...turns.slice(0, index).flatMap((earlier) => earlier.messages),
    ...turn.messages.slice(0, 1),
  ]);
  const times: number[] = [];
  let described: PromptCacheRequest[] = [];
  let markers = new Map<number, number>();
  for (let round = 0; round < ROUNDS; round += 1) {
    markers = new Map();
    const started = performance.now();
    const sent = histories.map((messages) =>
      toAnthropicMessages(messages, { cache: 'auto', tools: CACHE_BENCH_TOOLS }),
    );
    times.push((performance.now() - started) / histories.length);
    for (const request of sent) {
      const count = request.cachePlan?.markers.length ?? 0;
      markers.set(count, (markers.get(count) ?? 0) + 1);
    }
    described = sent.map((request, index) =>
      anthropicPromptCacheRequest(request, { at: turns[index]?.at ?? 0, model: MODEL }),
    );
  }
  const simulation = simulatePromptCache(described, { provider: 'anthropic', steadyStateFrom: 1 });
  const size = (request: PromptCacheRequest | undefined): number =>
    (request?.blocks ?? []).reduce((sum, block) => sum + block.tokens, 0);
  let reachable = 0;
  let total = 0;
  for (let index = 1; index < described.length; index += 1) {
    reachable += size(described[index - 1]);
    total += size(described[index]);
  }
  const growth = described
    .slice(1)
    .map((request, index) => request.blocks.length - (described[index]?.blocks.length ?? 0));
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  process.stdout.write(
    `${turns.length} user turns, one request each; ${growth.filter((added) => added > 20).length} turns add more than 20 blocks (most ${Math.max(...growth)})\n` +
      `steady-state hit rate ${simulation.totals.steadyStateHitRate.toFixed(3)} (ceiling ${(reachable / total).toFixed(3)}), ` +
      `illegal requests ${simulation.totals.illegalRequests}, cost ratio ${simulation.totals.costRatio.toFixed(3)}\n` +
      `markers per request: ${[...markers.entries()]
        .sort(([a], [b]) => a - b)
        .map(([count, requests]) => `${count}×${requests}`)
        .join(', ')}\n` +
      `toAnthropicMessages + planning: median ${median.toFixed(2)} ms a request over ${ROUNDS} rounds (${sorted.map((time) => time.toFixed(2)).join(', ')})\n`,
  );
}
