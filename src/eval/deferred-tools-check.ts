import { visibleLoadedTools } from '../context-tools/carry-loaded-tools.js';
import { neutralDeferredTools } from '../context-tools/deferred-request-tools.js';
import { handleDeferredToolCall } from '../context-tools/handle-deferred-tool-call.js';
import { createToolRegistry, type ToolRegistry } from '../context-tools/tool-registry.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError, throwIfAborted } from '../core/errors.js';
import type { Message, ToolCall } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { ChatModel } from '../llm/chat-model.js';
import { EstimatingTokenCounter } from '../tokens/estimating-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { EvalScenario, EvalTurn } from './eval-scenario.js';
import type { EvalStrategy } from './eval-strategy.js';
import { generateScenario } from './generate-scenario.js';
import { evalSummarisers } from './run-eval.js';
import { EVAL_TOOLS } from './scenario-text.js';

/** The deferred tool the scenario loads at its first turn and needs again at its last. */
export const DEFERRED_PROBE_TOOL = 'jira_create_issue';

/** The deferred tools of the scenario (MCP-like; offered through `tool_search`). */
const DEFERRED_TOOLS: readonly ToolDefinition[] = Object.freeze([
  tool({
    name: DEFERRED_PROBE_TOOL,
    description: 'Create a Jira issue in a project.',
    fields: {
      project: 'Project key',
      summary: 'Title',
    },
  }),
  tool({
    name: 'slack_post_message',
    description: 'Post a message to a Slack channel.',
    fields: { channel: 'Channel', text: 'Text' },
  }),
  tool({
    name: 'pg_query',
    description: 'Run a read-only SQL query on PostgreSQL.',
    fields: { sql: 'The query' },
  }),
]);

/** One run of the deferred-tools check: a strategy (with a summariser) at a budget. */
export type DeferredToolsRun = {
  readonly strategyId: string;
  readonly label: string;
  readonly summariserId: string;
  readonly isDefault: boolean;
  readonly budgetTokens: number;
  /** Requests after the loading turn. */
  readonly requests: number;
  /** Of those, the requests in which the message that loaded the tool was no longer sent. */
  readonly loadingMessageGone: number;
  /** Of those, the requests in which the tool's definition was loaded (so the model can call it). */
  readonly toolVisible: number;
  /** The tool's definition is in the last turn's request, where the user asks for it again. */
  readonly visibleAtProbe: boolean;
};

/** Options for {@link runDeferredToolsCheck}. */
export type DeferredToolsCheckOptions = {
  readonly strategies: readonly EvalStrategy[];
  /** @default [6000, 16000] */
  readonly budgets?: readonly number[];
  /** Turns of the session (at least 20). @default 40 */
  readonly turns?: number;
  /** @default 1 */
  readonly seed?: number;
  /** The summarisers of a strategy with `usesSummariser`. @default evalSummarisers() */
  readonly summarisers?: readonly ChatModel[];
  /** @default new EstimatingTokenCounter() */
  readonly tokenCounter?: TokenCounter;
  readonly signal?: AbortSignal;
};

const DEFERRED_TOOLS_CHECK_OPTION_KEYS = {
  strategies: true,
  budgets: true,
  turns: true,
  seed: true,
  summarisers: true,
  tokenCounter: true,
  signal: true,
} as const satisfies OptionKeys<DeferredToolsCheckOptions>;

/**
 * Deferred tools loaded before a compaction: the `identifiers-long-results` session (long tool
 * outputs, so the history outgrows the budget) whose first turn loads `jira_create_issue` through
 * `tool_search` (ctxloom's registry, the provider-neutral mechanism: the request's `tools` are the same
 * on every call, the definition arrives in the search result) and calls it with `call_tool`, and whose
 * last turn asks for another issue. Each request after the loading turn is graded: was the message
 * that loaded the tool still sent, and is the tool loaded in the request (`visibleLoadedTools`: the
 * model can call it). Strategies get the registry in `setup.deferredTools`; ctxloom's carry the loaded
 * tools with `carryLoadedTools`, the peers keep or trim messages as they do.
 * @throws ContextError `INVALID_OPTIONS` for an unknown option or fewer than 20 turns.
 */
