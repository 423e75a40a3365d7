import type { Decision } from '../core/decision.js';
import { throwIfAborted, toContextError } from '../core/errors.js';
import { generateMessageId, type IdGenerator } from '../core/ids.js';
import { extendsMarkedList, type ListMark, markList } from '../core/list-mark.js';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { withTokenCache } from '../tokens/cached-token-counter.js';
import { EstimatingTokenCounter } from '../tokens/estimating-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { BuildCheck, BuildCheckRequest } from './build-check.js';
import type { BuildInput } from './build-input.js';
import { BuildInputValidator } from './build-input-validator.js';
import { BuildMemo } from './build-memo.js';
import type { BuildResult, BuildTrace, StageTrace, ToolTokens, TraceWarning } from './build-trace.js';
import type { BuildContext, ContextFilter, MessageProvider, ProviderResult } from './contracts.js';
import { findContextLoss, isContextLossWarning } from './find-context-loss.js';
import type { RequestObserver } from './request-observer.js';
import { SectionTags } from './section-tags.js';
import { SentLedger } from './sent-ledger.js';
import { StageTokenFigures } from './stage-token-figures.js';

/** Options for {@link ContextPipeline} (and `ContextBuilder`). */
export type ContextPipelineOptions = {
  /** Providers, run in order by `build`. @default [] */
  readonly providers?: readonly MessageProvider[];
  /** Filters, run in order by `build` and `transform`. @default [] */
  readonly filters?: readonly ContextFilter[];
  /** Counts tokens for the trace and the filters; wrapped in a content-keyed cache. @default EstimatingTokenCounter */
  readonly tokenCounter?: TokenCounter;
  /** Clock for stage timings, in milliseconds. @default performance.now */
  readonly now?: () => number;
  /** Id generator for messages the stages create. @default random 32-hex ids */
  readonly generateId?: IdGenerator;
  /** Check tool-call integrity after every filter and record violations in the trace. @default false */
  readonly debug?: boolean;
  /** Told about every request built (`build` and `transform`), e.g. a request recorder. @default none */
  readonly observer?: RequestObserver;
  /** Run on every request built; what they report is the trace's `warnings`. @default [] */
  readonly checks?: readonly BuildCheck[];
  /**
   * Reuse the last build's result when the providers give the same messages again and the input is
   * the same (see `BuildMemo`): only for filters that depend on nothing but their message list and
   * the build input (the agent preset's do). The result is what running the filters again would give;
   * its trace shows this build's provider stages (timings, decisions) and the filter stages as they
   * were, with a duration of 0. A build in which a provider failed is never reused.
   * @default false
   */
  readonly reuseUnchangedBuilds?: boolean;
};

/**
 * The two-stage Provider → Filter pipeline: `build` runs the providers in order, tags every message
 * with its provider's id (`metadata.section`), then runs the filters in order; `transform` runs only
 * the filters over an existing list. Both return the messages and a trace of every stage. The input
 * is never mutated.
 */
