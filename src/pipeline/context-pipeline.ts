import { apportionTokens } from '../core/apportion-tokens.js';
import type { Decision } from '../core/decision.js';
import { throwIfAborted, toContextError } from '../core/errors.js';
import { generateMessageId, type IdGenerator } from '../core/ids.js';
import { isRecord } from '../core/is-record.js';
import { type Message, SECTION_KEY, sectionOf } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { withTokenCache } from '../tokens/cached-token-counter.js';
import { EstimatingTokenCounter } from '../tokens/estimating-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { BuildInput } from './build-input.js';
import type { BuildResult, BuildTrace, SectionTokens, StageTrace } from './build-trace.js';
import type { BuildContext, ContextFilter, MessageProvider, ProviderResult } from './contracts.js';
import type { RequestObserver } from './request-observer.js';

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
  /** Tagged copies of provider messages, so the same input message gets the same object every build. */
  readonly #tagged = new WeakMap<Message, Message>();

  constructor(options: ContextPipelineOptions = {}) {
    this.providers = options.providers ?? [];
    this.filters = options.filters ?? [];
    this.tokenCounter = withTokenCache(options.tokenCounter ?? new EstimatingTokenCounter());
    this.#now = options.now ?? (() => performance.now());
    this.#generateId = options.generateId ?? generateMessageId;
    this.#debug = options.debug ?? false;
    this.#observer = options.observer;
  }

  /**
   * Runs the providers, then the filters.
   * @throws ContextError with the failing stage's code when a stage with policy `throw` fails, or
   * `ABORTED` when `input.signal` is aborted.
   */
  async build(input: BuildInput = {}): Promise<BuildResult> {
    const context = this.#context(input);
    const started = this.#now();
    const stages: StageTrace[] = [];
    let messages: readonly Message[] = [];
    let tokens = 0;
    for (const provider of this.providers) {
      throwIfAborted(input.signal);
      const stageStart = this.#now();
      const outcome = await runProvider(provider, input, context);
      const block = outcome.messages.map((message) => this.#tag(message, provider.id));
      const blockTokens = this.tokenCounter.countMessages(block);
      stages.push({
        id: provider.id,
        kind: 'provider',
        durationMs: this.#now() - stageStart,
        messagesIn: messages.length,
        messagesOut: messages.length + block.length,
        tokensIn: tokens,
        tokensOut: tokens + blockTokens,
        decisions: outcome.decisions,
        ...(outcome.error === undefined ? {} : { error: outcome.error }),
      });
      messages = messages.concat(block);
      tokens += blockTokens;
    }
    return this.#filter(messages, { input, context, stages, tokens, started, operation: 'build' });
  }

  /** Runs only the filters over `messages` (budget control without rebuilding the prompt). */
  async transform(messages: readonly Message[], input: BuildInput = {}): Promise<BuildResult> {
    const context = this.#context(input);
    const tokens = this.tokenCounter.countMessages(messages);
    return this.#filter(messages, {
      input,
      context,
      stages: [],
      tokens,
      started: this.#now(),
      operation: 'transform',
    });
  }

  async #filter(
    initial: readonly Message[],
    run: {
      readonly input: BuildInput;
      readonly context: BuildContext;
      readonly stages: StageTrace[];
      readonly tokens: number;
      readonly started: number;
      readonly operation: 'build' | 'transform';
    },
  ): Promise<BuildResult> {
    let messages = initial;
    let tokens = run.tokens;
    for (const filter of this.filters) {
      throwIfAborted(run.input.signal);
      const stageStart = this.#now();
      const outcome = await runFilter(filter, messages, run);
      const changed = outcome.messages !== messages;
      const tokensOut = changed ? this.tokenCounter.countMessages(outcome.messages) : tokens;
      const violations = this.#debug ? validateToolCallIntegrity(outcome.messages) : [];
      run.stages.push({
        id: filter.id,
        kind: 'filter',
        durationMs: this.#now() - stageStart,
        messagesIn: messages.length,
        messagesOut: outcome.messages.length,
        tokensIn: tokens,
        tokensOut,
        decisions: outcome.decisions,
        ...(outcome.error === undefined ? {} : { error: outcome.error }),
        ...(violations.length === 0 ? {} : { violations }),
      });
      messages = outcome.messages;
      tokens = tokensOut;
    }
    const toolTokens = this.tokenCounter.countTools(run.input.tools ?? []);
    const trace: BuildTrace = {
      stages: run.stages,
      sections: sectionTokens(messages, this.tokenCounter),
      toolTokens,
      totalTokens: tokens + toolTokens,
      tokenCounter: this.tokenCounter.id,
      tokenCounterKind: this.tokenCounter.kind ?? 'estimate',
      durationMs: this.#now() - run.started,
    };
    await this.#observer?.observeRequest({
      source: run.operation,
      messages,
      tools: run.input.tools ?? [],
      trace,
      ...(run.input.sessionKey === undefined ? {} : { sessionKey: run.input.sessionKey }),
    });
    return { messages, trace };
  }

  /**
   * Tags a message with its section. The tagged copy is remembered per input message, so a history
   * replayed every turn keeps its object identity and the token cache answers by identity instead of
   * rebuilding a content key for every old message.
   */
  #tag(message: Message, section: string): Message {
    if (sectionOf(message) !== undefined) return message;
    const known = this.#tagged.get(message);
    if (known !== undefined && sectionOf(known) === section) return known;
    const tagged = tagSection(message, section);
    this.#tagged.set(message, tagged);
    return tagged;
  }

  #context(input: BuildInput): BuildContext {
    return {
      tokenCounter: this.tokenCounter,
      now: this.#now,
      generateId: this.#generateId,
      debug: this.#debug,
      ...(input.signal === undefined ? {} : { signal: input.signal }),
    };
  }
}

