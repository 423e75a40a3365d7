import { applyCompactions, viewId } from '../core/apply-compactions.js';
import { checkOptions } from '../core/check-options.js';
import { COMPACTION_ID_KEY, type CompactionRecord } from '../core/compaction-record.js';
import { type Decision, decision } from '../core/decision.js';
import { toContextError } from '../core/errors.js';
import { generateMessageId } from '../core/ids.js';
import type { Message } from '../core/message.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { appendCompaction } from './append-compaction.js';
import {
  AUTO_COMPACTION_NESTED_OPTIONS,
  type AutoCompactionOptions,
  checkAutoCompactionValues,
  DEFAULT_AUTO_COMPACTION,
  type ResolvedCompactionSizes,
  resolveCompactionSizes,
} from './auto-compaction-options.js';
import { type CompactHistoryOptions, type CompactHistoryResult, compactHistory } from './compact-history.js';
import { CompactionBreaker } from './compaction-breaker.js';
import { acquireCompactionLease, releaseCompactionLease } from './compaction-lease.js';
import { DEFAULT_PINNED_CONTEXT, type PinnedContextOptions } from './pinned-context.js';
import { type CompactionPlan, planCompaction } from './plan-compaction.js';

/** One request's list for {@link AutoCompactor.compact}. */
export type AutoCompactRequest = {
  /** The whole list the model would see (system messages, history, current message). */
  readonly messages: readonly Message[];
  /** The input budget in tokens (0: compaction is off). */
  readonly budgetTokens: number;
  /** Tokens counted besides the messages (tool definitions). @default 0 */
  readonly fixedTokens?: number;
  /** Counts tokens. @default the compactor's */
  readonly tokenCounter?: TokenCounter;
  /** The session. @default the options' `sessionKey`, else 'default' */
  readonly sessionKey?: string | undefined;
  /** The stage id named in the decisions. @default 'auto-compaction' */
  readonly stage?: string;
  readonly signal?: AbortSignal | undefined;
};

/** What {@link AutoCompactor.compact} returns. */
export type AutoCompactResult = {
  /** The list with every kept record applied (the same array when nothing changed). */
  readonly messages: readonly Message[];
  /** What happened and why (`history-compaction` decisions). */
  readonly decisions: readonly Decision[];
  /** The record made in this request (awaited, or a background one swapped in). */
  readonly record?: CompactionRecord;
};

/** A record this compactor kept, with the messages of its run as they were (to see a changed span). */
type KeptRecord = { readonly record: CompactionRecord; readonly run: readonly Message[] };

type BackgroundJob = {
  readonly promise: Promise<void>;
  result?: CompactHistoryResult | { readonly crashed: unknown };
  /** The view messages of the run, by view id, when the job started. */
  readonly snapshot: ReadonlyMap<string, Message>;
  readonly leased: boolean;
};

type SessionState = {
  readonly key: string;
  readonly records: KeptRecord[];
  readonly breaker: CompactionBreaker;
  /** Tokens of the list after the last attempt (kept or not): the next needs growth past it. */
  lastAttempt: number | undefined;
  job: BackgroundJob | undefined;
  /** Changes whenever `records` change (the memo is only valid for the same records). */
  version: number;
  /** The last list given and the view returned for it, to extend rather than replay a list that grew. */
  memo:
    | { readonly input: readonly Message[]; readonly view: readonly Message[]; readonly version: number }
    | undefined;
};

/** A compaction worked out and allowed by `onBeforeCompact`. */
type Prepared = {
  readonly counter: TokenCounter;
  readonly keepRecent: number;
  readonly pinned: PinnedContextOptions;
  readonly replaces: readonly string[];
  readonly minGain: number;
  readonly instructions: string | undefined;
};

type Step = {
  readonly view: readonly Message[];
  readonly decisions: Decision[];
  /** The stage named in the decisions. */
  readonly stage: string;
  record?: CompactionRecord;
};

/** One request's compaction work, as its steps pass it on. */
type Run = {
  readonly step: Step;
  readonly sizes: ResolvedCompactionSizes;
  readonly stage: string;
  readonly counter: TokenCounter;
  readonly total: number;
};