export class ContextPipeline {
  readonly providers: readonly MessageProvider[];
  readonly filters: readonly ContextFilter[];
  readonly tokenCounter: TokenCounter;
  readonly #now: () => number;
  readonly #generateId: IdGenerator;
  readonly #debug: boolean;
  readonly #observer: RequestObserver | undefined;
  readonly #checks: readonly BuildCheck[];
  /** Tagged copies of provider messages, so the same input message gets the same object every build. */
  readonly #tags = new SectionTags();
  /** Each provider's last block and its tagged copy: a block that only grew is tagged for its new messages. */
  readonly #taggedBlocks: (
    | { readonly mark: ListMark<Message>; readonly tagged: readonly Message[] }
    | undefined
  )[] = [];
  readonly #validator = new BuildInputValidator();
  /** The exact tokens of the list sent, per message and section, kept up to date across builds. */
  readonly #sent: SentLedger;
  readonly #memo: BuildMemo | undefined;
  readonly #wholeHistory: boolean;

  constructor(options: ContextPipelineOptions = {}) {
    this.providers = options.providers ?? [];
    this.filters = options.filters ?? [];
    this.tokenCounter = withTokenCache(options.tokenCounter ?? new EstimatingTokenCounter());
    this.#sent = new SentLedger(this.tokenCounter);
    this.#now = options.now ?? (() => performance.now());
    this.#generateId = options.generateId ?? generateMessageId;
    this.#debug = options.debug ?? false;
    this.#observer = options.observer;
    this.#checks = options.checks ?? [];
    this.#memo = options.reuseUnchangedBuilds === true ? new BuildMemo() : undefined;
    this.#wholeHistory = this.filters.some((filter) => filter.readsWholeHistory === true);
  }

  /**
   * Runs the providers, then the filters.
   * @throws ContextError `INVALID_INPUT` naming the bad field (`history[3].role`) and what was
   * received; the failing stage's code when a stage with policy `throw` fails; `ABORTED` when
   * `input.signal` is aborted.
   */
  async build(input: BuildInput = {}): Promise<BuildResult> {
    this.#validator.checkInput(input, 'build');
    const generated = new Set<string>();
    const growth = this.#validator.growthOf(input.history);
    const context = {
      ...this.#context(input, this.#memo === undefined ? undefined : generated),
      ...(growth === undefined ? {} : { historyGrowth: growth }),
    };
    const started = this.#now();
    const drafts: StageDraft[] = [];
    const blocks: (readonly Message[])[] = [];
    let count = 0;
    for (const [index, provider] of this.providers.entries()) {
      throwIfAborted(input.signal);
      const stageStart = this.#now();
      const outcome = await runProvider(provider, { input, context });
      blocks.push(outcome.messages);
      const block = this.#tagBlock(index, { section: provider.id, messages: outcome.messages });
      drafts.push({
        id: provider.id,
        kind: 'provider',
        durationMs: this.#now() - stageStart,
        messagesIn: count,
        messagesOut: count + block.length,
        listIn: EMPTY,
        listOut: block,
        decisions: outcome.decisions,
        ...(outcome.error === undefined ? {} : { error: outcome.error }),
      });
      count += block.length;
    }
    const key = { blocks, generated, input };
    // A provider that failed gave [] (policy `skip`), which may match the last blocks: build, so the
    // trace shows the error (and the failed build is not remembered).
    const known = drafts.some((draft) => draft.error !== undefined) ? undefined : this.#memo?.reuse(key);
    if (known !== undefined) {
      throwIfAborted(input.signal);
      return this.#reused(known, { input, drafts, started });
    }
    // The tagged blocks joined in one copy (not one per provider).
    const messages = ([] as readonly Message[]).concat(...drafts.map((draft) => draft.listOut));
    const result = await this.#filter(messages, { input, context, drafts, started, operation: 'build' });
    this.#memo?.remember(key, result);
    return result;
  }

  /**
   * The block of provider `index` tagged with its section: last build's tagged copy when the provider
   * gave the same messages again (by identity), extended with the new ones when it gave them and more.
   */
  #tagBlock(
    index: number,
    block: { readonly section: string; readonly messages: readonly Message[] },
  ): readonly Message[] {
    const { section, messages } = block;
    const last = this.#taggedBlocks[index];
    const tag = (message: Message) => this.#tags.tag(message, section);
    let tagged: readonly Message[];
    if (last === undefined || !extendsMarkedList(last.mark, messages)) tagged = messages.map(tag);
    else if (messages.length === last.mark.length) tagged = last.tagged;
    else tagged = last.tagged.concat(messages.slice(last.mark.length).map(tag));
    this.#taggedBlocks[index] = { mark: markList(messages), tagged };
    return tagged;
  }

  /**
   * A remembered result, with this build's provider stages (they ran: their timings and decisions
   * are this build's; the blocks, hence the token figures, are the remembered ones) and the filter
   * stages as they were (they did not run: 0 ms).
   */
  async #reused(
    known: BuildResult,
    run: { readonly input: BuildInput; readonly drafts: readonly StageDraft[]; readonly started: number },
  ): Promise<BuildResult> {
    const stages = known.trace.stages.map((stage, index) => {
      const draft = run.drafts[index];
      return stageTrace(stage, {
        tokensIn: stage.tokensIn,
        tokensOut: stage.tokensOut,
        tokensEstimated: stage.tokensEstimated === true,
        durationMs: draft?.durationMs ?? 0,
        decisions: draft?.decisions ?? stage.decisions,
      });
    });
    // Checks run on every build, a reused one included (they may compare with the previous request).
    // The context-loss warnings depend on the messages only, so they are the remembered build's.
    const { warnings: previous, ...trace } = known.trace;
    const warnings = [
      ...(previous ?? []).filter(isContextLossWarning),
      ...this.#warnings(known.messages, run.input),
    ];
    const result: BuildResult = {
      messages: known.messages,
      trace: {
        ...trace,
        stages,
        durationMs: this.#now() - run.started,
        ...(warnings.length === 0 ? {} : { warnings }),
      },
    };
    await this.#observe(result, { input: run.input, operation: 'build' });
    return result;
  }

  #warnings(messages: readonly Message[], input: BuildInput): readonly TraceWarning[] {
    return this.#checks.flatMap((check) => check.check(checkRequest(messages, input)));
  }

  /**
   * Runs only the filters over `messages` (budget control without rebuilding the prompt).
   * @throws ContextError `INVALID_INPUT` naming the bad field (`messages[3].content`) and what was
   * received; otherwise as {@link ContextPipeline.build}.
   */
  async transform(messages: readonly Message[], input: BuildInput = {}): Promise<BuildResult> {
    this.#validator.checkMessages(messages, 'transform');
    this.#validator.checkInput(input, 'transform');
    const context = this.#context(input);
    return this.#filter(messages, {
      input,
      context,
      drafts: [],
      started: this.#now(),
      operation: 'transform',
    });
  }

  async #filter(
    initial: readonly Message[],
    run: {
      readonly input: BuildInput;
      readonly context: BuildContext;
      readonly drafts: StageDraft[];
      readonly started: number;
      readonly operation: 'build' | 'transform';
    },
  ): Promise<BuildResult> {
    let messages = initial;
    for (const filter of this.filters) {
      throwIfAborted(run.input.signal);
      const stageStart = this.#now();
      const outcome = await runFilter(filter, { messages, ...run });
      const violations = this.#debug ? validateToolCallIntegrity(outcome.messages) : [];
      run.drafts.push({
        id: filter.id,
        kind: 'filter',
        durationMs: this.#now() - stageStart,
        messagesIn: messages.length,
        messagesOut: outcome.messages.length,
        listIn: messages,
        listOut: outcome.messages,
        decisions: outcome.decisions,
        ...(outcome.error === undefined ? {} : { error: outcome.error }),
        ...(violations.length === 0 ? {} : { violations }),
      });
      messages = outcome.messages;
    }
    // Exact counts of what is sent: the only exact counting the trace itself asks for (kept up to
    // date from the last build: only what changed is counted).
    const sent = this.#sent.update(messages);
    const figures = new StageTokenFigures({
      counter: this.tokenCounter,
      sent: sent.tokensOf,
      final: { messages, tokens: sent.tokens, tokensAt: sent.tokensAt },
    });
    const toolTokens = this.tokenCounter.countTools(run.input.tools ?? []);
    const tools = toolTokenRows(this.tokenCounter, run.input);
    const warnings = [
      ...findContextLoss({
        before: initial,
        after: messages,
        history: run.operation === 'build' ? (run.input.history ?? EMPTY) : initial,
        stages: run.drafts,
      }),
      ...this.#warnings(messages, run.input),
    ];
    const trace: BuildTrace = {
      stages: stageTraces(run.drafts, { figures, initial }),
      sections: sent.sections,
      toolTokens,
      ...(tools.length === 0 ? {} : { tools }),
      totalTokens: sent.tokens + toolTokens,
      tokenCounter: this.tokenCounter.id,
      tokenCounterKind: this.tokenCounter.kind ?? 'estimate',
      durationMs: this.#now() - run.started,
      ...(warnings.length === 0 ? {} : { warnings }),
    };
    const result: BuildResult = { messages, trace };
    await this.#observe(result, run);
    return result;
  }

  async #observe(
    result: BuildResult,
    run: { readonly input: BuildInput; readonly operation: 'build' | 'transform' },
  ): Promise<void> {
    await this.#observer?.observeRequest({
      source: run.operation,
      messages: result.messages,
      tools: run.input.tools ?? [],
      trace: result.trace,
      ...(run.input.sessionKey === undefined ? {} : { sessionKey: run.input.sessionKey }),
    });
  }

  /** The stages' context; `generated` (when given) collects the ids made during the build. */
  #context(input: BuildInput, generated?: Set<string>): BuildContext {
    const base = this.#generateId;
    const shared = new Map<object, unknown>();
    return {
      tokenCounter: this.tokenCounter,
      now: this.#now,
      perBuild: <TValue>(key: object, compute: () => TValue): TValue => {
        if (shared.has(key)) return shared.get(key) as TValue; // set below with a TValue for this key
        const value = compute();
        shared.set(key, value);
        return value;
      },
      generateId:
        generated === undefined
          ? base
          : () => {
              const id = base();
              generated.add(id);
              return id;
            },
      debug: this.#debug,
      ...(input.signal === undefined ? {} : { signal: input.signal }),
      ...(this.#wholeHistory ? { wholeHistory: true } : {}),
    };
  }
}

