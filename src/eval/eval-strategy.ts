import type { DeferredToolMechanism } from '../context-tools/deferred-tool-mechanism.js';
import type { ToolRegistry } from '../context-tools/tool-registry.js';
import type { CompactionRecord } from '../core/compaction-record.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { EvalScenario } from './eval-scenario.js';

/** What a strategy is given for one run (one scenario at one budget with one summariser). */
export type EvalStrategySetup = {
  readonly scenario: EvalScenario;
  /** The system prompt to send (the persona and any system rules). */
  readonly systemPrompt: string;
  /** The input budget: the whole request (system prompt, history, current turn, tool schemas) in tokens. */
  readonly budgetTokens: number;
  readonly tools: readonly ToolDefinition[];
  readonly tokenCounter: TokenCounter;
  /** The summariser, for a strategy with `usesSummariser`. */
  readonly summariser?: ChatModel;
  readonly signal?: AbortSignal;
  /**
   * The scenario's deferred tools (`runDeferredToolsCheck`): the registry and mechanism whose
   * `tool_search` results in the history load them. ctxloom's strategies keep the loaded ones loaded
   * with `carryLoadedTools`, as docs/deferred-tools.md tells an app to. @default none
   */
  readonly deferredTools?: { readonly registry: ToolRegistry; readonly mechanism: DeferredToolMechanism };
};

/** One model call as the strategy sees it: the stored history, the user message, the in-flight messages. */
export type EvalCallInput = {
  readonly history: readonly Message[];
  readonly user: Message;
  /** The assistant tool calls and results of this turn so far (empty at step 0). */
  readonly inflight: readonly Message[];
  readonly turn: number;
  readonly step: number;
};

/**
 * What a compacting strategy keeps beside the append-only history it is given: its compaction
 * records (the session a recall tool could search is the raw history plus these), and its attempts
 * whose summariser failed.
 */
export type EvalCompactionState = {
  readonly records: readonly CompactionRecord[];
  readonly failedAttempts: number;
  /** Failed attempts after which the view or the records were not what they were before. */
  readonly failedAttemptsThatChanged: number;
  /** Background compactions whose record no longer fit the session when they finished (not applied). */
  readonly discardedBackgroundCompactions: number;
};

/** A started run of a strategy: what it sends for each call, oldest first. */
export interface EvalStrategyRun {
  /** The messages of the request (system prompt first); the tools are the setup's. */
  messagesFor(call: EvalCallInput): Promise<readonly Message[]>;
  /**
   * For a strategy that compacts over an append-only session: its state after the last call. The
   * harness grades lineage and coverage against the raw history with it.
   */
  compactions?(): EvalCompactionState;
  /** Releases what the run holds (files, handles). */
  close?(): Promise<void>;
}

/**
 * A context strategy the eval grades: ctxloom's presets and governor, the peers' trimming, and
 * later the compaction strategies. Shared code reads only these fields, never the `id`.
 */
export interface EvalStrategy {
  /** The contract version. */
  readonly specificationVersion: 'v1';
  /** Stable kebab-case id (reports, `--strategy`). */
  readonly id: string;
  /** The row label of the report. */
  readonly label: string;
  /** Run once per summariser (else once, without one). */
  readonly usesSummariser: boolean;
  /** ctxloom's default configuration: the default invariants must hold for it. */
  readonly isDefault: boolean;
  /**
   * How the Anthropic request gets its prompt-cache breakpoints: `planned` (ctxloom's planner, as
   * `toAnthropicMessages({ cache })` does) or `last-message` (the AI SDK's default marker).
   */
  readonly anthropicCache: 'planned' | 'last-message';
  /** Starts a run. */
  start(setup: EvalStrategySetup): Promise<EvalStrategyRun>;
}
