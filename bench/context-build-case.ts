/**
 * One case of the context-build benchmark, run in its own process so its first call is really cold:
 * `node --expose-gc --import tsx bench/context-build-case.ts <case> <messages>`. Prints one JSON line
 * with the figures (ms, bytes). Cases: ctxloom (forAgent), ctxloom-store (an agent turn through the
 * JSONL session store: loadReplayedSession, forAgent), ctxloom-sqlite (the same through the SQLite
 * store), ctxloom-workspace (forAgent's defaults on a real workspace: files, skills, memory and
 * Recent History), floor, mastra, langchain-exact, langchain-approx, ai-sdk-prune, naive. Not a
 * test: nothing here fails on a slow machine.
 *
 * A turn is one more message. The warm figures are a warm builder's: after the cold call every case
 * pauses 2 s (an agent's next turn comes after the model's answer), runs `WARMUP_TURNS` turns (so
 * the figure is not the JIT's first compilations) and a full GC (so it is not the collection of the
 * cold call's garbage), then takes the median of `WARM_RUNS` turns; "nothing new" is warmed up and
 * timed the same way. Only the cold call samples the heap (`SampledClock`; the shared helpers are in
 * `case-process.ts`). ctxloom runs built (`built.ts`), as its users run it. Each case is given the
 * history as an agent holds it: one array it appends to. ctxloom is also timed with a new array every
 * turn (`plusOneCopiedMs`), which costs it one identity comparison per message to find what is new.
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AIMessage, type BaseMessage, trimMessages } from '@langchain/core/messages';
import { TokenLimiterProcessor } from '@mastra/core/processors';
import { type ModelMessage, pruneMessages } from 'ai';
import type { ContextBuilder, Message, SessionStore, TokenCounter } from '../src/index.js';
import { SETTLE_MS } from '../src/workspace/file-stamp.js';
import { EXAMPLE_WORKSPACE } from '../test/helpers/example-workspace.js';
import { BUDGET_TOKENS, CORPUS_TOOLS, loadAgentCorpus } from './agent-corpus.js';
import { core, ctxloom, sessions } from './built.js';
import { gc, keepAlive, SampledClock, timed, WARMUP_TURNS } from './case-process.js';
import { newestFirstFloor } from './newest-first-floor.js';
import { toLangChain } from './to-langchain.js';

/**
 * Warm calls per figure (median): enough that the figure is a warm turn's, not the first calls' JIT
 * tier-up and the collection of the cold call's garbage (bounded by WARM_TIME_LIMIT_MS).
 */
const WARM_RUNS = 21; // context-build.bench.ts prints this number
/** A case whose cold call took longer than this gets one warm call per figure (keeps the run short). */
const SLOW_COLD_MS = 5_000;

export type CaseFigures = {
  readonly name: string;
  readonly messages: number;
  readonly coldMs: number;
  readonly plusOneMs: number;
  /** +1 with the history given as a new array every turn (only for cases that can tell the two apart). */
  readonly plusOneCopiedMs?: number;
  readonly nothingNewMs: number;
  readonly kept: number;
  /** Heap over the raw history: the highest seen during the cold call (garbage included). */
  readonly peakBytes: number;
  /** Heap over the raw history after a full GC, with the builder/cache kept alive. */
  readonly retainedBytes: number;
  readonly rawHistoryBytes: number;
  readonly note?: string;
};

type Turns = {
  /** Untimed work before the cold call (e.g. writing the history to a session store). */
  readonly setup?: () => Promise<void>;
  /** The cold call on the history. */
  readonly cold: () => Promise<number>;
  /** One call on `list` (warm state kept). Returns the kept message count. */
  readonly call: (list: readonly Message[]) => Promise<number>;
  /**
   * Turns `list` (the harness's one growing array) into the call's own input before the clock starts
   * (the input's upkeep is not the case's cost), returning the timed call.
   * @default the call on `list` as it is
   */
  readonly prepare?: (list: readonly Message[]) => Timed | Promise<Timed>;
  /** As `prepare`, for a history given as a new array every turn. @default none (no second figure) */
  readonly prepareCopied?: (list: readonly Message[]) => () => Promise<number>;
  readonly note?: string;
};

