import { toContextError } from '../core/index.js';
import {
  type BuildInput,
  type BuildResult,
  type BuildTrace,
  type CompactionDescription,
  ContextError,
  describeCompactions,
  type Message,
  readLoadedTools,
  type SessionRecord,
  type SessionStore,
  type SessionSummary,
  type TokenCounter,
  type ToolDefinition,
  type ToolTokens,
  type TraceWarning,
  VolatileContentCheck,
} from '../index.js';
import { type RecordedRequest, type RequestRecordStore, readRecordedRequests } from '../recorder/index.js';
import type { ContextPiece } from './context-pieces.js';
import { diffHistory, type HistoryDiff } from './diff-history.js';
import { type ContextInspection, inspectContext } from './inspect-context.js';

/** Anything that builds a context: a `ContextBuilder` or a preset. */
export type InspectorBuilder = {
  readonly tokenCounter: TokenCounter;
  build(input: BuildInput): Promise<BuildResult>;
};

/** What the inspector hands the builder besides the history: summary, tools, session key. */
export type ReplayedSession = {
  /** The history as the model loop would replay it from the record. */
  readonly history: readonly Message[];
  /** Extra build input (the archived summary, runtime context, …). @default {} */
  readonly input?: Omit<BuildInput, 'history' | 'current' | 'signal'>;
};

/** Options for {@link SessionInspector}. */
export type SessionInspectorOptions = {
  /** Where the sessions are stored. */
  readonly store: SessionStore;
  /** Makes the builder for a session (the agent preset for the session's channel in the CLI). */
  readonly createBuilder: (sessionKey: string) => InspectorBuilder;
  /** Turns a stored record into the builder's history (the store's replay rules). @default all stored messages */
  readonly replay?: (record: SessionRecord) => ReplayedSession;
  /** The tool definitions sent with the request. @default [] */
  readonly tools?: readonly ToolDefinition[];
  /** Deferred tools (offered through tool search, not sent), listed with their cost. @default [] */
  readonly deferredTools?: readonly ToolDefinition[];
  /** The model's context window. */
  readonly contextWindowTokens: number;
  /** Tokens reserved for the answer. @default 0 */
  readonly maxOutputTokens?: number;
  /** The model name shown. @default 'unknown' */
  readonly model?: string;
  /** Share of the window from which one item is warned about. @default 0.1 */
  readonly largeItemShare?: number;
  /** The request recorder's store, for the timeline of what was sent. @default none (no timeline) */
  readonly requests?: RequestRecordStore;
  /**
   * Look for volatile bytes in the cached prefix (`VolatileContentCheck`): each build of a session is
   * compared with the last request recorded for it (when `requests` holds one with its messages, and
   * it is new since the last inspection), else with the last build whose prefix differed; what last
   * changed is shown until the prefix changes again. The findings are the trace's `warnings` and the
   * inspection's `volatile-content` warnings. @default true
   */
  readonly volatileContent?: boolean;
};

/** One section of the built context, as the page shows it: consecutive pieces of one category. */
export type ContextSectionView = {
  readonly id: string;
  readonly name: string;
  readonly tokens: number;
  readonly items: readonly {
    readonly label: string;
    readonly role: Message['role'];
    readonly tokens: number;
    readonly messageId: string;
    readonly text?: string;
  }[];
};

/** Everything the inspector knows about one session's next model call. */
export type SessionInspection = {
  readonly key: string;
  readonly storedMessages: number;
  readonly lastConsolidated: number;
  /** Problems the store reported while loading. */
  readonly storeWarnings: readonly string[];
  readonly inspection: ContextInspection;
  readonly sections: readonly ContextSectionView[];
  readonly messages: readonly Message[];
  readonly trace: BuildTrace;
  readonly diff: HistoryDiff;
  /** The deferred tools the model loaded in this session (its metadata: `saveLoadedTools`), in load order. */
  readonly loadedTools: readonly string[];
  /**
   * Each tool's tokens: the build's (`trace.tools`) when the inspector was given tools, else those
   * of the session's last recorded request that listed them; empty when neither knows any.
   */
  readonly toolCosts: readonly ToolTokens[];
};

/**
 * Loads a session, replays it, builds the context the model would receive for the next message and
 * analyses it: categories, sections, trace and the stored-versus-sent diff. Read-only: the store is
 * never written.
 */
