import type { JsonObject } from './json.js';
import type { Message } from './message.js';

/**
 * What made a compaction: ctxloom's summariser, the provider, nanobot's consolidation cursor, or the
 * model's own notes (a context reset through the context tools' `new_context`).
 */
export type CompactionKind = 'summary' | 'provider' | 'consolidation' | 'notes';

/** What started a compaction. */
export type CompactionTrigger = 'auto' | 'manual' | 'background' | 'tool';

/** Who produced a compaction, for the trace and for reproducing it. */
export type CompactionProducer = {
  /** The strategy, e.g. `summarize`, `anthropic-compact`, `openai-compact`, `nanobot-consolidation`. */
  readonly strategy: string;
  /** The summariser's model id (`ChatModel.id`), when a model made it. */
  readonly model?: string;
  /** The instructions the summariser was given beyond the default prompt. */
  readonly instructions?: string;
};

/**
 * One compaction over an append-only history: which messages (or earlier records) it stands for, and
 * the message the model sees in their place. Raw messages are never deleted; what the model sees is
 * `sessionView` (ctxloom/compaction) of the messages and the records, in the order the records were made.
 *
 * Plain readonly JSON: stores keep it beside the messages (`store.appendCompaction`).
 */
export type CompactionRecord = {
  /** Unique among the session's records and messages. */
  readonly id: string;
  readonly kind: CompactionKind;
  /**
   * The ids of the messages and earlier records it stands for, in view order: one contiguous run of
   * the view it was made from (with {@link CompactionRecord.pinned}), never part of a tool transaction.
   */
  readonly replaces: readonly string[];
  /**
   * Messages of the run that were pinned: not summarised, shown once with their own ids right after
   * the summary, in their order. They are not in `replaces`.
   */
  readonly pinned?: readonly string[];
  /**
   * The message shown in place of the run; its `metadata.compactionId` is set to the record's id in the
   * view. Absent for a nanobot consolidation, whose summary lives in long-term memory.
   */
  readonly summary?: Message;
  /** 1 for a record over raw messages only; otherwise 1 + the deepest record it replaces. */
  readonly depth: number;
  /** The ids of the earlier records among `replaces`. */
  readonly parents: readonly string[];
  readonly producer: CompactionProducer;
  /** Tokens of the run it replaced, as counted when it was made. */
  readonly tokensBefore: number;
  /** Tokens of what replaced it (the summary and the pinned messages). */
  readonly tokensAfter: number;
  readonly trigger: CompactionTrigger;
  /** ISO 8601 time it was made. */
  readonly createdAt: string;
  /**
   * For a provider compaction: the provider's block or item exactly as returned (also held, as a
   * provider part, by the summary message), replayed byte for byte.
   */
  readonly providerPayload?: JsonObject;
};

/** The metadata key naming, on a summary message in a view, the record it stands for. */
export const COMPACTION_ID_KEY = 'compactionId';

/** The metadata key of a summary message holding its record's depth, so a chained compaction can read it. */
export const COMPACTION_DEPTH_KEY = 'compactionDepth';
