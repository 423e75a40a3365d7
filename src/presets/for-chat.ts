import {
  AUTO_COMPACTION_NESTED_OPTIONS,
  type AutoCompactionOptions,
} from '../compaction/auto-compaction-options.js';
import { AutoCompactor } from '../compaction/auto-compactor.js';
import { DEFAULT_PROMPTS, PROMPT_DEFAULT_KEYS, type PromptDefaults } from '../config/prompt-defaults.js';
import type { OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import type { IdGenerator } from '../core/ids.js';
import type { Role } from '../core/message.js';
import { describeValue } from '../core/message-schema-check.js';
import { AutoCompactionFilter } from '../filters/auto-compaction-filter.js';
import { BudgetGuardFilter } from '../filters/budget-guard-filter.js';
import { KeepOverBudgetFilter } from '../filters/keep-over-budget-filter.js';
import { MaxMessagesFilter } from '../filters/max-messages-filter.js';
import { SanitizeToolCallsFilter } from '../filters/sanitize-tool-calls-filter.js';
import { TokenBudgetFilter } from '../filters/token-budget-filter.js';
import { PROMPT_RUNTIME_CONTEXT_KEYS, type PromptRuntimeContext } from '../pipeline/build-input.js';
import type { ContextPipelineOptions } from '../pipeline/context-pipeline.js';
import type { ContextFilter, MessageProvider } from '../pipeline/contracts.js';
import { BootstrapFilesProvider } from '../providers/bootstrap-files-provider.js';
import { CurrentMessageProvider } from '../providers/current-message-provider.js';
import { isUntouchedTemplate } from '../providers/is-untouched-template.js';
import { StateHistoryProvider, type WorkingMemoryAdapter } from '../providers/state-history-provider.js';
import { StaticPromptProvider } from '../providers/static-prompt-provider.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { tokenCounterForModel } from '../tokens/token-counter-for-model.js';
import type { WorkspaceFileCache } from '../workspace/file-cache.js';
import { chatHistoryFloor, chatMessageFloor } from './chat-history-floor.js';
import { HistoryWindow } from './history-window.js';

/**
 * Options for `ContextBuilder.forChat`. The skill fields of `runtimePrompt` are deliberately not read; the
 * skill preset's own options (`skillSet`, ...) are unknown here (pass them to `forSkill` or `resolveForLlm`).
 */
export type ChatPresetOptions = {
  /** The persona system prompt. @default prompts.personaDefaultPrompt ("You are a helpful assistant.") */
  readonly systemPrompt?: string;
  /** Keep the pinned prefix plus the newest N messages (`MaxMessagesFilter`). @default no limit */
  readonly maxMessages?: number;
  /**
   * The input budget: the whole request sent to the model (system prompt, history, current message
   * and tool schemas) in tokens, enforced by a `TokenBudgetFilter`. Not the model's output limit
   * (`max_tokens` in the OpenAI and Anthropic APIs). @default no budget
   */
  readonly maxInputTokens?: number;
  /**
   * Run-time switches: only `includeBootstrapFiles` and `workspaceDir` are read here; the skill
   * fields are ignored (they take effect on the skill-aware path only). @default {}
   */
  readonly runtimePrompt?: PromptRuntimeContext;
  /** The workspace root for bootstrap files. @default runtimePrompt.workspaceDir */
  readonly workspace?: string;
  /** Counts tokens for the trace and the budget. @default tokenCounterForModel(model) */
  readonly tokenCounter?: TokenCounter;
  /**
   * The model the context is for. Without a `tokenCounter`, a Claude model (`/claude/i`) is counted
   * conservatively (the estimate × `CLAUDE_TOKEN_FACTOR`, 1.25). @default none (EstimatingTokenCounter)
   */
  readonly model?: string;
  /** Prompt text overrides (e.g. `resolvePrompts(config)`). @default DEFAULT_PROMPTS */
  readonly prompts?: Partial<PromptDefaults>;
  /** Annotate tool plans and receipts in the history. @default false */
  readonly annotateHistory?: boolean;
  /** A working-memory view of the history. @default none */
  readonly workingMemory?: WorkingMemoryAdapter;
  /** Characters kept per bootstrap file. @default 20000 */
  readonly maxFileChars?: number;
  /** A file cache shared with other builders. @default one per builder */
  readonly fileCache?: WorkspaceFileCache;
  /** Roles pinned by both budget filters. @default ['system'] */
  readonly pinnedRoles?: readonly Role[];
  /**
   * What a build does when `maxInputTokens` can't be met (the system prompt, the tool schemas and the
   * current message alone exceed it): `throw` a `BudgetUnsatisfiableError` naming the numbers, or
   * `keep` and send only the pinned messages and the current message, over budget.
   * @default 'throw'
   */
  readonly onOverBudget?: 'throw' | 'keep';
  /** Which end `TokenBudgetFilter` trims. @default true (the oldest) */
  readonly trimFromStart?: boolean;
  /**
   * Run `SanitizeToolCallsFilter` before the budget filters: broken historical tool-call transactions
   * and orphan results are removed from the request (with a decision), a reused call id is renamed,
   * a broken current tail fails the build. On by default, so a stored history with an orphan result
   * never becomes an illegal request; `false` keeps the history exactly as given. @default true
   */
  readonly sanitizeToolCalls?: boolean;
  /**
   * With `maxInputTokens` (and the oldest trimmed first), or else with `maxMessages`, and only system
   * messages pinned, no annotation and no working memory: leave out, before any filter sees them, the
   * oldest history messages the token budget (or the message limit) is certain to drop, and remember
   * across builds what was learnt about a history that only grows, so a turn costs what is new plus
   * the kept window (see `AgentHistoryWindow` for the same in the agent preset). The messages sent are
   * the same either way; `false` hands the filters the whole history every build.
   * @default true
   */
  readonly historyWindow?: boolean;
  /**
   * Automatic compaction (see `AutoCompactionOptions`; needs `maxInputTokens`, the budget its trigger
   * and target are fractions of): when the request reaches the trigger, an old run of the history is
   * replaced by a summary before `MaxMessages` and `TokenBudget` trim anything. @default none
   */
  readonly compaction?: AutoCompactionOptions;
  /** Clock for stage timings. @default performance.now */
  readonly now?: () => number;
  /** Id generator for new messages. @default random ids */
  readonly generateId?: IdGenerator;
  /** Check integrity after every filter. @default false */
  readonly debug?: boolean;
};

/** The keys of {@link ChatPresetOptions}, for `checkOptions`. @internal */
export const CHAT_PRESET_OPTION_KEYS = {
  systemPrompt: true,
  maxMessages: true,
  maxInputTokens: true,
  runtimePrompt: true,
  workspace: true,
  tokenCounter: true,
  prompts: true,
  annotateHistory: true,
  workingMemory: true,
  maxFileChars: true,
  fileCache: true,
  pinnedRoles: true,
  onOverBudget: true,
  trimFromStart: true,
  sanitizeToolCalls: true,
  historyWindow: true,
  now: true,
  generateId: true,
  debug: true,
  model: true,
  compaction: true,
} as const satisfies OptionKeys<ChatPresetOptions>;

/** The nested option objects of the chat, ReAct and skill presets. @internal */
export const CHAT_PRESET_NESTED_OPTIONS = {
  runtimePrompt: { known: PROMPT_RUNTIME_CONTEXT_KEYS },
  prompts: { known: PROMPT_DEFAULT_KEYS },
  compaction: AUTO_COMPACTION_NESTED_OPTIONS,
} as const;

/** The effective prompts of a preset: overrides over {@link DEFAULT_PROMPTS}. @internal */
export function presetPrompts(options: Pick<ChatPresetOptions, 'prompts'>): PromptDefaults {
  return { ...DEFAULT_PROMPTS, ...options.prompts };
}

/** The persona provider every preset starts with. @internal */
export function personaProvider(options: ChatPresetOptions): StaticPromptProvider {
  const text = options.systemPrompt ?? presetPrompts(options).personaDefaultPrompt;
  return new StaticPromptProvider({ id: 'persona', text });
}

/**
 * The bootstrap-files provider when `runtimePrompt.includeBootstrapFiles` is true and a workspace is
 * known (`workspace` or `runtimePrompt.workspaceDir`), else nothing. Untouched AGENTS.md, USER.md and
 * TOOLS.md templates (what `ctxloom init` wrote) are skipped, as the agent preset skips them. @internal
 */
export function bootstrapProviders(options: ChatPresetOptions): readonly MessageProvider[] {
  const workspace = options.workspace ?? options.runtimePrompt?.workspaceDir;
  if (options.runtimePrompt?.includeBootstrapFiles !== true || workspace === undefined) return [];
  return [
    new BootstrapFilesProvider({
      workspace,
      files: presetPrompts(options).bootstrapFiles,
      // The agent preset's rule: an untouched AGENTS.md, USER.md or TOOLS.md template says nothing.
      isTemplate: (file, content) => isUntouchedTemplate(file, { content }),
      ...(options.maxFileChars === undefined ? {} : { maxFileChars: options.maxFileChars }),
      ...(options.fileCache === undefined ? {} : { fileCache: options.fileCache }),
    }),
  ];
}

/** The providers every preset ends with: the history, then the current message. @internal */
export function historyProviders(options: ChatPresetOptions): readonly MessageProvider[] {
  const history =
    historyWindow(options) ??
    new StateHistoryProvider({
      annotate: options.annotateHistory ?? false,
      semanticsPrompt: presetPrompts(options).historySemanticsPrompt,
      ...(options.workingMemory === undefined ? {} : { workingMemory: options.workingMemory }),
    });
  return [history, new CurrentMessageProvider()];
}

/**
 * The history window of a preset whose token budget trims the oldest messages, or without a token
 * budget whose message limit does, when nothing but that decides what is dropped (see
 * `ChatPresetOptions.historyWindow`).
 */
function historyWindow(options: ChatPresetOptions): HistoryWindow | undefined {
  const onlySystemPinned = (options.pinnedRoles ?? ['system']).every((role) => role === 'system');
  if (
    options.historyWindow === false ||
    !onlySystemPinned ||
    options.annotateHistory === true ||
    options.workingMemory !== undefined
  ) {
    return undefined;
  }
  if (typeof options.maxInputTokens === 'number')
    return options.trimFromStart === false
      ? undefined
      : new HistoryWindow({
          budget: options.maxInputTokens,
          floor: chatHistoryFloor,
          droppedBy: 'the token budget would drop them',
        });
  if (typeof options.maxMessages === 'number')
    return new HistoryWindow({
      budget: options.maxMessages,
      unit: 'messages',
      floor: chatMessageFloor,
      droppedBy: 'the message limit would drop them',
    });
  return undefined;
}

/**
 * SanitizeToolCalls (unless `sanitizeToolCalls: false`), then MaxMessages (when `maxMessages`), then
 * TokenBudget and the budget check (when `maxInputTokens`): a build fits `maxInputTokens` or fails with
 * `BUDGET_UNSATISFIABLE`, unless `onOverBudget` is `keep`. @internal
 */
export function budgetFilters(options: ChatPresetOptions): readonly ContextFilter[] {
  const pinned = options.pinnedRoles === undefined ? {} : { pinnedRoles: options.pinnedRoles };
  const filters: ContextFilter[] = options.sanitizeToolCalls === false ? [] : [new SanitizeToolCallsFilter()];
  if (options.compaction !== undefined) filters.push(compactionFilter(options, options.compaction));
  if (options.maxMessages !== undefined) {
    filters.push(new MaxMessagesFilter({ maxMessages: options.maxMessages, ...pinned }));
  }
  if (options.maxInputTokens !== undefined) {
    const maxInputTokens: unknown = options.maxInputTokens;
    if (typeof maxInputTokens !== 'number' || !Number.isFinite(maxInputTokens) || maxInputTokens < 0) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `maxInputTokens must be a finite number ≥ 0 (the input budget in tokens), got ${describeValue(maxInputTokens)}.`,
        details: { maxInputTokens },
      });
    }
    const budget = new TokenBudgetFilter({
      maxTokens: maxInputTokens,
      ...pinned,
      ...(options.trimFromStart === undefined ? {} : { trimFromStart: options.trimFromStart }),
    });
    const keep = options.onOverBudget === 'keep';
    filters.push(keep ? new KeepOverBudgetFilter({ filter: budget, ...pinned }) : budget);
    filters.push(
      new BudgetGuardFilter({
        budgetTokens: maxInputTokens,
        onOverBudget: keep ? 'keep' : 'throw',
        hint: "raise maxInputTokens, shorten the system prompt or the current message, send fewer tools, or pass onOverBudget: 'keep'",
      }),
    );
  }
  return filters;
}

