import type { Decision } from '../core/decision.js';
import type { Message } from '../core/message.js';
import type { SectionTokens, ToolTokens, TraceWarning } from '../pipeline/build-trace.js';
import type { ObservedRequestSource } from '../pipeline/request-observer.js';

/** The version of the record format; a breaking change to the lines adds a new one. */
export const REQUEST_RECORD_VERSION = 1;

/** One message of a recorded request, by content hash (so two requests can be compared without their text). */
export type RecordedMessageHash = {
  readonly id: string;
  readonly role: Message['role'];
  /** The provider that made it (`metadata.section`), when tagged. */
  readonly section?: string;
  /** The first 32 hex digits of the SHA-256 of the message's role, name, content, tool calls, tool-call id and reasoning. */
  readonly hash: string;
};

/** Counts of what the build changed, for dashboards. */
export type RecordedCounts = {
  readonly decisions: number;
  /** Messages removed (`message-drop`). */
  readonly dropped: number;
  /** Tool results offloaded to a file. */
  readonly offloaded: number;
  /** Tool results replaced by the compaction notice. */
  readonly compacted: number;
  /** Messages shortened. */
  readonly truncated: number;
};

/** One stage of the build, without its decisions (those are listed once, in `decisions`). */
export type RecordedStage = {
  readonly id: string;
  readonly kind: 'provider' | 'filter';
  readonly messagesIn: number;
  readonly messagesOut: number;
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly durationMs: number;
};

/** A line of the log: one request as it was built. */
export type RequestRecord = {
  readonly type: 'request';
  readonly version: typeof REQUEST_RECORD_VERSION;
  /** The record's id; usage lines name it in `requestId`. */
  readonly id: string;
  /** When it was recorded (ISO 8601). */
  readonly at: string;
  readonly sessionKey: string;
  readonly source: ObservedRequestSource;
  readonly runId?: string;
  readonly stepNumber?: number;
  readonly model?: string;
  /** Tokens of the messages plus the tool definitions, by the counter named in `tokenCounter`. */
  readonly totalTokens: number;
  readonly toolTokens: number;
  readonly tokenCounter: string;
  readonly tokenCounterKind?: 'exact' | 'estimate';
  readonly durationMs: number;
  readonly sections: readonly SectionTokens[];
  readonly stages: readonly RecordedStage[];
  readonly decisions: readonly Decision[];
  readonly counts: RecordedCounts;
  /** The trace's warnings (the builder's `checks`, e.g. volatile bytes in the cached prefix), when there were any. */
  readonly warnings?: readonly TraceWarning[];
  /** The names of the tools sent. */
  readonly tools: readonly string[];
  /** Each tool's tokens, deferred ones marked (the trace's `tools`), when the build had tools. */
  readonly toolCosts?: readonly ToolTokens[];
  /** One entry per message built, in order. */
  readonly messageHashes: readonly RecordedMessageHash[];
  /** The messages built, in ctxloom form (left out when the recorder's `includeMessages` is false). */
  readonly messages?: readonly Message[];
  /** The exact messages sent in the integration's shape (AI SDK), when it differs from `messages` and `includeMessages` is on. */
  readonly sent?: readonly unknown[];
};

/** A line of the log: what the provider reported for an earlier request. */
export type UsageRecord = {
  readonly type: 'usage';
  readonly version: typeof REQUEST_RECORD_VERSION;
  readonly requestId: string;
  readonly at: string;
  readonly sessionKey: string;
  readonly inputTokens?: number;
  readonly cachedInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
  readonly outputTokens?: number;
  readonly latencyMs?: number;
  readonly model?: string;
};

/** Any line of a request log. */
export type RecorderRecord = RequestRecord | UsageRecord;

/** The provider's usage of a request, as merged by `readRecordedRequests`. */
export type RecordedUsage = Omit<UsageRecord, 'type' | 'version' | 'requestId' | 'sessionKey'>;

/** A request with the usage reported for it (the last report wins). */
export type RecordedRequest = RequestRecord & { readonly usage?: RecordedUsage };
