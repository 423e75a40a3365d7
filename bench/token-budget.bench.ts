/**
 * TokenBudgetFilter on a 10,000-message generated session with the o200k_base counter, compared on
 * the same data and the same budget with LangChain's `trimMessages` (strategy 'last') and a naive
 * "drop the oldest, recount everything" loop. Also: the per-turn cost when the history grows by two
 * messages a turn and the cache is warm. Prints ms and ratios; asserts nothing about speed.
 */
import { AIMessage, type BaseMessage, HumanMessage, trimMessages } from '@langchain/core/messages';
import { assistant, user } from '../src/core/index.js';
import {
  CachedTokenCounter,
  type Message,
  TiktokenTokenCounter,
  TokenBudgetFilter,
  type TokenCounter,
} from '../src/index.js';
import { createTestBuildContext as testContext } from '../src/testing/test-build-context.js';
import { BENCH_TOOLS, generateHistory } from './generate-history.js';
import { toLangChain } from './to-langchain.js';

const MESSAGES = 10_000;
const MAX_TOKENS = 128_000;
const NAIVE_MESSAGES = 400;
const TURNS = 50;
const LANGCHAIN_TURNS = 3;

/** gpt-tokenizer's o200k_base count, shared with the LangChain counters (set once the encoding is loaded). */
let countTokens: (text: string) => number = () => 0;

/** One line of the table; `baseline` is the ctxloom time of the same case and size. */
type Row = {
  readonly name: string;
  readonly messages: number;
  readonly ms: number;
  readonly baseline: number;
  readonly kept?: number;
};

export async function run(): Promise<void> {
  const history = generateHistory(MESSAGES);
  const loadStart = performance.now();
  const exact = await TiktokenTokenCounter.create({ encoding: 'o200k_base' });
  const loadMs = performance.now() - loadStart;
  countTokens = (text) => exact.countText(text);
  const toolTokens = exact.countTools(BENCH_TOOLS);
  const totalTokens = exact.countMessages(history) + toolTokens;

  const cold = median(await repeat(3, () => timeFilter(history, new CachedTokenCounter({ counter: exact }))));
  const warmCounter = new CachedTokenCounter({ counter: exact });
  await repeat(5, () => timeFilter(history, warmCounter));
  const warm = median(await repeat(21, () => timeFilter(history, warmCounter)));
  const lcHistory = history.map(toLangChain);
  const lcCold = await timeLangChain(lcHistory, memoised(newMemo()));
  const lcMemo = newMemo();
  await timeLangChain(lcHistory, memoised(lcMemo));
  const lcWarm = await timeLangChain(lcHistory, memoised(lcMemo));

  const small = generateHistory(NAIVE_MESSAGES, 7);
  const smallBudget = Math.round((MAX_TOKENS * NAIVE_MESSAGES) / MESSAGES);
  const smallCold = timeFilter(small, new CachedTokenCounter({ counter: exact }), smallBudget);
  const naive = timeNaive(small, smallBudget, exact);
  const lcPlain = await timeLangChain(small.map(toLangChain), plainCounter, smallBudget);

  const perTurn = await timePerTurn(history, exact);
  const lcTurn = await timeLangChainPerTurn(lcHistory);

  process.stdout.write(
    `history: ${MESSAGES} messages, ${totalTokens.toLocaleString('en-US')} tokens (o200k_base), 5 tool schemas ` +
      `(${toolTokens} tokens); budget ${MAX_TOKENS.toLocaleString('en-US')} tokens (LangChain, which does not count ` +
      `tools, gets the budget minus the tool tokens); encoding load ${loadMs.toFixed(0)} ms, not in the timings.\n` +
      `The naive loop and LangChain with a plain (uncached) counter re-encode the whole list per removal (O(n²) ` +
      `encodes): they run on ${NAIVE_MESSAGES} messages with a proportional budget (${smallBudget}); at ${MESSAGES} ` +
      'they would take hours.\n\n',
  );
  printTable([
    { name: 'ctxloom TokenBudgetFilter, cold cache', messages: MESSAGES, ...cold, baseline: cold.ms },
    {
      name: 'LangChain trimMessages, memoised counter, cold',
      messages: MESSAGES,
      ...lcCold,
      baseline: cold.ms,
    },
    {
      name: 'ctxloom TokenBudgetFilter, warm cache (median of 21)',
      messages: MESSAGES,
      ...warm,
      baseline: warm.ms,
    },
    {
      name: 'LangChain trimMessages, memoised counter, warm',
      messages: MESSAGES,
      ...lcWarm,
      baseline: warm.ms,
    },
    {
      name: `ctxloom next turn (+2 messages, warm), mean of ${TURNS}`,
      messages: MESSAGES,
      ms: perTurn,
      baseline: perTurn,
    },
    {
      name: `LangChain next turn (+2 messages, warm), mean of ${LANGCHAIN_TURNS}`,
      messages: MESSAGES,
      ms: lcTurn,
      baseline: perTurn,
    },
    {
      name: 'ctxloom TokenBudgetFilter, cold cache',
      messages: NAIVE_MESSAGES,
      ...smallCold,
      baseline: smallCold.ms,
    },
    {
      name: 'LangChain trimMessages, plain counter',
      messages: NAIVE_MESSAGES,
      ...lcPlain,
      baseline: smallCold.ms,
    },
    {
      name: 'naive: drop oldest, recount all (uncached)',
      messages: NAIVE_MESSAGES,
      ...naive,
      baseline: smallCold.ms,
    },
  ]);
}