type StageError = { readonly code: string; readonly message: string };

async function runProvider(
  provider: MessageProvider,
  input: BuildInput,
  context: BuildContext,
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
  messages: readonly Message[],
  run: { readonly input: BuildInput; readonly context: BuildContext },
): Promise<{
  readonly messages: readonly Message[];
  readonly decisions: readonly Decision[];
  readonly error?: StageError;
}> {
  try {
    return await filter.apply(messages, run.input, run.context);
  } catch (error) {
    const normalised = toContextError(error);
    if ((filter.onError ?? 'throw') === 'throw' || normalised.code === 'ABORTED') throw normalised;
    return { messages, decisions: [], error: { code: normalised.code, message: normalised.message } };
  }
}

function isMessageList(value: readonly Message[] | ProviderResult): value is readonly Message[] {
  return Array.isArray(value);
}

function tagSection(message: Message, section: string): Message {
  if (sectionOf(message) !== undefined) return message;
  return { ...message, metadata: { ...message.metadata, [SECTION_KEY]: section } };
}

function sectionTokens(messages: readonly Message[], counter: TokenCounter): readonly SectionTokens[] {
  const totals = new Map<string, { messages: number; tokens: number; partOf?: string }>();
  const add = (
    section: string,
    tokens: number,
    row: { readonly messages: number; readonly partOf?: string },
  ): void => {
    const entry = totals.get(section) ?? {
      messages: 0,
      tokens: 0,
      ...(row.partOf === undefined ? {} : { partOf: row.partOf }),
    };
    entry.messages += row.messages;
    entry.tokens += tokens;
    totals.set(section, entry);
  };
  for (const message of messages) {
    const tokens = counter.countMessage(message);
    const parts = joinedParts(message);
    if (parts === undefined) {
      add(sectionOf(message) ?? 'unknown', tokens, { messages: 1 });
      continue;
    }
    const shares = apportionTokens(
      tokens,
      parts.map((part) => part.chars),
    );
    const partOf = sectionOf(message) ?? 'unknown';
    parts.forEach((part, index) => {
      add(part.section, shares[index] ?? 0, { messages: index === 0 ? 1 : 0, partOf });
    });
  }
  return [...totals].map(([section, entry]) => ({ section, ...entry }));
}

/**
 * The parts of a message joined from several sections (`metadata.parts: [{ section, chars }]`, as the
 * system-message join filter records them), so the trace can show each part's tokens.
 */
function joinedParts(message: Message): readonly { section: string; chars: number }[] | undefined {
  const parts = message.metadata?.['parts'];
  if (!Array.isArray(parts) || parts.length < 2) return undefined;
  const valid = parts.flatMap((part: unknown) => {
    if (!isRecord(part)) return [];
    const { section, chars } = part;
    return typeof section === 'string' && typeof chars === 'number' ? [{ section, chars }] : [];
  });
  return valid.length === parts.length ? valid : undefined;
}
