import type { AgentSettings } from '../../config/index.js';
import { createSequentialIdGenerator } from '../../core/index.js';
import {
  type AutoCompactionOptions,
  type BuildTrace,
  ContextBuilder,
  ContextError,
  MaxMessagesFilter,
  type SessionRecord,
  type TokenCounter,
} from '../../index.js';
import type { ReplayedSession } from '../../inspector/index.js';
import { agentOptionsFromSettings, agentPresetOptions, DEFAULT_AGENT_PRESET } from '../../presets/index.js';
import { type ReplaySessionOptions, replaySession } from '../../sessions/index.js';

/** The model assumed when neither a flag nor `agent.model` names one (it picks the token counter). */
export const DEFAULT_AGENT_MODEL = 'gpt-4o';

/** The session key a history file is built under (nanobot's CLI channel). */
export const DEFAULT_SESSION_KEY = 'cli:direct';

/** The budget of the agent preset as `build`, `inspect` and `serve` resolve it from flags and ctxloom.yaml. */
export type AgentBudget = {
  /** The model's context window (`--context-window`, else `agent.contextWindowTokens`, else 65536). */
  readonly contextWindowTokens: number;
  /** Tokens reserved for the answer (`--max-output`, else `agent.maxOutputTokens`, else 8192). */
  readonly maxOutputTokens: number;
  /** An explicit input budget (`--max-tokens`); the governor snips history down to it. */
  readonly maxTokens?: number | undefined;
  /** Keep the system prompt plus the newest N messages (`--max-messages`). */
  readonly maxMessages?: number | undefined;
};

/** Everything `build --preset agent`, `inspect` and `serve` share, so they print the same numbers. */
export type AgentContext = {
  readonly budget: AgentBudget;
  readonly tokenCounter: TokenCounter;
  /** The agent preset for a session (its channel from the key), with the budget flags applied. */
  readonly createBuilder: (sessionKey: string) => ContextBuilder;
  /** How the agent loop replays a stored session: the budget and the counter. */
  readonly replayOptions: ReplaySessionOptions;
  /** The history the agent loop replays from a stored session, within the budget. */
  readonly replay: (record: SessionRecord) => ReplayedSession;
};

/**
 * The budget from the flags, falling back to the agent section of ctxloom.yaml and the preset's
 * defaults.
 * @throws ContextError `INVALID_OPTIONS` when the output reserve leaves no room in the window.
 */
export function resolveAgentBudget(
  flags: {
    readonly contextWindowTokens?: number | undefined;
    readonly maxOutputTokens?: number | undefined;
    readonly maxTokens?: number | undefined;
    readonly maxMessages?: number | undefined;
  },
  agent: AgentSettings,
): AgentBudget {
  const contextWindowTokens =
    flags.contextWindowTokens ?? agent.contextWindowTokens ?? DEFAULT_AGENT_PRESET.contextWindowTokens;
  const maxOutputTokens =
    flags.maxOutputTokens ?? agent.maxOutputTokens ?? DEFAULT_AGENT_PRESET.maxOutputTokens;
  if (maxOutputTokens >= contextWindowTokens) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `The output reserve (${maxOutputTokens} tokens) does not fit in the context window (${contextWindowTokens} tokens), so no room is left for the prompt; lower --max-output or raise --context-window (or agent.maxOutputTokens / agent.contextWindowTokens in ctxloom.yaml).`,
    });
  }
  return { contextWindowTokens, maxOutputTokens, maxTokens: flags.maxTokens, maxMessages: flags.maxMessages };
}

/**
 * The agent preset as the CLI runs it: the workspace's agent settings, the budget, sequential ids and
 * a read-only tool-result offload (nothing written; a reference to a file not on disk says the output
 * would be saved there), unless `writeOffloads` (`build --write-offloads`) writes the files for real.
 */