/** The automatic compaction step of a chat-family preset, on `maxInputTokens`. */
function compactionFilter(
  options: ChatPresetOptions,
  compaction: AutoCompactionOptions,
): AutoCompactionFilter {
  const budget: unknown = options.maxInputTokens;
  if (typeof budget !== 'number' || !(budget > 0))
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message:
        'compaction needs maxInputTokens: its trigger and target are fractions of the input budget. Set maxInputTokens (e.g. 100000) or give trigger and target in tokens with a maxInputTokens above them.',
    });
  return new AutoCompactionFilter({
    compactor: new AutoCompactor(compaction, 'preset options.compaction'),
    budgetTokens: budget,
  });
}

/** The pipeline-level options (counter, clock, ids, debug) of a preset. @internal */
export function pipelineOptions(
  options: Pick<ChatPresetOptions, 'tokenCounter' | 'model' | 'now' | 'generateId' | 'debug'>,
): ContextPipelineOptions {
  return {
    tokenCounter: options.tokenCounter ?? tokenCounterForModel(options.model),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.generateId === undefined ? {} : { generateId: options.generateId }),
    ...(options.debug === undefined ? {} : { debug: options.debug }),
  };
}

/**
 * The chat preset: Static(persona) → BootstrapFiles (optional) → StateHistory → current
 * message, then
 * SanitizeToolCalls (on by default) → MaxMessages → TokenBudget → budget check. No tools, no skills.
 */
export function chatPresetOptions(options: ChatPresetOptions = {}): ContextPipelineOptions {
  return {
    ...pipelineOptions(options),
    providers: [personaProvider(options), ...bootstrapProviders(options), ...historyProviders(options)],
    filters: budgetFilters(options),
  };
}
