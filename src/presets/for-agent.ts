import type { AutoCompactionOptions } from '../compaction/auto-compaction-options.js';
import type { OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import type { IdGenerator } from '../core/ids.js';
import {
  CONTEXT_GOVERNOR_NESTED_OPTIONS,
  CONTEXT_GOVERNOR_OPTION_KEYS,
  ContextGovernor,
  type ContextGovernorOptions,
} from '../filters/context-governor.js';
import {
  DEFAULT_MAX_TOOL_RESULT_CHARS,
  DEFAULT_OFFLOAD_EXEMPT_TOOLS,
  DEFAULT_PLACEHOLDER_TEXTS,
} from '../filters/governor-constants.js';
import { JoinSystemMessagesFilter } from '../filters/join-system-messages-filter.js';
import { MergeCurrentMessageFilter } from '../filters/merge-current-message-filter.js';
import { RoleAlternationFilter } from '../filters/role-alternation-filter.js';
import { ToolResultBudgetFilter } from '../filters/tool-result-budget-filter.js';
import type { ContextPipelineOptions } from '../pipeline/context-pipeline.js';
import type { MessageProvider } from '../pipeline/contracts.js';
import {
  AgentBootstrapProvider,
  type AgentBootstrapProviderOptions,
} from '../providers/agent-bootstrap-provider.js';
import { AlwaysOnSkillsProvider } from '../providers/always-on-skills-provider.js';
import { ArchivedSummaryProvider } from '../providers/archived-summary-provider.js';
import {
  CurrentMessageProvider,
  type CurrentMessageProviderOptions,
} from '../providers/current-message-provider.js';
import { DEFAULT_TOOL_CONTRACT } from '../providers/default-tool-contract.js';
import { IdentityProvider } from '../providers/identity-provider.js';
import { MemoryProvider, type MemoryReader } from '../providers/memory-provider.js';
import { NotesProvider } from '../providers/notes-provider.js';
import {
  RecentHistoryProvider,
  type RecentHistoryProviderOptions,
} from '../providers/recent-history-provider.js';
import type { RuntimePlatform } from '../providers/runtime-platform.js';
import { SkillsIndexProvider } from '../providers/skills-index-provider.js';
import { StateHistoryProvider } from '../providers/state-history-provider.js';
import { StaticPromptProvider } from '../providers/static-prompt-provider.js';
import type { SkillsIndexFormat } from '../skills/render-skills-index.js';
import type { SkillEnvironment } from '../skills/skill-environment.js';
import { SkillsCatalog } from '../skills/skills-catalog.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { tokenCounterForModel } from '../tokens/token-counter-for-model.js';
import { resolveAgentWorkspace } from '../workspace/agent-workspace.js';
import type { WorkspaceFileCache } from '../workspace/file-cache.js';
import { AgentHistoryWindow, type AgentHistoryWindowOptions } from './for-agent-history-window.js';
import { pipelineOptions } from './for-chat.js';

/** Skill options of the agent preset. */
export type AgentSkillsOptions = {
  /** Extra skill folders, after `{workspace}/skills` and before the built-ins. @default [] */
  readonly dirs?: readonly string[];
  /** Skill names left out everywhere. @default [] */
  readonly disabled?: readonly string[];
  /** The index format: nanobot's Markdown or an XML list. @default 'markdown' */
  readonly indexFormat?: SkillsIndexFormat;
  /** The built-in skills folder; `null` turns built-ins off. @default BUILTIN_SKILLS_DIR */
  readonly builtinDir?: string | null;
  /** PATH and environment lookups for availability. @default the process's */
  readonly environment?: SkillEnvironment;
  /** A ready catalogue (the other skill options are then ignored). @default one built from the options */
  readonly catalog?: SkillsCatalog;
};

/** Options for `ContextBuilder.forAgent`: nanobot's whole context behaviour for a workspace agent. */
export type AgentPresetOptions = {
  /** The agent workspace: SOUL.md, USER.md, memory/, skills/. */
  readonly workspace: string;
  /** The project folder of this conversation (AGENTS.md). @default the agent workspace */
  readonly projectWorkspace?: string;
  /** The channel (picks the identity's format hint), e.g. `cli`, `telegram`. @default undefined (no hint) */
  readonly channel?: string;
  /** Counts tokens for the budget and the trace. @default tokenCounterForModel(model) */
  readonly tokenCounter?: TokenCounter;
  /**
   * The model the context is for. Without a `tokenCounter`, a Claude model (`/claude/i`) is counted
   * conservatively (the estimate × `CLAUDE_TOKEN_FACTOR`, 1.25). @default none (EstimatingTokenCounter)
   */
  readonly model?: string;
  /** The model's context window. @default 65536 */
  readonly contextWindowTokens?: number;
  /** Tokens reserved for the answer. @default 8192 */
  readonly maxOutputTokens?: number;
  /** Skills: extra folders, disabled names, index format. @default {} */
  readonly skills?: AgentSkillsOptions;
  /** The host facts printed in the identity. @default the running process */
  readonly platform?: RuntimePlatform;
  /**
   * Bootstrap file rules (TOOLS.md, extra templates, legacy SOUL, size cap). `extraTemplates` is keyed
   * by file and also reaches the memory part under `'memory/MEMORY.md'`. @default {} (no TOOLS.md)
   */
  readonly bootstrap?: Pick<
    AgentBootstrapProviderOptions,
    'includeToolsFile' | 'extraTemplates' | 'legacySoulTemplates' | 'soulTemplate' | 'maxFileChars'
  >;
  /** The tool contract text. @default DEFAULT_TOOL_CONTRACT */
  readonly toolContract?: string;
  /** Include memory/MEMORY.md (off for transient chats). @default true */
  readonly includeMemory?: boolean;
  /** Reads MEMORY.md. @default new MemoryFile({ workspace }) */
  readonly memoryReader?: MemoryReader;
  /** Recent History settings, or `false` to leave the part out (e.g. memory-writer runs). @default {} */
  readonly recentHistory?:
    | Pick<RecentHistoryProviderOptions, 'maxEntries' | 'maxTokens' | 'tokenizer' | 'unified' | 'source'>
    | false;
  /** The current message: media folder rules and the optional time/channel block. @default {} */
  readonly currentMessage?: Pick<
    CurrentMessageProviderOptions,
    'cwd' | 'mediaRoots' | 'maxImageBytes' | 'runtimeMetadata'
  >;
  /** More governor settings (tool-result size, offload, in-flight compaction). @default {} */
  readonly governor?: Omit<
    ContextGovernorOptions,
    'contextWindowTokens' | 'maxOutputTokens' | 'workspace' | 'tokenCounter' | 'compaction'
  >;
  /**
   * Automatic compaction (see `AutoCompactionOptions`): when the request reaches the trigger (a
   * fraction of the governor's input budget, or tokens), an old run of the history is replaced by a
   * summary before the governor's trimming steps. Give `store` (the session store the history comes
   * from) to have the records appended to the build's `sessionKey`. @default none
   */
  readonly compaction?: AutoCompactionOptions;
  /** Make the role sequence legal for strict providers (GLM, Anthropic) after the governor. @default false */
  readonly strictRoles?: boolean;
  /** A file cache shared with other builders. @default one per builder */
  readonly fileCache?: WorkspaceFileCache;
  /** Clock for stage timings. @default performance.now */
  readonly now?: () => number;
  /** Id generator for new messages. @default random ids */
  readonly generateId?: IdGenerator;
  /** Check integrity after every filter. @default false */
  readonly debug?: boolean;
  /**
   * Leave out, before any filter sees them, the oldest history messages the governor is certain to
   * snip, and remember across builds what was learnt about a history that only grows (see
   * `AgentHistoryWindow`): a turn then costs what is new plus the kept window. The messages sent are
   * the same either way (how many the window left out, in the trace, may depend on what the builder
   * learnt, e.g. results it offloaded before); `false` hands the governor the whole history every build.
   * @default true
   */
  readonly historyWindow?: boolean;
};

/** The keys of {@link AgentPresetOptions}, for `checkOptions`. @internal */
export const AGENT_PRESET_OPTION_KEYS = {
  workspace: true,
  projectWorkspace: true,
  channel: true,
  tokenCounter: true,
  contextWindowTokens: true,
  maxOutputTokens: true,
  skills: true,
  platform: true,
  bootstrap: true,
  toolContract: true,
  includeMemory: true,
  memoryReader: true,
  recentHistory: true,
  currentMessage: true,
  governor: true,
  strictRoles: true,
  fileCache: true,
  now: true,
  generateId: true,
  debug: true,
  historyWindow: true,
  model: true,
  compaction: true,
} as const satisfies OptionKeys<AgentPresetOptions>;

type Defined<TValue> = Exclude<TValue, undefined | false>;

/**
 * The governor's keys less the ones the agent preset sets itself (window, output, workspace, counter,
 * and compaction, a preset option of its own).
 */
const {
  contextWindowTokens: _window,
  maxOutputTokens: _output,
  workspace: _workspace,
  tokenCounter: _counter,
  compaction: _compaction,
  ...governorKeys
} = CONTEXT_GOVERNOR_OPTION_KEYS;
const { compaction: compactionShape, ...governorNested } = CONTEXT_GOVERNOR_NESTED_OPTIONS;
const AGENT_GOVERNOR_OPTION_KEYS = governorKeys satisfies OptionKeys<Defined<AgentPresetOptions['governor']>>;

/** The nested option objects of {@link AgentPresetOptions}. @internal */
export const AGENT_PRESET_NESTED_OPTIONS = {
  skills: {
    known: {
      dirs: true,
      disabled: true,
      indexFormat: true,
      builtinDir: true,
      environment: true,
      catalog: true,
    } satisfies OptionKeys<AgentSkillsOptions>,
  },
  bootstrap: {
    known: {
      includeToolsFile: true,
      extraTemplates: true,
      legacySoulTemplates: true,
      soulTemplate: true,
      maxFileChars: true,
    } satisfies OptionKeys<Defined<AgentPresetOptions['bootstrap']>>,
  },
  recentHistory: {
    known: {
      maxEntries: true,
      maxTokens: true,
      tokenizer: true,
      unified: true,
      source: true,
    } satisfies OptionKeys<Defined<AgentPresetOptions['recentHistory']>>,
  },
  currentMessage: {
    known: {
      cwd: true,
      mediaRoots: true,
      maxImageBytes: true,
      runtimeMetadata: true,
    } satisfies OptionKeys<Defined<AgentPresetOptions['currentMessage']>>,
  },
  governor: {
    known: AGENT_GOVERNOR_OPTION_KEYS,
    nested: governorNested,
  },
  compaction: compactionShape,
} as const;

/** Defaults of {@link AgentPresetOptions}. */
export const DEFAULT_AGENT_PRESET = Object.freeze({ contextWindowTokens: 65_536, maxOutputTokens: 8192 });

/**
 * The pipeline of the agent preset: identity → bootstrap files → tool contract → memory → always-on
 * skills → skills index → recent history → archived summary → the model's notes (each its own provider, joined into one
 * system message with `\n\n---\n\n`), then the history, then the current message; filters: join the
 * system parts, merge a same-role current message, then the context governor's steps.
 * @throws ContextError `INVALID_OPTIONS` when `workspace` is missing.
 */
export function agentPresetOptions(options: AgentPresetOptions): ContextPipelineOptions {
  if (typeof options.workspace !== 'string' || options.workspace.trim() === '') {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message:
        'ContextBuilder.forAgent needs `workspace`: the agent workspace folder (it holds SOUL.md, memory/ and skills/).',
    });
  }
  const { agentDir, isSeparateProject } = resolveAgentWorkspace(options);
  const catalog = options.skills?.catalog ?? agentCatalog(agentDir, options.skills ?? {});
  const tokenCounter = options.tokenCounter ?? tokenCounterForModel(options.model);
  const governor = new ContextGovernor({
    ...options.governor,
    contextWindowTokens: options.contextWindowTokens ?? DEFAULT_AGENT_PRESET.contextWindowTokens,
    maxOutputTokens: options.maxOutputTokens ?? DEFAULT_AGENT_PRESET.maxOutputTokens,
    workspace: agentDir,
    tokenCounter,
    ...(options.compaction === undefined ? {} : { compaction: options.compaction }),
  });
  const history =
    options.historyWindow === false
      ? new StateHistoryProvider()
      : new AgentHistoryWindow({
          budgetTokens: governor.budgetTokens,
          placeholderTexts: options.governor?.placeholderTexts ?? DEFAULT_PLACEHOLDER_TEXTS,
          maxToolResultChars: options.governor?.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS,
          exemptTools: options.governor?.offloadExemptTools ?? DEFAULT_OFFLOAD_EXEMPT_TOOLS,
          ...rewrittenBefore(governor),
        });
  return {
    providers: agentProviders(options, { catalog, isSeparateProject, history }),
    filters: [
      new JoinSystemMessagesFilter(),
      new MergeCurrentMessageFilter(),
      ...governor.filters,
      ...(options.strictRoles === true ? [new RoleAlternationFilter()] : []),
    ],
    // Every filter above depends only on its list and the build input: a build whose providers give
    // the same messages as the last one (files, memory and skills unchanged) reuses its result.
    // (Not with compaction: it keeps state across builds, a background job may be ready to swap.)
    reuseUnchangedBuilds: options.compaction === undefined,
    ...pipelineOptions({ ...options, tokenCounter }),
  };
}

