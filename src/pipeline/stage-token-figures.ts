import { visitListDelta } from '../core/list-delta.js';
import type { Message } from '../core/message.js';
import { DEFAULT_MESSAGE_COST, type TokenCounter } from '../tokens/token-counter.js';

/** The tokens of one list of messages, and how many of its messages were roughly estimated. */
export type TokenFigure = { readonly tokens: number; readonly estimated: number };

/** The list sent: its messages, their exact tokens, and each one's by position. */
type SentList = {
  readonly messages: readonly Message[];
  readonly tokens: number;
  readonly tokensAt: (index: number) => number;
};

/**
 * A list at least 1/ALIGN_RATIO as long as the list sent is compared with it by identity (its shared
 * messages' tokens read by position) rather than looked up message by message.
 */
const ALIGN_RATIO = 8;

/** A counter that can say what it already knows about a message without counting it. */
type KnowingCounter = TokenCounter & { knownMessageCount(message: Message): number | undefined };

/**
 * Token figures for the trace's stages, computed after the build from what is already known: the
 * exact counts of the messages that are sent (`sent`), the counts the stages made (the counter's
 * cache), and for the rest a rough estimate (characters / 4 plus the per-message overhead, O(1) per
 * message: it reads lengths, never the text), so no message a filter dropped is counted exactly just
 * for the trace. Lists are memoised by identity: a stage that changed nothing costs nothing, and a
 * list derived from one already figured (a stage's output from its input) costs what changed.
 */
export class StageTokenFigures {
  readonly #sent: (message: Message) => number | undefined;
  readonly #known: ((message: Message) => number | undefined) | undefined;
  readonly #lists = new Map<readonly Message[], TokenFigure>();
  readonly #final: SentList | undefined;

  constructor(options: {
    readonly counter: TokenCounter;
    /** The exact tokens of a message sent (`undefined` for one not sent). */
    readonly sent: (message: Message) => number | undefined;
    /** The list sent, its exact tokens and each of its messages' (the last filters' lists are often this one). */
    readonly final?: SentList;
  }) {
    this.#sent = options.sent;
    this.#final = options.final;
    if (options.final !== undefined)
      this.#lists.set(options.final.messages, { tokens: options.final.tokens, estimated: 0 });
    const counter = options.counter;
    this.#known = isKnowing(counter) ? (message) => counter.knownMessageCount(message) : undefined;
  }

  /**
   * The figure of a list of messages; given `base`, a list already figured that `messages` was derived
   * from, only the messages that differ are looked at (the result is the same).
   */
  of(messages: readonly Message[], base?: readonly Message[]): TokenFigure {
    const memo = this.#lists.get(messages);
    if (memo !== undefined) return memo;
    const from = base === undefined ? undefined : this.#lists.get(base);
    let tokens = from?.tokens ?? 0;
    let estimated = from?.estimated ?? 0;
    const add = (message: Message, sign: number): void => {
      const known = this.#sent(message) ?? this.#known?.(message);
      if (known !== undefined) tokens += sign * known;
      else {
        tokens += sign * roughMessageTokens(message);
        estimated += sign;
      }
    };
    const final = this.#final;
    if (from === undefined && final !== undefined && messages.length * ALIGN_RATIO >= final.messages.length)
      // Mostly the list sent (a provider's history block): its messages' tokens by position.
      visitListDelta(
        { before: final.messages, after: messages },
        {
          added: (message) => add(message, 1),
          kept: ({ from, length }) => {
            for (let at = from; at < from + length; at += 1) tokens += final.tokensAt(at);
          },
        },
      );
    else if (from === undefined || base === undefined) for (const message of messages) add(message, 1);
    else
      visitListDelta(
        { before: base, after: messages },
        {
          removed: (message) => add(message, -1),
          added: (message) => add(message, 1),
        },
      );
    const figure = { tokens, estimated };
    this.#lists.set(messages, figure);
    return figure;
  }

  /** Records the figure of a list known otherwise (e.g. the sum of the blocks it joins). */
  remember(messages: readonly Message[], figure: TokenFigure): void {
    this.#lists.set(messages, figure);
  }
}

function isKnowing(counter: TokenCounter): counter is KnowingCounter {
  return typeof (counter as Partial<KnowingCounter>).knownMessageCount === 'function';
}

/** Characters / 4 plus the default overhead and image cost: reads lengths only. */
export function roughMessageTokens(message: Message): number {
  let chars = 0;
  let images = 0;
  const { content } = message;
  if (typeof content === 'string') chars += content.length;
  else
    for (const part of content) {
      if (part.type === 'text') chars += part.text.length;
      else images += 1;
    }
  // Lengths only; a relay's `null` name counts as empty.
  for (const call of message.toolCalls ?? []) chars += lengthOf(call.name) + lengthOf(call.arguments) + 1;
  chars += lengthOf(message.reasoning) + lengthOf(message.name) + lengthOf(message.toolCallId);
  return (
    Math.ceil(chars / 4) +
    DEFAULT_MESSAGE_COST.messageOverheadTokens +
    images * DEFAULT_MESSAGE_COST.imageTokens
  );
}

function lengthOf(value: unknown): number {
  return typeof value === 'string' ? value.length : 0;
}