export async function runDeferredToolsCheck(
  options: DeferredToolsCheckOptions,
): Promise<readonly DeferredToolsRun[]> {
  checkOptions(options, { where: 'runDeferredToolsCheck options', known: DEFERRED_TOOLS_CHECK_OPTION_KEYS });
  const turns = options.turns ?? 40;
  if (!(Number.isInteger(turns) && turns >= 20))
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `runDeferredToolsCheck: turns must be an integer of at least 20, got ${turns}.`,
    });
  const registry = createToolRegistry({ tools: EVAL_TOOLS, deferred: DEFERRED_TOOLS, maxResults: 1 });
  const scenario = deferredToolsScenario(registry, { turns, seed: options.seed ?? 1 });
  const counter = options.tokenCounter ?? new EstimatingTokenCounter();
  const summarisers = options.summarisers ?? evalSummarisers();
  const runs: DeferredToolsRun[] = [];
  for (const budgetTokens of options.budgets ?? [6000, 16000])
    for (const strategy of options.strategies)
      for (const summariser of summarisersOf(strategy, summarisers)) {
        throwIfAborted(options.signal);
        const graded = await gradeRun({
          strategy,
          scenario,
          registry,
          budgetTokens,
          counter,
          summariser,
          ...signalOf(options),
        });
        runs.push({
          strategyId: strategy.id,
          label: strategy.label,
          summariserId: summariser?.id ?? 'none',
          isDefault: strategy.isDefault,
          budgetTokens,
          ...graded,
        });
      }
  return runs;
}

function summarisersOf(
  strategy: EvalStrategy,
  summarisers: readonly ChatModel[],
): readonly (ChatModel | undefined)[] {
  return strategy.usesSummariser ? summarisers : [undefined];
}

/** The scenario: the base session with its first turn loading the tool and a last turn needing it. */
export function deferredToolsScenario(
  registry: ToolRegistry,
  run: { readonly turns: number; readonly seed: number },
): EvalScenario {
  const base = generateScenario({ family: 'identifiers-long-results', turns: run.turns, seed: run.seed });
  const first = base.turns[0];
  const last = base.turns.at(-1);
  if (first === undefined || last === undefined)
    throw new ContextError({ code: 'UNEXPECTED', message: 'no turns' });
  const turns = [loadingTurn(registry, first), ...base.turns.slice(1, -1), probeTurn(last)];
  return {
    ...base,
    id: `deferred-tools-${run.turns}t-s${run.seed}`,
    turns,
    rules: [],
    probes: [],
    tools: neutralDeferredTools(registry),
  };
}

function loadingTurn(registry: ToolRegistry, turn: EvalTurn): EvalTurn {
  const search: ToolCall = {
    id: 'call_search',
    name: registry.searchTool.name,
    arguments: JSON.stringify({ query: 'create a jira issue', limit: 1 }),
  };
  const outcome = handleDeferredToolCall(search, { registry, mechanism: 'neutral', loaded: [] });
  if (outcome.type !== 'search' || !outcome.loaded.includes(DEFERRED_PROBE_TOOL))
    throw new ContextError({ code: 'UNEXPECTED', message: `the search did not load ${DEFERRED_PROBE_TOOL}` });
  const searching: Message = { id: 't0-s0', role: 'assistant', content: '', toolCalls: [search] };
  const calling: Message = {
    id: 't0-s1',
    role: 'assistant',
    content: '',
    toolCalls: [
      {
        id: 'call_jira',
        name: registry.callTool.name,
        arguments: JSON.stringify({
          name: DEFERRED_PROBE_TOOL,
          arguments: { project: 'OPS', summary: 'Flaky deploy test' },
        }),
      },
    ],
  };
  const created: Message = {
    id: 'call_jira-result',
    role: 'tool',
    toolCallId: 'call_jira',
    name: registry.callTool.name,
    content: 'Created OPS-101.',
  };
  const loaded = [searching, ...outcome.messages];
  const at = turn.calls[0]?.at ?? 0;
  return {
    index: 0,
    user: { id: 't0-user', role: 'user', content: 'Open a Jira issue in OPS for the flaky deploy test.' },
    steps: [[], loaded, [...loaded, calling, created]],
    answer: { id: 't0-answer', role: 'assistant', content: 'Opened OPS-101.' },
    calls: [0, 1, 2].map((step) => ({ turn: 0, step, at: at + step * 15_000 })),
  };
}

function probeTurn(turn: EvalTurn): EvalTurn {
  return {
    ...turn,
    user: {
      id: `t${turn.index}-user`,
      role: 'user',
      content: 'Open another Jira issue in OPS, for the cache regression.',
    },
    steps: [[]],
    calls: turn.calls.slice(0, 1),
  };
}

