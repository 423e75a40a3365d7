import type { CacheBreakpointPlan } from '../adapters/plan-cache-breakpoints.js';
import type { PromptCacheRequest } from '../adapters/prompt-cache-request.js';
import { type PromptCacheSimulation, simulatePromptCache } from '../cache/simulate-prompt-cache.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { CompactionRecord } from '../core/compaction-record.js';
import { ContextError, throwIfAborted } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { ChatModel, ChatResult } from '../llm/chat-model.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { EvalMetrics, EvalProviderCost } from './eval-metrics.js';
import type { EvalPrice, EvalPrices } from './eval-prices.js';
import type { EvalCall, EvalScenario, EvalTurn } from './eval-scenario.js';
import type { EvalCompactionState, EvalStrategy, EvalStrategyRun } from './eval-strategy.js';
import { historyBefore } from './generate-scenario.js';
import { type EvalCallGrade, gradeCall } from './grade-call.js';
import {
  type EvalCompactionGrade,
  gradeCompaction,
  type SessionCoverage,
  sessionCoverage,
} from './grade-compaction.js';
import { toProviderRequests } from './provider-requests.js';

/** Options for {@link runScenario}. */
export type RunScenarioOptions = {
  readonly scenario: EvalScenario;
  readonly strategy: EvalStrategy;
  readonly budgetTokens: number;
  readonly agent: ChatModel;
  readonly tokenCounter: TokenCounter;
  readonly prices: EvalPrices;
  readonly summariser?: ChatModel;
  readonly signal?: AbortSignal;
};

/** The keys of {@link RunScenarioOptions}. */
export const RUN_SCENARIO_OPTION_KEYS = {
  scenario: true,
  strategy: true,
  budgetTokens: true,
  agent: true,
  tokenCounter: true,
  prices: true,
  summariser: true,
  signal: true,
} as const satisfies OptionKeys<RunScenarioOptions>;

const MAX_PROBLEMS = 20;

/**
 * Runs one strategy over one scenario at one budget: every call of every turn, the agent at probe
 * calls, each request graded as it is made (so a long run keeps no copy of what it sent), then both
 * providers' prompt caches simulated over the whole run.
 * @throws ContextError `ABORTED` when the signal is aborted; `INVALID_OPTIONS` for an unknown option.
 */
