import type { Message } from '../core/message.js';
import type { HistoryEntry } from '../memory/history-entry.js';
import { HistoryLog } from '../memory/history-log.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, MessageProvider } from '../pipeline/contracts.js';
import { TiktokenTokenCounter } from '../tokens/tiktoken-token-counter.js';
import { type TruncateTextToTokensOptions, truncateTextToTokens } from '../tokens/truncate-text-to-tokens.js';
import { SystemMessageMemo } from './system-message-memo.js';

/** Encodes and decodes text for the token cap (a `TiktokenTokenCounter` or `HFTokenCounter` is one). */
export type RecentHistoryTokenizer = NonNullable<TruncateTextToTokensOptions['tokenizer']>;

/** Reads unconsumed history entries; `HistoryLog` implements it. */
export type RecentHistorySource = Pick<HistoryLog, 'readRecent' | 'readDreamCursor'>;

/** Options for {@link RecentHistoryProvider}. */
export type RecentHistoryProviderOptions = {
  /** The provider id. @default 'recent-history' */
  readonly id?: string;
  /** The agent workspace (`memory/history.jsonl`). */
  readonly workspace: string;
  /** Where entries come from. @default new HistoryLog({ workspace }) */
  readonly source?: RecentHistorySource;
  /** Entries kept (the newest). @default 50 */
  readonly maxEntries?: number;
  /** Token cap of the joined lines, the truncation suffix included. @default 8000 */
  readonly maxTokens?: number;
  /** Counts and cuts to the cap. @default cl100k_base (gpt-tokenizer, loaded on first use), as nanobot */
  readonly tokenizer?: RecentHistoryTokenizer;
  /** Unified sessions: also show entries of other non-internal sessions. @default false */
  readonly unified?: boolean;
};

/** The text and metadata of the Recent History part. */
type RenderedPart = { readonly content: string; readonly metadata: Readonly<Record<string, unknown>> };

/** Defaults of {@link RecentHistoryProviderOptions}. */
export const DEFAULT_RECENT_HISTORY = Object.freeze({ maxEntries: 50, maxTokens: 8000 });

/**
 * Part 7 of the agent system prompt: history.jsonl entries the memory writer has not
 * consumed yet (after the Dream cursor), scoped to `input.sessionKey`; the newest `maxEntries`; the
 * last entry equal to the session's archived summary dropped (it is shown as the summary); lines
 * `- [timestamp] content`; the text cut to `maxTokens` with the suffix counted inside the budget.
 */
export class RecentHistoryProvider implements MessageProvider {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly #source: RecentHistorySource;
  readonly #options: RecentHistoryProviderOptions;
  /** The last message, given again while it says the same. */
  readonly #said = new SystemMessageMemo();
  #tokenizer: Promise<RecentHistoryTokenizer> | undefined;
  /** The last part rendered and what it was rendered from. */
  #rendered:
    | {
        readonly entries: readonly HistoryEntry[];
        readonly summary: string | undefined;
        readonly sessionKey: string | undefined;
        readonly part: RenderedPart | undefined;
      }
    | undefined;

  constructor(options: RecentHistoryProviderOptions) {
    this.id = options.id ?? 'recent-history';
    this.#source = options.source ?? new HistoryLog({ workspace: options.workspace });
    this.#options = options;
  }

  async getMessages(input: BuildInput, context: BuildContext): Promise<readonly Message[]> {
    const sinceCursor = await this.#source.readDreamCursor();
    const entries = await this.#source.readRecent({
      sinceCursor,
      ...(input.sessionKey === undefined ? {} : { sessionKey: input.sessionKey }),
      unified: this.#options.unified ?? false,
    });
    const part = await this.#part(entries, { summary: input.summary?.text, sessionKey: input.sessionKey });
    if (part === undefined) return [];
    return [this.#said.message({ content: part.content, metadata: part.metadata }, context.generateId)];
  }

  /**
   * The part's text for these entries; the last one is kept while the source gives the same array
   * and the summary is the same (the log unchanged), so a turn does not render and count it again.
   */
  async #part(
    entries: readonly HistoryEntry[],
    {
      summary,
      sessionKey,
    }: { readonly summary: string | undefined; readonly sessionKey: string | undefined },
  ): Promise<RenderedPart | undefined> {
    const last = this.#rendered;
    if (last?.entries === entries && last.summary === summary && last.sessionKey === sessionKey)
      return last.part;
    const kept = withoutSummary(
      entries.slice(-(this.#options.maxEntries ?? DEFAULT_RECENT_HISTORY.maxEntries)),
      { summary, sessionKey },
    );
    const part = kept.length === 0 ? undefined : await this.#render(kept);
    this.#rendered = { entries, summary, sessionKey, part };
    return part;
  }

  async #render(kept: readonly HistoryEntry[]): Promise<RenderedPart | undefined> {
    const lines = kept.map((entry) => `- [${entry.timestamp}] ${entry.content}`).join('\n');
    const text = truncateTextToTokens(lines, {
      maxTokens: this.#options.maxTokens ?? DEFAULT_RECENT_HISTORY.maxTokens,
      tokenizer: await this.#loadTokenizer(),
    });
    if (text.trim() === '') return undefined;
    return {
      content: `# Recent History\n\n${text}`,
      metadata: { entries: kept.length, truncated: text !== lines },
    };
  }

  #loadTokenizer(): Promise<RecentHistoryTokenizer> {
    if (this.#options.tokenizer !== undefined) return Promise.resolve(this.#options.tokenizer);
    this.#tokenizer ??= TiktokenTokenCounter.create({ encoding: 'cl100k_base' });
    return this.#tokenizer;
  }
}

function withoutSummary(
  entries: readonly HistoryEntry[],
  { summary, sessionKey }: { readonly summary: string | undefined; readonly sessionKey: string | undefined },
): readonly HistoryEntry[] {
  if (summary === undefined) return entries;
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index];
    if (entry?.sessionKey === sessionKey && entry?.content === summary) {
      return [...entries.slice(0, index), ...entries.slice(index + 1)];
    }
  }
  return entries;
}
