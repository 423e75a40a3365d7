/**
 * The whole builder path, not just one filter: `ContextBuilder.forChat` with a 128k token budget on a
 * 10,000-message history (o200k_base). The trace counts exactly only what is sent (dropped messages
 * get known or labelled-estimate figures), and the budget walk goes newest-first and stops at the
 * budget, so the first build encodes what is kept plus one unit; later turns reuse the counter's
 * cache and only encode what is new. See context-build.bench.ts for forAgent and the other libraries.
 */

import { assistant, user } from '../src/core/index.js';
import { ContextBuilder, type Message, TiktokenTokenCounter } from '../src/index.js';
import { BENCH_TOOLS, generateHistory } from './generate-history.js';

const MESSAGES = 10_000;
const TURNS = 20;

export async function run(): Promise<void> {
  const history = generateHistory(MESSAGES);
  const tokenCounter = await TiktokenTokenCounter.create({ encoding: 'o200k_base' });
  const builder = ContextBuilder.forChat({ maxInputTokens: 128_000, tokenCounter });
  const input = (list: readonly Message[]) => ({ history: list, current: 'next?', tools: BENCH_TOOLS });

  let start = performance.now();
  const first = await builder.build(input(history));
  const coldMs = performance.now() - start;

  let list = [...history];
  let total = 0;
  for (let turn = 0; turn < TURNS; turn += 1) {
    list = [...list, user(`question ${turn}`), assistant(`answer ${turn} `.repeat(40))];
    start = performance.now();
    await builder.build(input(list));
    total += performance.now() - start;
  }
  const turnMs = total / TURNS;
  process.stdout.write(
    [
      `history: ${MESSAGES} messages; kept ${first.messages.length} (${first.trace.totalTokens.toLocaleString('en-US')} tokens)`,
      `first build of a builder (cold cache, whole history encoded once)  ${coldMs.toFixed(1).padStart(8)} ms`,
      `next turn (+2 messages, warm), mean of ${TURNS}                        ${turnMs.toFixed(2).padStart(8)} ms  (${(coldMs / turnMs).toFixed(0)}× less)`,
      '',
    ].join('\n'),
  );
}
