/**
 * A naive summary buffer (what LangChain's ConversationSummaryBufferMemory and many hand-written
 * agents do): when the request would exceed the budget, the oldest messages down to half the budget
 * are summarised by the summariser into a running summary sent as a second system message; a failed
 * summary keeps the previous one and the messages are simply dropped. Graded with every scripted
 * summariser; the baseline that ctxloom's compaction (records, pins) must beat.
 */
import { system, textOf, user } from '../src/core/index.js';
import type { EvalStrategy, EvalStrategySetup } from '../src/eval/index.js';
import type { Message, TokenCounter } from '../src/index.js';

const INSTRUCTION =
  'Summarise the conversation below for the assistant that continues it. Keep every rule, decision and value.';

export function summaryBufferStrategy(): EvalStrategy {
  return {
    specificationVersion: 'v1',
    id: 'summary-buffer',
    label: 'naive summary buffer',
    usesSummariser: true,
    isDefault: false,
    anthropicCache: 'last-message',
    async start(setup) {
      const prompt = system(setup.systemPrompt, { id: 'eval-system' });
      const fixed = setup.tokenCounter.countTools(setup.tools) + setup.tokenCounter.countMessage(prompt);
      const state: BufferState = { summary: '', summaryMessage: undefined, start: 0 };
      return {
        async messagesFor(call) {
          const full = [...call.history, call.user, ...call.inflight];
          const summaryTokens =
            state.summaryMessage === undefined ? 0 : setup.tokenCounter.countMessage(state.summaryMessage);
          const budget = setup.budgetTokens - fixed - summaryTokens;
          if (tokensFrom(full, { start: state.start, counter: setup.tokenCounter }) > budget) {
            const cut = cutFor(full, {
              budget: budget / 2,
              counter: setup.tokenCounter,
              min: state.start,
              max: call.history.length,
            });
            const dropped = full.slice(state.start, cut);
            state.start = cut;
            if (dropped.length > 0) await summarise(state, { dropped, setup, cut });
          }
          const head = state.summaryMessage === undefined ? [prompt] : [prompt, state.summaryMessage];
          return [...head, ...full.slice(state.start)];
        },
      };
    },
  };
}

type BufferState = {
  summary: string;
  summaryMessage: Message | undefined;
  /** History messages before this index are summarised or dropped. */
  start: number;
};

async function summarise(
  state: BufferState,
  run: { readonly dropped: readonly Message[]; readonly setup: EvalStrategySetup; readonly cut: number },
): Promise<void> {
  const { summariser, signal } = run.setup;
  if (summariser === undefined) return;
  try {
    const reply = await summariser.generate({
      messages: [system(INSTRUCTION), user(`${state.summary}\n${transcript(run.dropped)}`)],
      ...(signal === undefined ? {} : { signal }),
    });
    state.summary = reply.text;
    state.summaryMessage = system(`Summary of the earlier conversation:\n${state.summary}`, {
      id: `eval-summary-${run.cut}`,
    });
  } catch {
    // A failed summary changes nothing: the previous summary stays, the messages are dropped.
  }
}

function tokensFrom(
  messages: readonly Message[],
  run: { readonly start: number; readonly counter: TokenCounter },
): number {
  let total = 0;
  for (let index = run.start; index < messages.length; index += 1)
    total += run.counter.countMessage(messages[index] as Message);
  return total;
}

/** The earliest user-message index ≥ `min` (and ≤ `max`) from which the rest fits `budget`. */
function cutFor(
  messages: readonly Message[],
  run: {
    readonly budget: number;
    readonly counter: TokenCounter;
    readonly min: number;
    readonly max: number;
  },
): number {
  let total = 0;
  let cut = run.max;
  for (let index = messages.length - 1; index >= run.min; index -= 1) {
    total += run.counter.countMessage(messages[index] as Message);
    if (total > run.budget) break;
    if (messages[index]?.role === 'user' && index <= run.max) cut = index;
  }
  return Math.max(run.min, cut);
}

function transcript(messages: readonly Message[]): string {
  return messages
    .map((message) => {
      const calls = (message.toolCalls ?? []).map((call) => ` ${call.name}(${call.arguments})`).join('');
      return `${message.role}: ${textOf(message.content)}${calls}`;
    })
    .join('\n');
}