type StageError = { readonly code: string; readonly message: string };

const EMPTY: readonly Message[] = [];

/** A stage's record before its token figures are known: the lists it took and gave. */
type StageDraft = Omit<StageTrace, 'tokensIn' | 'tokensOut' | 'tokensEstimated'> & {
  /** Filters: the list the filter was given. Providers: empty (their figures accumulate). */
  readonly listIn: readonly Message[];
  /** Filters: the list the filter returned. Providers: their block. */
  readonly listOut: readonly Message[];
};

/**
 * The stages' token figures, from what the build knows (see {@link StageTokenFigures}): providers
 * add their block to a running total; a filter's figures are those of its input and output lists.
 */
function stageTraces(
  drafts: readonly StageDraft[],
  shared: { readonly figures: StageTokenFigures; readonly initial: readonly Message[] },
): readonly StageTrace[] {
  let running = 0;
  let runningEstimated = 0;
  return drafts.map((draft) => {
    const { listIn, listOut } = draft;
    if (draft.kind === 'provider') {
      const block = shared.figures.of(listOut);
      const tokensIn = running;
      running += block.tokens;
      runningEstimated += block.estimated;
      return stageTrace(draft, { tokensIn, tokensOut: running, tokensEstimated: runningEstimated > 0 });
    }
    // The filters' first list is the providers' blocks joined: its figure is their sum.
    if (listIn === shared.initial && running > 0)
      shared.figures.remember(listIn, { tokens: running, estimated: runningEstimated });
    const before = shared.figures.of(listIn);
    // A filter's output is derived from its input: only what it changed is looked at.
    const after = listOut === listIn ? before : shared.figures.of(listOut, listIn);
    return stageTrace(draft, {
      tokensIn: before.tokens,
      tokensOut: after.tokens,
      tokensEstimated: before.estimated > 0 || after.estimated > 0,
    });
  });
}