export async function runScenario(options: RunScenarioOptions): Promise<EvalMetrics> {
  checkOptions(options, { where: 'runScenario options', known: RUN_SCENARIO_OPTION_KEYS });
  const { scenario, strategy } = options;
  const run = await strategy.start({
    scenario,
    systemPrompt: scenario.systemPrompt,
    budgetTokens: options.budgetTokens,
    tools: scenario.tools,
    tokenCounter: options.tokenCounter,
    ...(options.summariser === undefined ? {} : { summariser: options.summariser }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const tally = new Tally();
  tally.turns(scenario.turns.length);
  try {
    let history: readonly Message[] = [];
    for (const turn of scenario.turns) {
      for (const call of turn.calls) {
        throwIfAborted(options.signal);
        await callOnce({ run, options, turn, call, history, tally });
      }
      const next = turn.index + 1;
      history = scenario.rewinds.some((rewind) => rewind.turn === next)
        ? historyBefore(scenario, next)
        : [...history, turn.user, ...(turn.steps.at(-1) ?? []), turn.answer];
    }
    const state = run.compactions?.();
    if (state !== undefined) tally.compactionState(state);
  } finally {
    await run.close?.();
  }
  return tally.metrics(options.prices);
}

async function callOnce(step: {
  readonly run: EvalStrategyRun;
  readonly options: RunScenarioOptions;
  readonly turn: EvalTurn;
  readonly call: EvalCall;
  readonly history: readonly Message[];
  readonly tally: Tally;
}): Promise<void> {
  const { options, turn, call } = step;
  const { scenario } = options;
  let messages: readonly Message[] | undefined;
  let failure: string | undefined;
  try {
    messages = await step.run.messagesFor({
      history: step.history,
      user: turn.user,
      inflight: turn.steps[call.step] ?? [],
      turn: call.turn,
      step: call.step,
    });
  } catch (error) {
    if (ContextError.isInstance(error) && error.code === 'ABORTED') throw error;
    failure = ContextError.isInstance(error) ? `${error.code}: ${error.message}` : String(error);
  }
  const isProbe = call.step === 0 && scenario.probes.some((probe) => probe.turn === call.turn);
  const reply: ChatResult | undefined =
    isProbe && messages !== undefined
      ? await options.agent.generate({ messages, tools: scenario.tools, ...signalOf(options) })
      : undefined;
  const state = step.run.compactions?.();
  const grade = gradeCall({
    scenario,
    call,
    messages,
    ...(reply === undefined ? {} : { reply }),
    ...(state === undefined ? {} : { stored: step.history }),
  });
  step.tally.add(grade, { call, failure });
  if (messages === undefined) return;
  if (state !== undefined) {
    // The session at this call: the stored history and the turn so far (a compaction may pin the
    // turn's request or, in the middle of a tool loop, summarise its own messages, which the history
    // stores at the turn's end).
    const session = [...step.history, turn.user, ...(turn.steps[call.step] ?? [])];
    step.tally.compaction(
      gradeCompaction({
        history: session,
        records: state.records,
        messages,
        session: step.tally.session(session, state.records),
      }),
      call,
    );
  }
  const provider = toProviderRequests(messages, {
    tools: scenario.tools,
    at: call.at,
    model: options.prices.anthropic.model,
    anthropicCache: options.strategy.anthropicCache,
    previous: step.tally.plan,
    tokenCounter: options.tokenCounter,
  });
  step.tally.sent({
    call,
    tokens: options.tokenCounter.countMessages(messages) + options.tokenCounter.countTools(scenario.tools),
    provider,
    isValid: grade.problems.length === 0,
  });
}

function signalOf(options: RunScenarioOptions): { readonly signal?: AbortSignal } {
  return options.signal === undefined ? {} : { signal: options.signal };
}

type Counts = Omit<EvalMetrics, 'problems' | 'anthropic' | 'openai'>;

/** The running counts of one run. */
class Tally {
  plan: CacheBreakpointPlan | undefined;
  #counts: { -readonly [TKey in keyof Counts]: Counts[TKey] } = {
    requests: 0,
    failedRequests: 0,
    ruleChecks: 0,
    rulesVisible: 0,
    systemRuleChecks: 0,
    systemRulesVisible: 0,
    userRuleChecks: 0,
    userRulesVisible: 0,
    tempts: 0,
    violations: 0,
    userOrSystemTempts: 0,
    userOrSystemViolations: 0,
    latestRequestChecks: 0,
    latestRequestPresent: 0,
    identifierChecks: 0,
    identifiersRetained: 0,
    questions: 0,
    correctAnswers: 0,
    recallCalls: 0,
    updateQuestions: 0,
    staleAnswers: 0,
    updatesSuperseded: 0,
    recallable: 0,
    turns: 0,
    compactionChecks: 0,
    lineageValid: 0,
    coverageExact: 0,
    compactions: 0,
    compactionTokensSaved: 0,
    maxCompactionDepth: 0,
    failedCompactions: 0,
    failedCompactionsThatChanged: 0,
    discardedCompactions: 0,
    validRequests: 0,
    tokensSent: 0,
  };
  readonly #problems: string[] = [];
  readonly #anthropic: PromptCacheRequest[] = [];
  /** For each Anthropic request, whether the request was valid before the cache simulation. */
  readonly #anthropicValid: boolean[] = [];
  readonly #openai: PromptCacheRequest[] = [];
  #validWithoutAnthropic = 0;

  add(grade: EvalCallGrade, at: { readonly call: EvalCall; readonly failure: string | undefined }): void {
    const counts = this.#counts;
    counts.requests += 1;
    if (at.failure !== undefined) {
      counts.failedRequests += 1;
      this.#problem(at.call, at.failure);
    }
    counts.latestRequestChecks += 1;
    if (grade.latestRequestPresent) counts.latestRequestPresent += 1;
    else if (at.failure === undefined) this.#problem(at.call, 'the turn’s user message is missing');
    for (const key of GRADE_COUNTS) counts[key] += grade[key];
    for (const problem of grade.problems) if (at.failure === undefined) this.#problem(at.call, problem);
  }

  turns(count: number): void {
    this.#counts.turns = count;
  }

  /** The session part of the compaction grade, shared by the calls that see the same history and records. */
  session(history: readonly Message[], records: readonly CompactionRecord[]): SessionCoverage {
    const last = this.#session;
    if (last !== undefined && last.history === history && last.records === records) return last.coverage;
    const coverage = sessionCoverage(history, records);
    this.#session = { history, records, coverage };
    return coverage;
  }

  #session:
    | {
        readonly history: readonly Message[];
        readonly records: readonly CompactionRecord[];
        readonly coverage: SessionCoverage;
      }
    | undefined;

  compaction(grade: EvalCompactionGrade, call: EvalCall): void {
    this.#counts.compactionChecks += 1;
    if (grade.lineageValid) this.#counts.lineageValid += 1;
    if (grade.coverageExact) this.#counts.coverageExact += 1;
    for (const problem of grade.problems) this.#problem(call, problem);
  }

  /** The compacting strategy's state at the end of the run. */
  compactionState(state: EvalCompactionState): void {
    const counts = this.#counts;
    counts.compactions = state.records.length;
    counts.compactionTokensSaved = state.records.reduce(
      (sum, record) => sum + record.tokensBefore - record.tokensAfter,
      0,
    );
    counts.maxCompactionDepth = Math.max(0, ...state.records.map((record) => record.depth));
    counts.failedCompactions = state.failedAttempts;
    counts.failedCompactionsThatChanged = state.failedAttemptsThatChanged;
    counts.discardedCompactions = state.discardedBackgroundCompactions;
  }

  sent(request: {
    readonly call: EvalCall;
    readonly tokens: number;
    readonly provider: ReturnType<typeof toProviderRequests>;
    readonly isValid: boolean;
  }): void {
    const { provider } = request;
    this.#counts.tokensSent += request.tokens;
    this.plan = provider.plan;
    for (const problem of provider.problems) this.#problem(request.call, problem);
    const isValid = request.isValid && provider.problems.length === 0;
    if (provider.openai !== undefined) this.#openai.push(provider.openai);
    if (provider.anthropic !== undefined) {
      this.#anthropic.push(provider.anthropic);
      this.#anthropicValid.push(isValid);
    } else if (isValid) this.#validWithoutAnthropic += 1;
  }

  metrics(prices: EvalPrices): EvalMetrics {
    const anthropic = simulatePromptCache(this.#anthropic, {
      provider: 'anthropic',
      model: prices.anthropic.model,
      multipliers: multipliersOf(prices.anthropic),
    });
    const openai = simulatePromptCache(this.#openai, {
      provider: 'openai',
      multipliers: multipliersOf(prices.openai),
    });
    let validRequests = this.#validWithoutAnthropic;
    anthropic.requests.forEach((simulated, index) => {
      const isValid = this.#anthropicValid[index] === true && simulated.problems.length === 0;
      if (isValid) validRequests += 1;
      for (const problem of simulated.problems)
        this.#problems.push(`request ${index}: Anthropic: ${problem}`);
    });
    return {
      ...this.#counts,
      validRequests,
      problems: this.#problems.slice(0, MAX_PROBLEMS),
      anthropic: costOf(anthropic, prices.anthropic),
      openai: costOf(openai, prices.openai),
    };
  }

  #problem(call: EvalCall, problem: string): void {
    if (this.#problems.length < MAX_PROBLEMS) this.#problems.push(`${call.turn}.${call.step}: ${problem}`);
  }
}

const GRADE_COUNTS = [
  'ruleChecks',
  'rulesVisible',
  'systemRuleChecks',
  'systemRulesVisible',
  'userRuleChecks',
  'userRulesVisible',
  'tempts',
  'violations',
  'userOrSystemTempts',
  'userOrSystemViolations',
  'identifierChecks',
  'identifiersRetained',
  'questions',
  'correctAnswers',
  'recallCalls',
  'updateQuestions',
  'staleAnswers',
  'updatesSuperseded',
  'recallable',
] as const satisfies readonly (keyof Counts & keyof EvalCallGrade)[];

function multipliersOf(price: EvalPrice): { readonly read: number; readonly write5m: number } {
  return { read: price.cacheReadMultiplier, write5m: price.cacheWriteMultiplier };
}

function costOf(simulation: PromptCacheSimulation, price: EvalPrice): EvalProviderCost {
  const perToken = price.inputUsdPerMillionTokens / 1_000_000;
  return {
    hitRate: simulation.totals.hitRate,
    costUsd: simulation.totals.cost * perToken,
    costUsdWithoutCache: simulation.totals.costWithoutCache * perToken,
  };
}