/** A call to time; resolves to the kept message count. */
type Timed = () => Promise<number>;

/** The ctxloom builder's clock: samples the heap during the cold call only. */
const clock = new SampledClock();

async function main(): Promise<void> {
  const [name = 'ctxloom', sizeArgument = '1000'] = process.argv.slice(2);
  const size = Number(sizeArgument);
  gc();
  const before = process.memoryUsage().heapUsed;
  const history = await loadAgentCorpus(size);
  gc();
  const baseline = process.memoryUsage().heapUsed;
  const exact = await ctxloom.TiktokenTokenCounter.create({ encoding: 'o200k_base' });
  gc();
  const withCounter = process.memoryUsage().heapUsed;
  const workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-bench-'));
  try {
    const turns = makeCase(name, { history, exact, workspace });
    await turns.setup?.();
    const { value: kept, ms: coldMs, peakBytes } = await clock.cold(withCounter, () => turns.cold());
    // An agent's next turn comes after the model answered: files and folders the cold call wrote
    // (ctxloom's offload folder in the workspace) are older than the 2 s the caches wait before they
    // trust a stat, as they are in a workspace in use. The same pause in every case.
    await sleep(SETTLE_MS + 100);
    const slow = coldMs > SLOW_COLD_MS;
    const runs = slow ? 1 : WARM_RUNS;
    const grown: Message[] = [...history];
    let turn = 0;
    const plusOneWith = (prepare: (list: readonly Message[]) => Timed | Promise<Timed>) => async () => {
      grown.push(
        turn % 2 === 0
          ? core.assistant(`Answer ${turn}: 已完成, the budget walk stops early.`)
          : core.user(`Follow-up ${turn}?`),
      );
      turn += 1;
      const run = await prepare(grown);
      const start = performance.now();
      await run();
      return performance.now() - start;
    };
    const appended = plusOneWith((list) => prepared(turns, list));
    if (!slow) await timed(WARMUP_TURNS, appended);
    // The warm-up turns leave the cold call's garbage to collect; a full collection now, for every
    // case, keeps that collection out of the warm figures.
    gc();
    const plusOne = await timed(runs, appended);
    const copied = turns.prepareCopied;
    const plusOneCopied = copied === undefined ? undefined : await timed(runs, plusOneWith(copied));
    const again = async () => {
      const run = await prepared(turns, grown);
      const start = performance.now();
      await run();
      return performance.now() - start;
    };
    // Warmed up like the +1 turns: a build with nothing new may take a path none of them took.
    if (!slow) await timed(WARMUP_TURNS, again);
    const nothingNew = await timed(runs, again);
    keepAlive(turns);
    gc();
    const retainedBytes = process.memoryUsage().heapUsed - withCounter;
    const figures: CaseFigures = {
      name,
      messages: size,
      coldMs,
      plusOneMs: plusOne,
      ...(plusOneCopied === undefined ? {} : { plusOneCopiedMs: plusOneCopied }),
      nothingNewMs: nothingNew,
      kept,
      peakBytes,
      retainedBytes,
      rawHistoryBytes: baseline - before,
      ...(turns.note === undefined ? {} : { note: turns.note }),
    };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

function prepared(turns: Turns, list: readonly Message[]): Timed | Promise<Timed> {
  return turns.prepare?.(list) ?? (() => turns.call(list));
}

type Shared = {
  readonly history: readonly Message[];
  readonly exact: TokenCounter;
  readonly workspace: string;
};

function makeCase(name: string, shared: Shared): Turns {
  switch (name) {
    case 'ctxloom':
      return ctxloomCase(shared);
    case 'ctxloom-store':
      return ctxloomStoreCase(
        shared,
        new ctxloom.JsonlSessionStore({ dir: path.join(shared.workspace, 'sessions') }),
      );
    case 'ctxloom-sqlite':
      return ctxloomStoreCase(
        shared,
        new ctxloom.SqliteSessionStore({ path: path.join(shared.workspace, 'sessions.db') }),
      );
    case 'ctxloom-workspace':
      return ctxloomWorkspaceCase(shared);
    case 'floor':
      return floorCase(shared);
    case 'mastra':
      return mastraCase(shared);
    case 'langchain-exact':
      return langChainCase(shared, 'exact');
    case 'langchain-approx':
      return langChainCase(shared, 'approx');
    case 'ai-sdk-prune':
      return aiSdkCase(shared);
    case 'naive':
      return naiveCase(shared);
    default:
      throw new Error(`unknown case ${name}`);
  }
}

/**
 * forAgent on the case's empty workspace: no files, no skills, no Recent History (what the other
 * libraries do); or, with `defaultsIn`, forAgent's own defaults on that workspace.
 */
function agentBuilder({ exact, workspace }: Shared, defaultsIn?: string): ContextBuilder {
  return ctxloom.ContextBuilder.forAgent({
    workspace: defaultsIn ?? workspace,
    channel: 'cli',
    tokenCounter: exact,
    contextWindowTokens: CONTEXT_WINDOW_TOKENS,
    governor: { blockLimit: BUDGET_TOKENS },
    ...(defaultsIn === undefined ? { skills: { builtinDir: null }, recentHistory: false } : {}),
    now: clock.now,
  });
}

const CONTEXT_WINDOW_TOKENS = 128_000;

function ctxloomCase(shared: Shared, builder: ContextBuilder = agentBuilder(shared)): Turns {
  const { history } = shared;
  const buildWith = (kept: readonly Message[], list: readonly Message[]) => {
    const input = {
      history: kept,
      current: core.textOf((list.at(-1) as Message).content),
      tools: CORPUS_TOOLS,
      sessionKey: 'bench',
    };
    return async () => (await builder.build(input)).messages.length;
  };
  // As an agent holds a session: the history is one array it appends to (every message but the
  // last, which is the current one), brought up to date before the clock starts.
  const kept: Message[] = [];
  const prepare = (list: readonly Message[]) => {
    if (kept.length > list.length - 1 || kept.at(-1) !== list[kept.length - 1]) kept.length = 0;
    for (let index = kept.length; index < list.length - 1; index += 1) kept.push(list[index] as Message);
    return buildWith(kept, list);
  };
  const prepareCopied = (list: readonly Message[]) => buildWith(list.slice(0, -1), list);
  return { cold: prepare(history), call: (list) => prepare(list)(), prepare, prepareCopied };
}

/**
 * forAgent with its defaults on a real workspace: the bundled example's AGENTS.md, SOUL.md, USER.md,
 * MEMORY.md and skills, the built-in skills, and a memory/history.jsonl of 1,000 entries (the memory
 * writer's cap) for the Recent History part. Every turn looks at these files (a stat each); none is
 * re-read, re-parsed or re-counted while unchanged. The files are written before the cold call, and
 * have settled past the caches' 2 s window by the warm turns (as every case pauses after its cold call).
 */
function ctxloomWorkspaceCase(shared: Shared): Turns {
  const workspace = path.join(shared.workspace, 'agent');
  const builder = agentBuilder(shared, workspace);
  const ctxloom = ctxloomCase(shared, builder);
  return {
    ...ctxloom,
    setup: async () => {
      await cp(EXAMPLE_WORKSPACE, workspace, { recursive: true });
      await writeFile(path.join(workspace, 'memory', 'history.jsonl'), historyJsonl(1_000));
    },
    note: 'forAgent defaults on the example workspace: built-in skills, MEMORY.md, a 1,000-entry history.jsonl',
  };
}

/** A history.jsonl of `count` consolidation entries, about 300 characters each (English and Chinese). */
function historyJsonl(count: number): string {
  const lines: string[] = [];
  for (let cursor = 1; cursor <= count; cursor += 1) {
    const content =
      `- [durable] Entry ${cursor}: the build cache is keyed by content hash, 增量构建跳过未改变的页面; ` +
      `the snapshot tests for remark ${cursor} were updated after the footnote ids changed (user-content-fnref-*).`;
    lines.push(JSON.stringify({ cursor, timestamp: '2026-11-27 09:40', content, session_key: 'bench' }));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * An agent turn as a long-lived agent on a session store (JSONL or SQLite) runs it: load the
 * session, replay it (`replaySession`: nanobot's message and token caps) and build. The turn's new
 * messages are appended to the store before the clock starts (the agent saved them after the last
 * turn).
 */
function ctxloomStoreCase(shared: Shared, store: SessionStore): Turns {
  const { history, exact } = shared;
  const builder = agentBuilder(shared);
  const budget = { tokenCounter: exact, contextWindowTokens: CONTEXT_WINDOW_TOKENS, maxOutputTokens: 8_192 };
  let stored = 0;
  const save = async (list: readonly Message[]) => {
    const upTo = list.length - 1;
    for (let from = stored; from < upTo; from += 5_000)
      await store.append('bench', list.slice(from, Math.min(upTo, from + 5_000)));
    stored = Math.max(stored, upTo);
  };
  const turnOn = (list: readonly Message[]) => async () => {
    const { record: _record, ...replayed } = await sessions.loadReplayedSession(store, {
      sessionKey: 'bench',
      ...budget,
    });
    const input = {
      ...replayed,
      current: core.textOf((list.at(-1) as Message).content),
      tools: CORPUS_TOOLS,
      sessionKey: 'bench',
    };
    return (await builder.build(input)).messages.length;
  };
  return {
    setup: () => save(history),
    cold: turnOn(history),
    call: async (list) => {
      await save(list);
      return turnOn(list)();
    },
    prepare: async (list) => {
      await save(list);
      return turnOn(list);
    },
    note: 'loadReplayedSession (the newest 1,280 messages: the replay cap of nanobot for this window) + build per turn',
  };
}

/** The floor: newest-first walk with exact counting (cached) and an early exit at the budget. */
function floorCase({ history, exact }: Shared): Turns {
  const walk = newestFirstFloor(exact, BUDGET_TOKENS);
  return { cold: async () => walk(history), call: async (list) => walk(list) };
}

/** Mastra's TokenLimiterProcessor at the LLM-request stage (its own heuristic estimator, tokenx). */
function mastraCase({ history }: Shared): Turns {
  const limiter = new TokenLimiterProcessor({ limit: BUDGET_TOKENS });
  const converted = new WeakMap<Message, ModelMessage>();
  const toPrompt = (list: readonly Message[]) =>
    list.map((message) => memo(converted, message, toModelMessage));
  const call = async (list: readonly Message[]) => {
    const prompt = toPrompt(list);
    const args = { prompt, stepNumber: 0, steps: [], state: {}, abort: abortStub };
    // biome-ignore lint/suspicious/noExplicitAny: the benchmark passes the few fields the limiter reads
    const result = (await limiter.processLLMRequest(args as any)) as
      | { prompt?: readonly unknown[] }
      | undefined;
    return result?.prompt?.length ?? prompt.length;
  };
  return {
    cold: () => call(history),
    call,
    note: `Mastra ${process.version} (it declares Node ≥ 22.13; run on the repo's Node)`,
  };
}

function abortStub(): never {
  throw new Error('aborted');
}

/** LangChain's trimMessages, strategy 'last', with an exact (memoised) or an approximate counter. */
function langChainCase({ history, exact }: Shared, kind: 'exact' | 'approx'): Turns {
  const converted = new WeakMap<Message, BaseMessage>();
  const byContent = new Map<string, number>();
  const byObject = new WeakMap<BaseMessage, number>();
  const countOne = (message: BaseMessage): number => {
    const known = byObject.get(message);
    if (known !== undefined) return known;
    const text = langChainText(message);
    let count =
      kind === 'approx' ? Math.ceil(text.length / 4) + 4 : byContent.get(`${message.getType()}\u0000${text}`);
    if (count === undefined) {
      count = exact.countText(text) + 4;
      byContent.set(`${message.getType()}\u0000${text}`, count);
    }
    byObject.set(message, count);
    return count;
  };
  const tokenCounter = (messages: BaseMessage[]) =>
    messages.reduce((sum, message) => sum + countOne(message), 0);
  const toolTokens = exact.countTools(CORPUS_TOOLS);
  const call = async (list: readonly Message[]) =>
    (
      await trimMessages(
        list.map((message) => memo(converted, message, toLangChain)),
        {
          maxTokens: BUDGET_TOKENS - toolTokens,
          strategy: 'last',
          tokenCounter,
          includeSystem: true,
          startOn: 'human',
        },
      )
    ).length;
  return {
    cold: () => call(history),
    call,
    note:
      kind === 'exact' ? 'o200k counts memoised by content (trimMessages copies messages)' : 'chars/4 + 4',
  };
}

/** The AI SDK's pruneMessages (drops reasoning and old tool calls; it has no token budget). */
function aiSdkCase({ history }: Shared): Turns {
  const converted = new WeakMap<Message, ModelMessage>();
  const call = async (list: readonly Message[]) =>
    pruneMessages({
      messages: list.map((message) => memo(converted, message, toModelMessage)),
      reasoning: 'all',
      toolCalls: 'before-last-2-messages',
      emptyMessages: 'remove',
    }).length;
  return { cold: () => call(history), call, note: 'no token budget: prunes reasoning and old tool calls' };
}

/** A naive loop: count every message exactly (no cache), then drop the oldest until it fits. */
function naiveCase({ history, exact }: Shared): Turns {
  const call = async (list: readonly Message[]) => {
    const counts = list.map((message) => exact.countMessage(message));
    let total = counts.reduce((sum, count) => sum + count, exact.countTools(CORPUS_TOOLS));
    let first = 1;
    while (total > BUDGET_TOKENS && first < list.length - 1) {
      total -= counts[first] ?? 0;
      first += 1;
    }
    return list.length - first + 1;
  };
  return { cold: () => call(history), call };
}

function memo<TValue>(
  cache: WeakMap<Message, TValue>,
  message: Message,
  convert: (message: Message) => TValue,
): TValue {
  let value = cache.get(message);
  if (value === undefined) {
    value = convert(message);
    cache.set(message, value);
  }
  return value;
}

function toModelMessage(message: Message): ModelMessage {
  const text = core.textOf(message.content);
  switch (message.role) {
    case 'system':
      return { role: 'system', content: text };
    case 'user':
      return { role: 'user', content: [{ type: 'text', text }] };
    case 'tool':
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: message.toolCallId ?? '',
            toolName: message.name ?? 'tool',
            output: { type: 'text', value: text },
          },
        ],
      };
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...(text === '' ? [] : [{ type: 'text' as const, text }]),
          ...(message.toolCalls ?? []).map((call) => ({
            type: 'tool-call' as const,
            toolCallId: call.id,
            toolName: call.name,
            input: JSON.parse(call.arguments) as unknown,
          })),
        ],
      };
  }
}

function langChainText(message: BaseMessage): string {
  const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  const calls = message instanceof AIMessage ? (message.tool_calls ?? []) : [];
  return [content, ...calls.flatMap((call) => [call.name, JSON.stringify(call.args)])]
    .filter((part) => part !== '')
    .join('\n');
}

await main();