/** What a stage's trace says beyond its draft: its token figures, and this build's timing and decisions. */
type StageFigures = Pick<StageTrace, 'tokensIn' | 'tokensOut' | 'tokensEstimated'> &
  Partial<Pick<StageTrace, 'durationMs' | 'decisions'>>;

/**
 * A stage's trace from its record and figures (`figures.durationMs` and `figures.decisions`, when
 * given, replace the record's), field by field in the trace's order. Not `{ ...stage, tokensIn, … }`:
 * Node 20's V8 takes a slow path (about 2 µs) for a spread followed by more fields, and a build
 * makes one per stage.
 */
function stageTrace(
  stage: Omit<StageTrace, 'tokensIn' | 'tokensOut' | 'tokensEstimated'>,
  figures: StageFigures,
): StageTrace {
  return {
    id: stage.id,
    kind: stage.kind,
    durationMs: figures.durationMs ?? stage.durationMs,
    messagesIn: stage.messagesIn,
    messagesOut: stage.messagesOut,
    decisions: figures.decisions ?? stage.decisions,
    ...(stage.error === undefined ? {} : { error: stage.error }),
    ...(stage.violations === undefined ? {} : { violations: stage.violations }),
    tokensIn: figures.tokensIn,
    tokensOut: figures.tokensOut,
    ...(figures.tokensEstimated === true ? { tokensEstimated: true } : {}),
  };
}

async function runProvider(
  provider: MessageProvider,
  { input, context }: { readonly input: BuildInput; readonly context: BuildContext },
): Promise<{
  readonly messages: readonly Message[];
  readonly decisions: readonly Decision[];
  readonly error?: StageError;
}> {
  try {
    const result = await provider.getMessages(input, context);
    return isMessageList(result) ? { messages: result, decisions: [] } : result;
  } catch (error) {
    const normalised = toContextError(error);
    if ((provider.onError ?? 'skip') === 'throw' || normalised.code === 'ABORTED') throw normalised;
    return { messages: [], decisions: [], error: { code: normalised.code, message: normalised.message } };
  }
}

async function runFilter(
  filter: ContextFilter,
  run: { readonly messages: readonly Message[]; readonly input: BuildInput; readonly context: BuildContext },
): Promise<{
  readonly messages: readonly Message[];
  readonly decisions: readonly Decision[];
  readonly error?: StageError;
}> {
  try {
    return await filter.apply(run.messages, run.input, run.context);
  } catch (error) {
    const normalised = toContextError(error);
    if ((filter.onError ?? 'throw') === 'throw' || normalised.code === 'ABORTED') throw normalised;
    return {
      messages: run.messages,
      decisions: [],
      error: { code: normalised.code, message: normalised.message },
    };
  }
}

function checkRequest(messages: readonly Message[], input: BuildInput): BuildCheckRequest {
  return {
    messages,
    tools: input.tools ?? [],
    ...(input.sessionKey === undefined ? {} : { sessionKey: input.sessionKey }),
  };
}

function isMessageList(value: readonly Message[] | ProviderResult): value is readonly Message[] {
  return Array.isArray(value);
}

/** The per-tool rows of the trace: each sent tool, then each deferred one, counted alone. */
function toolTokenRows(counter: TokenCounter, input: BuildInput): readonly ToolTokens[] {
  const sent = (input.tools ?? []).map(
    (tool): ToolTokens => ({ name: tool.name, tokens: counter.countTools([tool]) }),
  );
  const deferred = (input.deferredTools ?? []).map(
    (tool): ToolTokens => ({ name: tool.name, tokens: counter.countTools([tool]), deferred: true }),
  );
  return [...sent, ...deferred];
}