export function agentContext(request: {
  readonly workspace: string;
  readonly agent: AgentSettings;
  readonly budget: AgentBudget;
  readonly tokenCounter: TokenCounter;
  /** Write oversized tool results to `.ctxloom/tool-results/` as the agent does. @default false */
  readonly writeOffloads?: boolean;
  /** Automatic compaction of the builds (`build --compact`). @default none */
  readonly compaction?: AutoCompactionOptions | undefined;
}): AgentContext {
  const { workspace, agent, budget, tokenCounter } = request;
  const dryRun = request.writeOffloads !== true;
  const createBuilder = (sessionKey: string): ContextBuilder => {
    const preset = agentPresetOptions({
      workspace,
      ...agentOptionsFromSettings(agent),
      channel: agent.channel ?? channelOf(sessionKey),
      tokenCounter,
      contextWindowTokens: budget.contextWindowTokens,
      maxOutputTokens: budget.maxOutputTokens,
      governor: {
        offload: { dryRun },
        // The commands judge the budget themselves: build exits 3 (or warns with --allow-over-budget),
        // inspect warns, so the governor hands over what it built.
        onOverBudget: 'keep',
        ...(budget.maxTokens === undefined ? {} : { blockLimit: budget.maxTokens }),
      },
      generateId: createSequentialIdGenerator('ctx'),
      ...(request.compaction === undefined ? {} : { compaction: request.compaction }),
    });
    const maxMessages =
      budget.maxMessages === undefined ? [] : [new MaxMessagesFilter({ maxMessages: budget.maxMessages })];
    return new ContextBuilder({ ...preset, filters: [...maxMessages, ...(preset.filters ?? [])] });
  };
  const replayOptions = {
    tokenCounter,
    contextWindowTokens: budget.contextWindowTokens,
    maxOutputTokens: budget.maxOutputTokens,
  };
  const replay = (record: SessionRecord): ReplayedSession => {
    const { history, summary, notes } = replaySession(record, replayOptions);
    const input = {
      ...(summary === undefined ? {} : { summary }),
      ...(notes === undefined ? {} : { notes }),
    };
    return { history, ...(Object.keys(input).length === 0 ? {} : { input }) };
  };
  return { budget, tokenCounter, createBuilder, replayOptions, replay };
}

/**
 * The reasons a built context does not fit: over `--max-tokens`, or the prompt plus the output
 * reserve over the window. Empty when it fits.
 */
export function budgetProblems(trace: BuildTrace, budget: AgentBudget): readonly string[] {
  const used = trace.totalTokens;
  const problems: string[] = [];
  if (budget.maxTokens !== undefined && used > budget.maxTokens)
    problems.push(
      `the prompt needs ${format(used)} tokens, over --max-tokens ${format(budget.maxTokens)} (the system prompt and the newest turn are never dropped)`,
    );
  const needed = used + budget.maxOutputTokens;
  if (needed > budget.contextWindowTokens)
    problems.push(
      `the prompt (${format(used)} tokens) plus the output reserve (${format(budget.maxOutputTokens)}) need ${format(needed)} tokens, over the ${format(budget.contextWindowTokens)}-token window`,
    );
  return problems;
}

/** The error `build` exits 3 with when the context does not fit. */
export function overBudgetError(
  problems: readonly string[],
  budget: AgentBudget,
  used: number,
): ContextError {
  return new ContextError({
    code: 'BUDGET_UNSATISFIABLE',
    details: { used, ...budget },
    message: `The built context does not fit: ${problems.join('; ')}. Raise --context-window or --max-tokens, lower --max-output, shorten the system prompt (bootstrap files, skills, memory), or pass --allow-over-budget to print it anyway.`,
  });
}

/** The channel of a session key (`telegram:8281248569` → `telegram`). */
function channelOf(sessionKey: string): string {
  const colon = sessionKey.indexOf(':');
  return colon <= 0 ? sessionKey : sessionKey.slice(0, colon);
}

const numberFormat = new Intl.NumberFormat('en-US');

function format(tokens: number): string {
  return numberFormat.format(tokens);
}
