import type { OptionKeys } from '../core/check-options.js';
import type { Content, Message } from '../core/message.js';
import type { SessionNotes } from '../core/session-notes.js';
import type { ToolDefinition } from '../core/tool-definition.js';

/**
 * Run-time prompt switches . `forChat` and `forReact` read only
 * the general fields; the skill fields take effect on the skill-aware path (`forSkill`).
 */
export type PromptRuntimeContext = {
  /** A builder to use instead of resolving one (highest priority in `resolveForLlm`). */
  readonly contextBuilder?: unknown;
  /** The workspace root for bootstrap files and skills. */
  readonly workspaceDir?: string;
  /** The skills folder. */
  readonly skillsDir?: string;
  /** A preloaded skills catalogue. */
  readonly skillsCatalog?: unknown;
  /** Render the skills index summary. */
  readonly includeSkillsSummary?: boolean;
  /** Inline the active skills' instructions. */
  readonly includeActiveSkills?: boolean;
  /** Inject the workspace bootstrap files. */
  readonly includeBootstrapFiles?: boolean;
};

/** The keys of {@link PromptRuntimeContext}, for `checkOptions`. @internal */
export const PROMPT_RUNTIME_CONTEXT_KEYS = {
  contextBuilder: true,
  workspaceDir: true,
  skillsDir: true,
  skillsCatalog: true,
  includeSkillsSummary: true,
  includeActiveSkills: true,
  includeBootstrapFiles: true,
} as const satisfies OptionKeys<PromptRuntimeContext>;

/** One block of runtime context appended after the user's text (never put in the system prompt). */
export type RuntimeContextBlock = {
  /** Where the block comes from, e.g. `time`, `channel`, `explicit_skills`. */
  readonly source: string;
  /** The block's text. */
  readonly content: string;
};

/** A summary of archived turns: the text and when the session was last active (ISO 8601). */
export type ArchivedSummary = { readonly text: string; readonly lastActive: string };

/**
 * Everything a build reads: the state the seeds call local and global state.
 * Providers read the fields they need; unknown data goes in `state`.
 */
export type BuildInput = {
  /**
   * The conversation so far (already replayed from the store). A new array each turn, or one array
   * the caller only appends to: a builder keeps what it learnt about the history by identity, and
   * tells in O(1) from a reused array's length and ends whether it was only appended to (a splice or
   * shift is seen, and the history is taken as new). A message replaced in place in the middle of a
   * reused array is not seen: to edit or remove an old message, pass a new array.
   */
  readonly history?: readonly Message[];
  /** The current user message: text, or parts. */
  readonly current?: Content;
  /**
   * The role of the current message (nanobot's `current_role`). An `assistant` current message gets
   * no runtime context and no explicit-skills block, and merges into a trailing assistant message.
   * @default 'user'
   */
  readonly currentRole?: 'user' | 'assistant';
  /** Local file paths attached to the current message. */
  readonly media?: readonly string[];
  /** Runtime-context blocks for the current message. */
  readonly runtimeContext?: readonly RuntimeContextBlock[];
  /** The tool definitions that will be sent with the request (counted against the budget). */
  readonly tools?: readonly ToolDefinition[];
  /**
   * Deferred tools: offered through tool search and not sent in full (see `createToolRegistry` in
   * `ctxloom/context-tools`). Not counted against the budget nor in `totalTokens`; the trace lists
   * each with what it would cost if it were sent (`BuildTrace.tools`, `deferred: true`).
   */
  readonly deferredTools?: readonly ToolDefinition[];
  /** A pre-formatted tool description for `ToolsDescProvider`. */
  readonly toolsDescription?: string;
  /** Run-time prompt switches. */
  readonly runtimePrompt?: PromptRuntimeContext;
  /** The session's archived summary (consolidated older turns), shown in the system prompt. */
  readonly summary?: ArchivedSummary;
  /**
   * The model's notes for the session (written through the context tools' `new_context` or `notes`),
   * shown as their own pinned section by `NotesProvider` (the agent preset has one).
   */
  readonly notes?: SessionNotes;
  /** The session key, e.g. `cli:direct`. */
  readonly sessionKey?: string;
  /** Free state for custom providers and filters. */
  readonly state?: Readonly<Record<string, unknown>>;
  /** Cancels the build. */
  readonly signal?: AbortSignal;
};