function timeFilter(history: readonly Message[], counter: TokenCounter, maxTokens = MAX_TOKENS) {
  const filter = new TokenBudgetFilter({ maxTokens, tokenCounter: counter });
  const start = performance.now();
  const result = filter.apply(history, { tools: BENCH_TOOLS }, testContext({ tokenCounter: counter }));
  return { ms: performance.now() - start, kept: result.messages.length };
}

async function timeLangChain(
  history: readonly BaseMessage[],
  tokenCounter: (messages: BaseMessage[]) => number,
  maxTokens = MAX_TOKENS,
) {
  const budget = maxTokens - plainToolTokens();
  const start = performance.now();
  const kept = await trimMessages([...history], {
    maxTokens: budget,
    strategy: 'last',
    tokenCounter,
    includeSystem: true,
    startOn: 'human',
  });
  return { ms: performance.now() - start, kept: kept.length };
}

/** Removes the oldest non-system message one at a time and recounts the whole list each time. */
function timeNaive(history: readonly Message[], maxTokens: number, counter: TokenCounter) {
  const start = performance.now();
  let list = [...history];
  while (list.length > 2 && counter.countMessages(list) + counter.countTools(BENCH_TOOLS) > maxTokens) {
    list = [list[0] as Message, ...list.slice(2)];
  }
  return { ms: performance.now() - start, kept: list.length };
}

async function timePerTurn(history: readonly Message[], exact: TokenCounter): Promise<number> {
  const counter = new CachedTokenCounter({ counter: exact });
  let list = [...history];
  timeFilter(list, counter);
  let total = 0;
  for (let turn = 0; turn < TURNS; turn += 1) {
    list = [
      ...list,
      assistant(`Answer number ${turn}: the budget walk stops early.`),
      user(`Follow-up question ${turn}?`),
    ];
    total += timeFilter(list, counter).ms;
  }
  return total / TURNS;
}

async function timeLangChainPerTurn(history: readonly BaseMessage[]): Promise<number> {
  const counter = memoised(newMemo());
  let list = [...history];
  await timeLangChain(list, counter);
  let total = 0;
  for (let turn = 0; turn < LANGCHAIN_TURNS; turn += 1) {
    list = [
      ...list,
      new AIMessage(`Answer number ${turn}: the budget walk stops early.`),
      new HumanMessage(`Follow-up question ${turn}?`),
    ];
    total += (await timeLangChain(list, counter)).ms;
  }
  return total / LANGCHAIN_TURNS;
}

/** The same accounting as ctxloom's counter: text (content, tool calls) in o200k_base + 4 per message. */
function countLangChainMessage(message: BaseMessage): number {
  const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  const calls = message instanceof AIMessage ? (message.tool_calls ?? []) : [];
  const text = [content, ...calls.flatMap((call) => [call.name, JSON.stringify(call.args)])]
    .filter((part) => part !== '')
    .join('\n');
  return (text === '' ? 0 : countTokens(text)) + 4;
}

function plainCounter(messages: BaseMessage[]): number {
  return messages.reduce((total, message) => total + countLangChainMessage(message), 0);
}

/**
 * A per-message memo as good as a user could write for LangChain: by object first (fast within one
 * call), then by content, because `trimMessages` copies every message at the start of each call so
 * object identity alone never survives to the next call.
 */
function memoised(memo: LangChainMemo): (messages: BaseMessage[]) => number {
  return (messages) => {
    let total = 0;
    for (const message of messages) {
      let count = memo.byObject.get(message);
      if (count === undefined) {
        const key = `${message.getType()}\u0000${JSON.stringify(message.content)}\u0000${JSON.stringify(message instanceof AIMessage ? message.tool_calls : '')}`;
        count = memo.byContent.get(key);
        if (count === undefined) {
          count = countLangChainMessage(message);
          memo.byContent.set(key, count);
        }
        memo.byObject.set(message, count);
      }
      total += count;
    }
    return total;
  };
}

type LangChainMemo = {
  readonly byObject: WeakMap<BaseMessage, number>;
  readonly byContent: Map<string, number>;
};

function newMemo(): LangChainMemo {
  return { byObject: new WeakMap(), byContent: new Map() };
}

function plainToolTokens(): number {
  return countTokens(JSON.stringify(BENCH_TOOLS));
}

async function repeat<T>(times: number, make: () => T | Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let index = 0; index < times; index += 1) out.push(await make());
  return out;
}

function median<T extends { readonly ms: number }>(runs: readonly T[]): T {
  return [...runs].sort((left, right) => left.ms - right.ms)[Math.floor(runs.length / 2)] as T;
}

function printTable(rows: readonly Row[]): void {
  const width = Math.max(...rows.map((row) => row.name.length));
  process.stdout.write(`${'case'.padEnd(width)}  messages         ms  vs ctxloom  kept\n`);
  for (const row of rows) {
    const ratio = `${(row.ms / row.baseline).toFixed(row.ms / row.baseline < 10 ? 2 : 0)}×`;
    process.stdout.write(
      `${row.name.padEnd(width)}  ${String(row.messages).padStart(8)}  ${row.ms.toFixed(2).padStart(9)}  ${ratio.padStart(10)}  ${row.kept ?? ''}\n`,
    );
  }
}