/** The governor's tool-result step, whose settled rewrites tell the window what an offload costs. */
function rewrittenBefore(governor: ContextGovernor): Pick<AgentHistoryWindowOptions, 'rewrittenBefore'> {
  const step = governor.filters.find((filter) => filter instanceof ToolResultBudgetFilter);
  return step === undefined
    ? {}
    : { rewrittenBefore: (message, input) => step.rewrittenBefore(message, input) };
}

function agentProviders(
  options: AgentPresetOptions,
  shared: {
    readonly catalog: SkillsCatalog;
    readonly isSeparateProject: boolean;
    readonly history: MessageProvider;
  },
): readonly MessageProvider[] {
  const { workspace } = options;
  const project =
    options.projectWorkspace === undefined ? {} : { projectWorkspace: options.projectWorkspace };
  const recent = options.recentHistory;
  const memoryTemplates = options.bootstrap?.extraTemplates?.['memory/MEMORY.md'];
  return [
    new IdentityProvider({
      workspace,
      ...project,
      ...(options.channel === undefined ? {} : { channel: options.channel }),
      ...(options.platform === undefined ? {} : { platform: options.platform }),
    }),
    new AgentBootstrapProvider({
      workspace,
      ...project,
      ...options.bootstrap,
      ...(options.fileCache === undefined ? {} : { fileCache: options.fileCache }),
    }),
    new StaticPromptProvider({ id: 'tool-contract', text: options.toolContract ?? DEFAULT_TOOL_CONTRACT }),
    ...(options.includeMemory === false
      ? []
      : [
          new MemoryProvider({
            workspace,
            ...(options.memoryReader === undefined ? {} : { reader: options.memoryReader }),
            ...(memoryTemplates === undefined ? {} : { extraTemplates: memoryTemplates }),
          }),
        ]),
    new AlwaysOnSkillsProvider({ catalog: shared.catalog }),
    new SkillsIndexProvider({
      catalog: shared.catalog,
      format: options.skills?.indexFormat ?? 'markdown',
      paths: shared.isSeparateProject ? 'absolute' : 'relative',
    }),
    ...(recent === false ? [] : [new RecentHistoryProvider({ workspace, ...recent })]),
    new ArchivedSummaryProvider(),
    new NotesProvider(),
    shared.history,
    new CurrentMessageProvider({ ...options.currentMessage, catalog: shared.catalog }),
  ];
}

function agentCatalog(workspace: string, skills: AgentSkillsOptions): SkillsCatalog {
  return new SkillsCatalog({
    workspace,
    ...(skills.dirs === undefined ? {} : { dirs: skills.dirs }),
    ...(skills.disabled === undefined ? {} : { disabled: skills.disabled }),
    ...(skills.builtinDir === undefined ? {} : { builtinDir: skills.builtinDir }),
    ...(skills.environment === undefined ? {} : { environment: skills.environment }),
  });
}