async function gradeRun(run: {
  readonly strategy: EvalStrategy;
  readonly scenario: EvalScenario;
  readonly registry: ToolRegistry;
  readonly budgetTokens: number;
  readonly counter: TokenCounter;
  readonly summariser: ChatModel | undefined;
  readonly signal?: AbortSignal;
}): Promise<Omit<DeferredToolsRun, 'strategyId' | 'label' | 'summariserId' | 'isDefault' | 'budgetTokens'>> {
  const { scenario } = run;
  const started = await run.strategy.start({
    scenario,
    systemPrompt: scenario.systemPrompt,
    budgetTokens: run.budgetTokens,
    tools: scenario.tools,
    tokenCounter: run.counter,
    deferredTools: { registry: run.registry, mechanism: 'neutral' },
    ...(run.summariser === undefined ? {} : { summariser: run.summariser }),
    ...signalOf(run),
  });
  const loadingIds = new Set(
    (scenario.turns[0]?.steps[1] ?? [])
      .filter((message) => message.role === 'tool')
      .map((message) => message.id),
  );
  const tally = new Tally(loadingIds);
  try {
    let history: readonly Message[] = [];
    for (const turn of scenario.turns) {
      for (const call of turn.calls) {
        const messages = await started.messagesFor({
          history,
          user: turn.user,
          inflight: turn.steps[call.step] ?? [],
          turn: call.turn,
          step: call.step,
        });
        if (turn.index > 0) tally.add(messages, { isProbe: turn === scenario.turns.at(-1) });
      }
      history = [...history, turn.user, ...(turn.steps.at(-1) ?? []), turn.answer];
    }
  } finally {
    await started.close?.();
  }
  return tally.result();
}

/** The grades of one run's requests after the loading turn. */
class Tally {
  #requests = 0;
  #gone = 0;
  #visible = 0;
  #atProbe = false;
  readonly #loadingIds: ReadonlySet<string>;

  constructor(loadingIds: ReadonlySet<string>) {
    this.#loadingIds = loadingIds;
  }

  add(messages: readonly Message[], at: { readonly isProbe: boolean }): void {
    const visible = visibleLoadedTools(messages).has(DEFERRED_PROBE_TOOL);
    this.#requests += 1;
    if (!messages.some((message) => this.#loadingIds.has(message.id))) this.#gone += 1;
    if (visible) this.#visible += 1;
    if (at.isProbe) this.#atProbe = visible;
  }

  result(): Omit<DeferredToolsRun, 'strategyId' | 'label' | 'summariserId' | 'isDefault' | 'budgetTokens'> {
    return {
      requests: this.#requests,
      loadingMessageGone: this.#gone,
      toolVisible: this.#visible,
      visibleAtProbe: this.#atProbe,
    };
  }
}

function tool(spec: {
  readonly name: string;
  readonly description: string;
  readonly fields: Readonly<Record<string, string>>;
}): ToolDefinition {
  const { name, description, fields } = spec;
  return {
    name,
    description,
    parameters: {
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(fields).map(([key, text]) => [key, { type: 'string', description: text }]),
      ),
      required: Object.keys(fields),
    },
  };
}

function signalOf(run: { readonly signal?: AbortSignal }): { readonly signal?: AbortSignal } {
  return run.signal === undefined ? {} : { signal: run.signal };
}

/** The deferred-tools check as a Markdown section (one row per run). */
export function renderDeferredToolsMarkdown(runs: readonly DeferredToolsRun[]): string {
  const rows = runs.map(
    (run) =>
      `| ${run.label}${run.summariserId === 'none' ? '' : ` + ${run.summariserId}`} | ${run.budgetTokens} | ${percent(run.loadingMessageGone, run.requests)} | ${percent(run.toolVisible, run.requests)} | ${run.visibleAtProbe ? 'yes' : 'no'} |`,
  );
  return [
    '## Deferred tools loaded before a compaction',
    '',
    `\`${DEFERRED_PROBE_TOOL}\` is loaded by \`tool_search\` at the first turn (the provider-neutral mechanism) and asked for again at the last; each request after the loading turn is graded.`,
    '',
    '| strategy | budget | loading message gone | tool loaded | loaded at the last turn |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

function percent(part: number, whole: number): string {
  return whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`;
}
