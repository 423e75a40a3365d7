import { isBlankContent } from '../core/content.js';
import type { Message } from '../core/message.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { PlaceholderTexts } from './placeholder-texts.js';

/**
 * What a history message costs at least once the context governor has governed it (the floor the
 * history windows add up, newest first, to find the messages the governor is certain to snip): its
 * exact tokens for user messages, assistant answers whose tool calls are all sendable, and tool
 * results that answer their assistant and are not over the size limit (or belong to an exempt tool
 * such as `read_file`, sent as they are); for an oversized result the governor rewrote in an
 * earlier build, the exact tokens of what it sent (its offload reference, never its text); 0 for what
 * the governor may shrink or drop (other oversized or unpaired results, blank results, which become a
 * notice, placeholders, assistants with a broken call). Such a message reaches the governor's snip
 * step unchanged, so it counts there what it counts here. @internal
 */
export class GovernedFloor {
  readonly #placeholders: PlaceholderTexts;
  readonly #maxToolResultChars: number;
  readonly #exemptTools: ReadonlySet<string>;

  constructor(options: {
    readonly placeholderTexts: readonly string[];
    readonly maxToolResultChars: number;
    readonly exemptTools: readonly string[];
  }) {
    this.#placeholders = new PlaceholderTexts(options.placeholderTexts);
    this.#maxToolResultChars = options.maxToolResultChars;
    this.#exemptTools = new Set(options.exemptTools);
  }

  /**
   * The floor of `history[index]` (in range). `rewrittenBefore` gives what the governor sent for an
   * oversized result it rewrote before, if it did.
   */
  tokens(
    history: readonly Message[],
    at: {
      readonly index: number;
      readonly counter: TokenCounter;
      readonly rewrittenBefore?: ((message: Message) => Message | undefined) | undefined;
    },
  ): number {
    const message = history[at.index] as Message; // the caller stays in range
    switch (message.role) {
      case 'user':
        return at.counter.countMessage(message);
      case 'assistant':
        // An empty or broken call list may leave an empty assistant, which the governor drops.
        if (
          message.toolCalls !== undefined &&
          (message.toolCalls.length === 0 || !message.toolCalls.every(isSendableCall))
        )
          return 0;
        if (message.toolCalls === undefined && this.#isPlaceholder(message)) return 0;
        return at.counter.countMessage(message);
      case 'tool': {
        // A blank result (spaces and newlines included) is replaced by a notice, which may be shorter.
        if (!isPairedResult(history, at.index) || isBlankContent(message.content)) return 0;
        if (this.#keepsItsSize(message)) return at.counter.countMessage(message);
        // Oversized: what the governor sent for it before (its reference), else 0 (not known yet).
        const sent = at.rewrittenBefore?.(message);
        return sent === undefined ? 0 : at.counter.countMessage(sent);
      }
      default:
        return 0;
    }
  }

  #isPlaceholder(message: Message): boolean {
    return typeof message.content === 'string' && this.#placeholders.has(message.content);
  }

  /** A (not blank) result the governor leaves as it is: not over the size limit, or exempt. */
  #keepsItsSize(message: Message): boolean {
    if (typeof message.content !== 'string') return false;
    return (
      message.content.length <= this.#maxToolResultChars ||
      this.#exemptTools.has(message.name !== undefined && message.name !== '' ? message.name : 'tool')
    );
  }
}

/** A tool call the governor keeps: a non-empty id and name (duplicates make the windows fall back). */
function isSendableCall(call: { readonly id: unknown; readonly name: unknown }): boolean {
  return typeof call.id === 'string' && call.id !== '' && typeof call.name === 'string' && call.name !== '';
}

/**
 * True when the tool result at `index` answers a sendable call of the assistant right before its run
 * of tool messages, and no earlier result in that run answers the same id (the governor keeps the
 * first and drops the others as orphans).
 */
function isPairedResult(history: readonly Message[], index: number): boolean {
  const id = history[index]?.toolCallId;
  if (id === undefined || id === '') return false;
  let start = index - 1;
  while (start >= 0 && history[start]?.role === 'tool') {
    if (history[start]?.toolCallId === id) return false;
    start -= 1;
  }
  const caller = history[start];
  if (caller?.role !== 'assistant') return false;
  return (caller.toolCalls ?? []).some((call) => call.id === id && isSendableCall(call));
}