export class SessionInspector {
  readonly #options: SessionInspectorOptions;
  /** Repeats what last changed, so a refresh of the page does not hide it. */
  readonly #volatile = new VolatileContentCheck({ repeat: 'all' });
  /** Per session, the id of the last recorded request the volatile-content check was given. */
  readonly #seeded = new Map<string, string>();
  /** The last sessions loaded and replayed, reused while the store's summary of them is unchanged. */
  readonly #loaded: {
    readonly key: string;
    readonly signature: string;
    readonly record: SessionRecord;
    readonly replayed: ReplayedSession;
  }[] = [];

  constructor(options: SessionInspectorOptions) {
    this.#options = options;
  }

  /** The request recorder's store, when the inspector has one. */
  get requests(): RequestRecordStore | undefined {
    return this.#options.requests;
  }

  /** The session store. */
  get store(): SessionStore {
    return this.#options.store;
  }

  /** The recorded requests of a session, oldest first, with their usage (empty without a request store). */
  async recordedRequests(
    key: string,
    options: { readonly signal?: AbortSignal } = {},
  ): Promise<readonly RecordedRequest[]> {
    const store = this.#options.requests;
    return store === undefined ? [] : readRecordedRequests(store, { sessionKey: key, ...options });
  }

  /** The stored sessions, sorted by key. */
  listSessions(options: { readonly signal?: AbortSignal } = {}): Promise<readonly SessionSummary[]> {
    return this.#options.store.list(options);
  }

  /**
   * Builds and analyses the context of `key` with `message` as the current message (none by default).
   * @throws ContextError `NOT_FOUND` when nothing is stored under `key`.
   */
  async inspectSession(
    key: string,
    options: { readonly message?: string; readonly signal?: AbortSignal } = {},
  ): Promise<SessionInspection> {
    const { record, replayed } = await this.#load(key, options.signal);
    return this.inspectHistory({ key, record, replayed, ...options });
  }

  /**
   * The compaction records of `key` with what each replaced and pinned (`describeCompactions` of the
   * whole stored session), oldest first.
   * @throws ContextError `NOT_FOUND` when nothing is stored under `key`.
   */
  async compactions(
    key: string,
    options: { readonly signal?: AbortSignal } = {},
  ): Promise<readonly CompactionDescription[]> {
    const { record } = await this.#load(key, options.signal);
    return describeCompactions(record);
  }

  /** Loads and replays a session, or reuses the last load while the store's summary of it is the same. */
  async #load(
    key: string,
    signal: AbortSignal | undefined,
  ): Promise<{ readonly record: SessionRecord; readonly replayed: ReplayedSession }> {
    const signalOption = signal === undefined ? {} : { signal };
    const summary = (await this.#options.store.list(signalOption)).find((entry) => entry.key === key);
    const signature = JSON.stringify(summary ?? null);
    const known = this.#loaded.find((entry) => entry.key === key && entry.signature === signature);
    if (known !== undefined && summary !== undefined) return known;
    const record = await this.#options.store.load(key, signalOption);
    if (!record.exists) {
      throw new ContextError({
        code: 'NOT_FOUND',
        message: `No session is stored under the key ${JSON.stringify(key)}; list the keys with 'ctxloom session list'.`,
      });
    }
    const replayed = this.#options.replay?.(record) ?? { history: record.messages };
    this.#loaded.unshift({ key, signature, record, replayed });
    this.#loaded.splice(2);
    return { record, replayed };
  }

  /** Builds and analyses a context from a history that is not in the store (e.g. a JSON file). */
  async inspectHistory(request: {
    readonly key: string;
    readonly record?: SessionRecord;
    readonly replayed: ReplayedSession;
    readonly message?: string;
    readonly signal?: AbortSignal;
  }): Promise<SessionInspection> {
    const { tools = [], deferredTools = [] } = this.#options;
    const builder = this.#options.createBuilder(request.key);
    const built = await builder.build({
      ...request.replayed.input,
      sessionKey: request.key,
      history: request.replayed.history,
      tools,
      ...(deferredTools.length === 0 ? {} : { deferredTools }),
      ...(request.message === undefined ? {} : { current: request.message }),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    const { messages } = built;
    const trace = await this.#checkVolatile(request, { ...built, tools });
    const inspection = inspectContext({
      messages,
      trace,
      tools,
      tokenCounter: builder.tokenCounter,
      contextWindowTokens: this.#options.contextWindowTokens,
      ...pick(this.#options),
    });
    const stored = request.record?.messages ?? request.replayed.history;
    const toolCosts =
      trace.tools ?? (request.record === undefined ? [] : await this.#recordedToolCosts(request));
    return {
      key: request.key,
      storedMessages: stored.length,
      lastConsolidated: request.record?.lastConsolidated ?? 0,
      storeWarnings: request.record?.warnings ?? [],
      inspection,
      sections: groupSections(inspection.pieces),
      messages,
      trace,
      diff: diffHistory({
        stored,
        replayed: request.replayed.history,
        sent: messages,
        decisions: inspection.decisions,
        lastConsolidated: request.record?.lastConsolidated ?? 0,
      }),
      loadedTools: readLoadedTools(request.record?.metadata ?? {}),
      toolCosts,
    };
  }

  /** The per-tool tokens of the session's last recorded request that has them (none when the log cannot be read). */
  async #recordedToolCosts(request: {
    readonly key: string;
    readonly signal?: AbortSignal;
  }): Promise<readonly ToolTokens[]> {
    try {
      const recorded = await this.recordedRequests(request.key, signalOf(request));
      for (let index = recorded.length - 1; index >= 0; index -= 1) {
        const costs = recorded[index]?.toolCosts;
        if (costs !== undefined) return costs;
      }
      return [];
    } catch (error) {
      const failure = toContextError(error);
      if (failure.code === 'ABORTED') throw failure;
      return [];
    }
  }

  /**
   * The trace with the volatile-content check's findings, unless it is off or the builder already
   * runs it. A build is compared with the session's last recorded request when one is new since the
   * last inspection, else with the last build whose prefix differed.
   */
  async #checkVolatile(
    request: { readonly key: string; readonly record?: SessionRecord; readonly signal?: AbortSignal },
    built: BuildResult & { readonly tools: readonly ToolDefinition[] },
  ): Promise<BuildTrace> {
    const { trace } = built;
    if (this.#options.volatileContent === false) return trace;
    if ((trace.warnings ?? []).some((warning) => warning.check === this.#volatile.id)) return trace;
    const unread = request.record === undefined ? undefined : await this.#seedVolatile(request);
    const found = [...(unread === undefined ? [] : [unread])];
    found.push(
      ...this.#volatile.check({ messages: built.messages, tools: built.tools, sessionKey: request.key }),
    );
    return found.length === 0 ? trace : { ...trace, warnings: [...(trace.warnings ?? []), ...found] };
  }

  /**
   * Gives the volatile-content check the session's last recorded request when it is new. A log that
   * cannot be read is a warning (the build is then compared with the previous one only).
   */
  async #seedVolatile(request: {
    readonly key: string;
    readonly signal?: AbortSignal;
  }): Promise<TraceWarning | undefined> {
    let recorded: readonly RecordedRequest[];
    try {
      recorded = await this.recordedRequests(request.key, signalOf(request));
    } catch (error) {
      const failure = toContextError(error);
      if (failure.code === 'ABORTED') throw failure;
      return {
        type: 'request-log-unreadable',
        check: this.#volatile.id,
        message: `The request log could not be read (${failure.code}: ${failure.message}), so the build was not compared with the last request sent.`,
      };
    }
    const last = recorded.findLast((entry) => entry.messages !== undefined);
    if (last?.messages === undefined || this.#seeded.get(request.key) === last.id) return undefined;
    this.#seeded.set(request.key, last.id);
    const tools = recordedTools(last.tools, this.#options.tools ?? []);
    this.#volatile.remember(request.key, { messages: last.messages, tools });
    return undefined;
  }
}

/**
 * A recorded request's tools as definitions, in the order sent. The log keeps only their names, so
 * each takes the inspector's definition of that name (the same tool as far as the log can tell), or
 * its bare name for a tool the inspector does not send.
 */
function recordedTools(
  names: readonly string[],
  known: readonly ToolDefinition[],
): readonly ToolDefinition[] {
  return names.map((name) => known.find((tool) => tool.name === name) ?? { name });
}

function signalOf(request: { readonly signal?: AbortSignal }): { readonly signal?: AbortSignal } {
  return request.signal === undefined ? {} : { signal: request.signal };
}

function pick(options: SessionInspectorOptions): {
  maxOutputTokens?: number;
  model?: string;
  largeItemShare?: number;
} {
  return {
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.largeItemShare === undefined ? {} : { largeItemShare: options.largeItemShare }),
  };
}

function groupSections(pieces: readonly ContextPiece[]): readonly ContextSectionView[] {
  const sections: {
    id: string;
    name: string;
    tokens: number;
    items: ContextSectionView['items'][number][];
  }[] = [];
  for (const piece of pieces) {
    let last = sections.at(-1);
    if (last === undefined || last.id !== piece.category.id) {
      last = { id: piece.category.id, name: piece.category.name, tokens: 0, items: [] };
      sections.push(last);
    }
    last.tokens += piece.tokens;
    last.items.push({
      label: piece.label,
      role: piece.role,
      tokens: piece.tokens,
      messageId: piece.messageId,
      ...(piece.text === undefined ? {} : { text: piece.text }),
    });
  }
  return sections;
}