/** The session of a request that names none. */
const DEFAULT_SESSION = 'default';

/**
 * Automatic compaction over the requests of one or more sessions (see {@link AutoCompactionOptions});
 * the governor, the presets and the AI SDK integrations each keep one. Per session it keeps the
 * records it made (applied again to later lists, when the run they replaced is still the same
 * messages), a breaker, the running background job and the size after the last attempt: a new
 * attempt needs the list to have grown by `trigger − target` (and `minGain`) since, so there is no
 * compaction loop whatever the summariser answers.
 */
export class AutoCompactor {
  readonly #options: AutoCompactionOptions;
  readonly #sessions = new Map<string, SessionState>();
  readonly #owner: string;
  readonly #counter: TokenCounter;

  constructor(options: AutoCompactionOptions, where = 'compaction options') {
    checkOptions(options, { where, ...AUTO_COMPACTION_NESTED_OPTIONS });
    checkAutoCompactionValues(options, where);
    this.#options = options;
    this.#owner = `compactor-${(options.generateId ?? generateMessageId)()}`;
    this.#counter = new SimpleTokenCounter();
  }

  /** The options, as given. */
  get options(): AutoCompactionOptions {
    return this.#options;
  }

  /** The records kept for a session (the caller's to store when no `store` was given). */
  records(sessionKey = DEFAULT_SESSION): readonly CompactionRecord[] {
    return this.#sessions.get(sessionKey)?.records.map((kept) => kept.record) ?? [];
  }

