import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { TokenCounter, TokenCountKind } from '../tokens/token-counter.js';
import { normalizeUsage } from './normalize-usage.js';

/** The learnt ratios, per model: what to persist between runs. */
export type TokenCalibrationSnapshot = {
  readonly version: 1;
  /** Per model, the most recent ratios (provider input tokens ÷ counted tokens), oldest first. */
  readonly models: Readonly<Record<string, readonly number[]>>;
};

/** Options for {@link UsageCalibratedTokenCounter}. */
export type UsageCalibratedTokenCounterOptions = {
  /** The model whose ratio this counter applies (calibrations are kept per model). @default 'default' */
  readonly model?: string;
  /** Ratios kept per model (a sliding window). @default 50 */
  readonly window?: number;
  /** Samples needed before the ratio is applied. @default 3 */
  readonly minSamples?: number;
  /** The ratio is clamped to [1/maxRatio, maxRatio], and a sample outside it is ignored as an outlier. @default 3 */
  readonly maxRatio?: number;
  /** A snapshot to start from (from `snapshot()` of an earlier run). */
  readonly snapshot?: TokenCalibrationSnapshot;
  /** Called after each recorded sample with the new snapshot (to persist it). */
  readonly onUpdate?: (snapshot: TokenCalibrationSnapshot) => void;
};

/** The keys of {@link UsageCalibratedTokenCounterOptions}, for `checkOptions`. @internal */
export const USAGE_CALIBRATED_TOKEN_COUNTER_OPTION_KEYS = {
  model: true,
  window: true,
  minSamples: true,
  maxRatio: true,
  snapshot: true,
  onUpdate: true,
} as const satisfies OptionKeys<UsageCalibratedTokenCounterOptions>;

/** One provider-reported request to learn from. */
export type TokenCalibrationSample = {
  /** The model that billed it. @default the counter's model */
  readonly model?: string;
  /** The provider's usage object (any shape `normalizeUsage` reads). */
  readonly usage: unknown;
  /** The tokens the wrapped counter gave the request, or the messages and tools to count. */
  readonly countedTokens?: number;
  readonly messages?: readonly Message[];
  readonly tools?: readonly ToolDefinition[];
};

/** Defaults of {@link UsageCalibratedTokenCounterOptions}. */
export const DEFAULT_USAGE_CALIBRATION = Object.freeze({
  model: 'default',
  window: 50,
  minSamples: 3,
  maxRatio: 3,
});

type State = { readonly models: Map<string, number[]> };

/**
 * Wraps any counter and learns, per model, the ratio between its counts and the input tokens the
 * provider reports (tools, images and the system prompt included), so budgets for models without a
 * public tokenizer converge on what the provider bills. The ratio is the median of a sliding window
 * (robust to outliers: a sample beyond `maxRatio` is ignored), applied once `minSamples` are in,
 * clamped to the bounds. `snapshot()` and the `snapshot` option persist what was learnt.
 * @example
 * const counter = new UsageCalibratedTokenCounter(new EstimatingTokenCounter(), { model: 'claude-sonnet-4-5' });
 * counter.record({ messages, tools, usage: response.usage });
 */
export class UsageCalibratedTokenCounter implements TokenCounter {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly kind: TokenCountKind = 'estimate';
  readonly #inner: TokenCounter;
  readonly #options: Required<Omit<UsageCalibratedTokenCounterOptions, 'snapshot' | 'onUpdate'>> &
    Pick<UsageCalibratedTokenCounterOptions, 'onUpdate'>;
  #state: State;

  constructor(inner: TokenCounter, options: UsageCalibratedTokenCounterOptions = {}) {
    checkOptions(options, {
      where: 'new UsageCalibratedTokenCounter options',
      known: USAGE_CALIBRATED_TOKEN_COUNTER_OPTION_KEYS,
    });
    const resolved = { ...DEFAULT_USAGE_CALIBRATION, ...options };
    if (!(resolved.window >= 1 && resolved.minSamples >= 1 && resolved.maxRatio > 1)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `UsageCalibratedTokenCounter needs window ≥ 1, minSamples ≥ 1 and maxRatio > 1 (got ${resolved.window}, ${resolved.minSamples}, ${resolved.maxRatio}); e.g. { window: 50, minSamples: 3, maxRatio: 3 }.`,
      });
    }
    this.#inner = inner;
    this.#options = resolved;
    this.id = `calibrated:${inner.id}`;
    this.#state = {
      models: new Map(
        Object.entries(options.snapshot?.models ?? {}).map(([model, ratios]) => [model, [...ratios]]),
      ),
    };
  }

  /** A counter for another model sharing what this one learnt. */
  forModel(model: string): UsageCalibratedTokenCounter {
    const view = new UsageCalibratedTokenCounter(this.#inner, { ...this.#options, model });
    view.#state = this.#state;
    return view;
  }

  /** The ratio applied to the wrapped counter's counts for a model (1 until enough samples). */
  ratio(model: string = this.#options.model): number {
    const ratios = this.#state.models.get(model) ?? [];
    if (ratios.length < this.#options.minSamples) return 1;
    const sorted = [...ratios].sort((a, b) => a - b);
    const middle = sorted.length / 2;
    const median = Number.isInteger(middle)
      ? ((sorted[middle - 1] ?? 1) + (sorted[middle] ?? 1)) / 2
      : (sorted[Math.floor(middle)] ?? 1);
    const bound = this.#options.maxRatio;
    return Math.min(bound, Math.max(1 / bound, median));
  }

  /** Learns from one request the provider billed; returns whether the sample was kept. */
  record(sample: TokenCalibrationSample): boolean {
    const counted =
      sample.countedTokens ??
      this.#inner.countMessages(sample.messages ?? []) + this.#inner.countTools(sample.tools ?? []);
    const billed = normalizeUsage(sample.usage).inputTokens;
    if (counted <= 0 || billed <= 0) return false;
    const ratio = billed / counted;
    const bound = this.#options.maxRatio;
    if (ratio > bound || ratio < 1 / bound) return false;
    const model = sample.model ?? this.#options.model;
    const ratios = this.#state.models.get(model) ?? [];
    ratios.push(ratio);
    if (ratios.length > this.#options.window) ratios.splice(0, ratios.length - this.#options.window);
    this.#state.models.set(model, ratios);
    this.#options.onUpdate?.(this.snapshot());
    return true;
  }

  /** What was learnt, as plain JSON. */
  snapshot(): TokenCalibrationSnapshot {
    return {
      version: 1,
      models: Object.fromEntries([...this.#state.models].map(([model, ratios]) => [model, [...ratios]])),
    };
  }

  countText(text: string): number {
    return this.#scale(this.#inner.countText(text));
  }

  countMessage(message: Message): number {
    return this.#scale(this.#inner.countMessage(message));
  }

  countMessages(messages: readonly Message[]): number {
    return messages.reduce((sum, message) => sum + this.countMessage(message), 0);
  }

  countTools(tools: readonly ToolDefinition[]): number {
    return this.#scale(this.#inner.countTools(tools));
  }

  #scale(count: number): number {
    return count === 0 ? 0 : Math.max(1, Math.round(count * this.ratio()));
  }
}