  /** Waits for every running background job to finish (not to be swapped: that needs a request). */
  async settled(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((state) => state.job?.promise));
  }

  /**
   * Applies the session's kept records to `messages`, swaps in a finished background job, and
   * compacts when the list reaches the trigger (or starts a background job at its watermark).
   * Never throws for a failed summariser, store conflict or veto: the decisions say what happened.
   * @throws ContextError `ABORTED` when the signal aborts.
   */
  async compact(request: AutoCompactRequest): Promise<AutoCompactResult> {
    const state = this.#state(request.sessionKey ?? this.#options.sessionKey ?? DEFAULT_SESSION);
    const stage = request.stage ?? 'auto-compaction';
    const counter = request.tokenCounter ?? this.#counter;
    const step: Step = { view: request.messages, decisions: [], stage };
    if (!(request.budgetTokens > 0)) return { messages: request.messages, decisions: [] };
    let current = this.#replay(state, step);
    const sizes = resolveCompactionSizes(this.#options, request.budgetTokens);
    const tokensOf = (list: readonly Message[]): number =>
      counter.countMessages(list) + (request.fixedTokens ?? 0);
    let total = tokensOf(current.view);
    if (state.lastAttempt !== undefined && total < state.lastAttempt) state.lastAttempt = total;
    const swapped = await this.#finishJob(state, {
      step: current,
      tokensOf,
      total,
      triggerTokens: sizes.triggerTokens,
      signal: request.signal,
    });
    current = swapped.step;
    total = swapped.total;
    current = await this.#act(state, {
      step: current,
      sizes,
      counter,
      tokensOf,
      total,
      signal: request.signal,
    });
    const messages = current.view;
    state.memo = { input: request.messages, view: messages, version: state.version };
    return {
      messages,
      decisions: current.decisions,
      ...(current.record === undefined ? {} : { record: current.record }),
    };
  }

  /** Compacts at the trigger (when the list grew enough since the last attempt) or starts a job at the watermark. */
  async #act(
    state: SessionState,
    run: Omit<Run, 'stage'> & {
      readonly tokensOf: (list: readonly Message[]) => number;
      readonly signal: AbortSignal | undefined;
    },
  ): Promise<Step> {
    const { step, sizes, counter, tokensOf, total } = run;
    const stage = step.stage;
    const needed = Math.max(sizes.triggerTokens - sizes.targetTokens, sizes.minGainTokens, 1);
    const grown = state.lastAttempt === undefined || total - state.lastAttempt >= needed;
    if (total >= sizes.triggerTokens && step.record === undefined) {
      if (!grown)
        step.decisions.push(
          note(stage, {
            outcome: 'waiting-for-growth',
            reason: `the list takes ${total} tokens, over the trigger of ${sizes.triggerTokens}, but only ${total - (state.lastAttempt ?? 0)} tokens came since the last attempt (${needed} needed); the budget steps trim instead.`,
          }),
        );
      else if (state.job === undefined)
        return await this.#compactNow(state, {
          step,
          sizes,
          stage,
          counter,
          tokensOf,
          total,
          signal: run.signal,
        });
    } else if (
      sizes.startAtTokens !== undefined &&
      total >= sizes.startAtTokens &&
      state.job === undefined &&
      step.record === undefined &&
      grown
    )
      await this.#startJob(state, { step, sizes, stage, counter, total });
    return step;
  }

  /** Swaps in a finished background job, or awaits a running one when the list is at the trigger. */
  async #finishJob(
    state: SessionState,
    run: {
      readonly step: Step;
      readonly tokensOf: (list: readonly Message[]) => number;
      readonly total: number;
      readonly triggerTokens: number;
      readonly signal: AbortSignal | undefined;
    },
  ): Promise<{ readonly step: Step; readonly total: number }> {
    const { step, total, triggerTokens } = run;
    const job = state.job;
    if (job === undefined || (job.result === undefined && total < triggerTokens)) return { step, total };
    if (job.result === undefined)
      step.decisions.push(
        note(step.stage, {
          outcome: 'awaited',
          reason: `the list takes ${total} tokens, at the trigger of ${triggerTokens}: waiting for the background compaction.`,
        }),
      );
    await job.promise;
    const swapped = await this.#swap(state, {
      step,
      job,
      stage: step.stage,
      tokensOf: run.tokensOf,
      signal: run.signal,
    });
    return { step: swapped, total: run.tokensOf(swapped.view) };
  }

  #state(key: string): SessionState {
    let state = this.#sessions.get(key);
    if (state === undefined) {
      state = {
        key,
        records: [],
        breaker: this.#options.breaker ?? new CompactionBreaker(),
        lastAttempt: undefined,
        job: undefined,
        version: 0,
        memo: undefined,
      };
      this.#sessions.set(key, state);
    }
    return state;
  }

  /** The list with the kept records applied; a record whose run changed is dropped and reported. */
  #replay(state: SessionState, step: Step): Step {
    const stage = step.stage;
    if (state.records.length === 0) return step;
    const memo = state.memo;
    if (memo !== undefined && memo.version === state.version && extends_(step.view, memo.input))
      return { ...step, view: [...memo.view, ...step.view.slice(memo.input.length)] };
    let view = step.view;
    const shown = shownRecords(view, state.records);
    const kept: KeptRecord[] = [];
    for (const entry of state.records) {
      const applied = shown.has(entry.record.id) ? { view } : reapply(view, entry);
      if ('why' in applied) {
        step.decisions.push(
          note(stage, {
            outcome: 'record-dropped',
            reason: `compaction record ${entry.record.id} no longer fits the history (${applied.why}); its messages are shown raw.`,
            details: { recordId: entry.record.id },
          }),
        );
        continue;
      }
      view = applied.view;
      kept.push(entry);
    }
    if (kept.length !== state.records.length) state.version += 1;
    state.records.splice(0, state.records.length, ...kept);
    return { ...step, view };
  }

  /** Compacts now, in the request. */
  async #compactNow(
    state: SessionState,
    run: Run & {
      readonly tokensOf: (list: readonly Message[]) => number;
      readonly signal: AbortSignal | undefined;
    },
  ): Promise<Step> {
    const { step, stage, total } = run;
    state.lastAttempt = total;
    const prepared = await this.#prepare(state, { ...run, trigger: 'auto' });
    if (prepared === undefined) return step;
    const leased = await this.#lease(state, step);
    if (leased === undefined) return step;
    try {
      const result = await compactHistory(step.view, {
        ...this.#historyOptions(prepared, state),
        trigger: 'auto',
        ...(run.signal === undefined ? {} : { signal: run.signal }),
      });
      if (result.record === undefined) {
        step.decisions.push(note(stage, { outcome: result.reason, reason: result.detail }));
        return step;
      }
      return await this.#keep(state, { step, result, stage, tokensOf: run.tokensOf, signal: run.signal });
    } finally {
      if (leased) await this.#release(state);
    }
  }

  /** Starts a background job at the watermark. */
  async #startJob(state: SessionState, run: Run): Promise<void> {
    const { step, stage, total } = run;
    state.lastAttempt = total;
    const prepared = await this.#prepare(state, { ...run, trigger: 'background' });
    if (prepared === undefined) return;
    const leased = await this.#lease(state, step);
    if (leased === undefined) return;
    const snapshot = new Map(step.view.map((message) => [viewId(message), message]));
    const view = step.view;
    const job: BackgroundJob = {
      snapshot,
      leased,
      promise: compactHistory(view, {
        ...this.#historyOptions(prepared, state),
        trigger: 'background',
      }).then(
        (result) => {
          job.result = result;
        },
        (error: unknown) => {
          job.result = { crashed: error };
        },
      ),
    };
    state.job = job;
    step.decisions.push(
      note(stage, {
        outcome: 'background-started',
        reason: `the list takes ${total} tokens, at the background watermark of ${run.sizes.startAtTokens}: summarising ${prepared.replaces.length} items while turns go on with the full history.`,
        details: { replaces: prepared.replaces },
      }),
    );
  }

  /** Swaps a finished background job in when its span is unchanged; else discards it. */
  async #swap(
    state: SessionState,
    run: {
      readonly step: Step;
      readonly job: BackgroundJob;
      readonly stage: string;
      readonly tokensOf: (list: readonly Message[]) => number;
      readonly signal: AbortSignal | undefined;
    },
  ): Promise<Step> {
    const { step, job, stage } = run;
    state.job = undefined;
    try {
      const result = job.result;
      if (result === undefined || 'crashed' in result) {
        step.decisions.push(
          note(stage, {
            outcome: 'summarizer-failed',
            reason: `the background compaction failed, nothing changed: ${toContextError(result?.crashed).message}`,
          }),
        );
        return step;
      }
      if (result.record === undefined) {
        step.decisions.push(note(stage, { outcome: result.reason, reason: `background: ${result.detail}` }));
        return step;
      }
      const record = result.record;
      const ids = [...record.replaces, ...(record.pinned ?? [])];
      const present = new Map(step.view.map((message) => [viewId(message), message]));
      const unchanged = ids.every((id) => {
        const now = present.get(id);
        const then = job.snapshot.get(id);
        return now !== undefined && then !== undefined && sameMessage(now, then);
      });
      const applied = unchanged ? applyCompactions(step.view, [record]) : undefined;
      if (applied === undefined || applied.violations.length > 0) {
        step.decisions.push(
          note(stage, {
            outcome: 'background-discarded',
            reason: `the background summary of ${record.replaces.length} items was discarded: the span it summarised changed meanwhile; nothing changed.`,
            details: { recordId: record.id },
          }),
        );
        return step;
      }
      return await this.#keep(state, {
        step,
        result: { ...result, messages: applied.view },
        stage,
        tokensOf: run.tokensOf,
        signal: run.signal,
      });
    } finally {
      if (job.leased) await this.#release(state);
    }
  }

  /**
   * The run to summarise, with `keepRecent` set so that what stays lands at the target; reports a
   * target or trigger under the floor (what cannot be summarised). `undefined` when there is no run.
   */
  #plan(
    run: Run & { readonly trigger: 'auto' | 'background' },
  ):
    | { readonly plan: CompactionPlan; readonly keepRecent: number; readonly pinned: PinnedContextOptions }
    | undefined {
    const { step, sizes, stage, counter, total } = run;
    const cap = this.#options.maxOutputTokens ?? DEFAULT_AUTO_COMPACTION.maxOutputTokens;
    const system = counter.countMessages(leadingSystem(step.view));
    const fixed = total - counter.countMessages(step.view) + system;
    // The pins get what the trigger leaves beside the fixed part, the summary's cap and the newest
    // history: the compacted request stays under the trigger (so under the budget, where the trimming
    // that follows would cut the oldest pins, marked rules included), and only past that do the pins
    // give way in the cap's order (tool results, then the user's middle messages, then marked ones).
    // Not the target: a target under the floor (a small budget) would leave them no room at all, and
    // the summariser would get the user's rules to drop.
    const room = Math.max(0, sizes.triggerTokens - fixed - cap - sizes.keepRecent);
    const pinned: PinnedContextOptions = {
      ...this.#options.pinned,
      maxTokens: Math.min(this.#options.pinned?.maxTokens ?? DEFAULT_PINNED_CONTEXT.maxTokens, room),
    };
    let keepRecent = Math.max(sizes.keepRecent, sizes.targetTokens - fixed - cap);
    let plan = planCompaction(step.view, { keepRecent, pinned, tokenCounter: counter });
    if (plan !== undefined && plan.pinnedTokens > 0) {
      keepRecent = Math.max(sizes.keepRecent, keepRecent - plan.pinnedTokens);
      plan = planCompaction(step.view, { keepRecent, pinned, tokenCounter: counter });
    }
    if (plan === undefined) {
      step.decisions.push(
        note(stage, {
          outcome: 'nothing-to-compact',
          reason: `the list takes ${total} tokens, over the ${run.trigger === 'auto' ? 'trigger' : 'background watermark'}, but everything older than the newest ${keepRecent} tokens is pinned or system; the budget steps trim instead.`,
        }),
      );
      return undefined;
    }
    const projected = total - counter.countMessages(plan.run) + cap + plan.pinnedTokens;
    if (projected > sizes.targetTokens)
      step.decisions.push(
        note(stage, {
          outcome: 'target-below-floor',
          reason: `the target of ${sizes.targetTokens} tokens is under the floor: the system part and tools (${fixed}), the pins (${plan.pinnedTokens}), the newest ${keepRecent} tokens kept raw and the summary's cap (${cap}) leave about ${projected}; compacting to the floor instead.`,
          details: { targetTokens: sizes.targetTokens, floorTokens: projected },
        }),
      );
    if (sizes.triggerTokens <= projected)
      step.decisions.push(
        note(stage, {
          outcome: 'trigger-below-floor',
          reason: `the trigger of ${sizes.triggerTokens} tokens is not above the floor of about ${projected}: each compaction waits until the list grew by ${sizes.triggerTokens - sizes.targetTokens} tokens more.`,
          details: { triggerTokens: sizes.triggerTokens, floorTokens: projected },
        }),
      );
    return { plan, keepRecent, pinned };
  }

  /** Works out the run and asks `onBeforeCompact`; `undefined` when nothing is to be done. */
  async #prepare(
    state: SessionState,
    run: Run & { readonly trigger: 'auto' | 'background' },
  ): Promise<Prepared | undefined> {
    const { step, sizes, stage, counter, total } = run;
    if (state.breaker.isOpen(this.#now().getTime())) {
      step.decisions.push(
        note(stage, {
          outcome: 'breaker-open',
          reason: `compaction failed ${state.breaker.failures} times in a row; the breaker is open, nothing is tried and the budget steps trim instead.`,
        }),
      );
      return undefined;
    }
    const planned = this.#plan(run);
    if (planned === undefined) return undefined;
    const { plan, keepRecent, pinned } = planned;
    const replaces = plan.summarised.map(viewId);
    const answer = await this.#options.onBeforeCompact?.({
      sessionKey: state.key,
      trigger: run.trigger,
      tokens: total,
      budgetTokens: sizes.budgetTokens,
      triggerTokens: sizes.triggerTokens,
      targetTokens: sizes.targetTokens,
      replaces,
    });
    if (answer === false) {
      step.decisions.push(
        note(stage, {
          outcome: 'vetoed',
          reason: `onBeforeCompact vetoed the compaction of ${replaces.length} items at ${total} tokens; nothing changed.`,
        }),
      );
      return undefined;
    }
    const extra = typeof answer === 'object' && answer !== null ? answer.instructions : undefined;
    const instructions = [this.#options.instructions, extra]
      .filter((text) => text !== undefined && text !== '')
      .join('\n');
    return {
      counter,
      keepRecent,
      pinned,
      replaces,
      minGain: Math.max(1, sizes.minGainTokens),
      instructions: instructions === '' ? undefined : instructions,
    };
  }

  /** The options of `compactHistory` for a prepared compaction. */
  #historyOptions(prepared: Prepared, state: SessionState): CompactHistoryOptions {
    const counter = prepared.counter;
    const options = this.#options;
    return {
      summarizer: options.summarizer,
      keepRecent: prepared.keepRecent,
      tokenCounter: counter,
      breaker: state.breaker,
      minGain: prepared.minGain,
      ...(prepared.instructions === undefined ? {} : { instructions: prepared.instructions }),
      pinned: prepared.pinned,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
      generateId: () => `cmp-${(options.generateId ?? generateMessageId)()}`,
      now: () => this.#now(),
    };
  }

  /** Appends the record to the store (true without one); a failure is reported and gives false. */
  async #stored(
    state: SessionState,
    run: { readonly step: Step; readonly record: CompactionRecord; readonly signal: AbortSignal | undefined },
  ): Promise<boolean> {
    const { step, record } = run;
    const store = this.#options.store;
    if (store === undefined) return true;
    try {
      await appendCompaction(store, {
        sessionKey: state.key,
        record,
        ...(run.signal === undefined ? {} : { signal: run.signal }),
      });
      return true;
    } catch (error) {
      const failure = toContextError(error);
      if (failure.code === 'ABORTED' && run.signal?.aborted === true) throw failure;
      step.decisions.push(
        note(step.stage, {
          outcome: failure.code === 'STORE_CONFLICT' ? 'store-conflict' : 'store-failed',
          reason: `the compaction record ${record.id} was not stored, so it is not used: ${failure.message}`,
          details: { recordId: record.id },
        }),
      );
      return false;
    }
  }

  /** Stores (when a store is given), keeps and reports a record. */
  async #keep(
    state: SessionState,
    run: {
      readonly step: Step;
      readonly result: CompactHistoryResult & { readonly record: CompactionRecord };
      readonly stage: string;
      readonly tokensOf: (list: readonly Message[]) => number;
      readonly signal: AbortSignal | undefined;
    },
  ): Promise<Step> {
    const { step, result, stage } = run;
    const record = result.record;
    const before = run.tokensOf(step.view);
    const after = run.tokensOf(result.messages);
    const store = this.#options.store;
    if (!(await this.#stored(state, { step, record, signal: run.signal }))) return step;
    const ids = new Set([...record.replaces, ...(record.pinned ?? [])]);
    state.records.push({ record, run: step.view.filter((message) => ids.has(viewId(message))) });
    state.version += 1;
    state.lastAttempt = after;
    await this.#options.onCompacted?.(record, { sessionKey: state.key, stored: store !== undefined });
    const first = record.replaces[0] ?? record.id;
    const last = record.replaces.at(-1) ?? record.id;
    return {
      view: result.messages,
      stage,
      record,
      decisions: [
        ...step.decisions,
        decision('history-compaction', {
          stage,
          reason: `${record.trigger === 'background' ? 'A background' : 'A'} summary (record ${record.id}) replaced ${record.replaces.length} items${record.pinned === undefined ? '' : `, ${record.pinned.length} pinned kept verbatim`}: the list went from ${before} to ${after} tokens${store === undefined ? " (no store: the record is the caller's to persist)" : ', record stored'}.`,
          messageIds: [],
          messageRange: { firstId: first, lastId: last, count: record.replaces.length },
          tokensBefore: before,
          tokensAfter: after,
          details: {
            outcome: 'compacted',
            recordId: record.id,
            trigger: record.trigger,
            stored: store !== undefined,
          },
        }),
      ],
    };
  }

  /** Takes the session's lease in the store; `undefined` (reported) when another holder has it. */
  async #lease(state: SessionState, step: Step): Promise<boolean | undefined> {
    const stage = step.stage;
    const store = this.#options.store;
    if (store === undefined) return false;
    const holder = await acquireCompactionLease(store, {
      sessionKey: state.key,
      owner: this.#owner,
      now: this.#now(),
      leaseMs:
        this.#options.leaseMs ??
        (this.#options.timeoutMs ?? DEFAULT_AUTO_COMPACTION.timeoutMs) +
          DEFAULT_AUTO_COMPACTION.leaseMarginMs,
    });
    if (holder === undefined) return true;
    step.decisions.push(
      note(stage, {
        outcome: 'lease-held',
        reason: `another compactor (${holder.owner}) holds the session's compaction lease until ${holder.expiresAt}; not summarising the same span twice.`,
      }),
    );
    return undefined;
  }

  async #release(state: SessionState): Promise<void> {
    const store = this.#options.store;
    if (store !== undefined)
      await releaseCompactionLease(store, { sessionKey: state.key, owner: this.#owner });
  }

  #now(): Date {
    return this.#options.now?.() ?? new Date();
  }
}

/** A `history-compaction` decision that did not make a record: what happened and why. */
function note(
  stage: string,
  entry: { readonly outcome: string; readonly reason: string; readonly details?: Record<string, unknown> },
): Decision {
  return decision('history-compaction', {
    stage,
    reason: `Automatic compaction: ${entry.reason}`,
    messageIds: [],
    details: { outcome: entry.outcome, ...entry.details },
  });
}

/** The records already in the list given (a replayed view), and the earlier records they stand for. */
function shownRecords(view: readonly Message[], records: readonly KeptRecord[]): ReadonlySet<string> {
  const shown = new Set(view.flatMap((message) => compactionIdOf(message) ?? []));
  for (const entry of [...records].reverse())
    if (shown.has(entry.record.id)) for (const id of entry.record.replaces) shown.add(id);
  return shown;
}

/** The view with a kept record applied again, or why it no longer fits (its run changed or is gone). */
function reapply(
  view: readonly Message[],
  entry: KeptRecord,
): { readonly view: readonly Message[] } | { readonly why: string } {
  const changed = changedIn(view, entry);
  if (changed !== undefined) return { why: changed };
  const applied = applyCompactions(view, [entry.record]);
  const violation = applied.violations[0];
  return violation === undefined ? { view: applied.view } : { why: violation.message };
}

/** Whether `list` is `before` (the same message objects) with messages appended. */
function extends_(list: readonly Message[], before: readonly Message[]): boolean {
  if (list.length < before.length) return false;
  for (let index = 0; index < before.length; index += 1) if (list[index] !== before[index]) return false;
  return true;
}

function compactionIdOf(message: Message): string | undefined {
  const id = message.metadata?.[COMPACTION_ID_KEY];
  return typeof id === 'string' ? id : undefined;
}

function leadingSystem(messages: readonly Message[]): readonly Message[] {
  const end = messages.findIndex((message) => message.role !== 'system');
  return end < 0 ? messages : messages.slice(0, end);
}

/** Why the view no longer holds the record's run as it was (a message gone or changed), if it does not. */
function changedIn(view: readonly Message[], entry: KeptRecord): string | undefined {
  const present = new Map(view.map((message) => [viewId(message), message]));
  for (const message of entry.run) {
    const now = present.get(viewId(message));
    if (now === undefined) return `${viewId(message)} is gone`;
    if (!sameMessage(now, message)) return `${viewId(message)} changed`;
  }
  return undefined;
}

const fingerprints = new WeakMap<Message, string>();

/**
 * Whether two view items are the same for compaction: a summary by its record (records never
 * change), a message by what the model reads of it (role, content, tool calls and results, name,
 * reasoning); metadata such as the section a builder tags is not part of it.
 */
function sameMessage(left: Message, right: Message): boolean {
  if (left === right) return true;
  return fingerprintOf(left) === fingerprintOf(right);
}

function fingerprintOf(message: Message): string {
  let text = fingerprints.get(message);
  if (text === undefined) {
    const record = compactionIdOf(message);
    text =
      record !== undefined
        ? `summary:${record}`
        : JSON.stringify([
            message.id,
            message.role,
            message.content,
            message.toolCalls ?? null,
            message.toolCallId ?? null,
            message.name ?? null,
            message.reasoning ?? null,
          ]);
    fingerprints.set(message, text);
  }
  return text;
}
