import type { OptionKeys } from '../core/check-options.js';
import { COMPACTION_ID_KEY } from '../core/compaction-record.js';
import type { Message } from '../core/message.js';
import type { MessageUnit } from '../core/transactions.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** What compaction never gives to the summariser: kept verbatim, right after the summary. */
export type PinnedContextOptions = {
  /** How many of the latest real user requests are pinned. @default 1 */
  readonly latestUserRequests?: number;
  /** Tools whose latest result is pinned (a todo list, a plan), with the call that made it. @default [] */
  readonly tools?: readonly string[];
  /**
   * Most tokens the pins may take. Past it the oldest pins are summarised after all (tool results
   * first, then marked messages; the latest user request never), and the result says which.
   * @default 8000
   */
  readonly maxTokens?: number;
};

/** The keys of {@link PinnedContextOptions}. */
export const PINNED_CONTEXT_OPTION_KEYS = {
  latestUserRequests: true,
  tools: true,
  maxTokens: true,
} as const satisfies OptionKeys<PinnedContextOptions>;

/** Defaults of {@link PinnedContextOptions}. */
export const DEFAULT_PINNED_CONTEXT = Object.freeze({ latestUserRequests: 1, maxTokens: 8000 });

/** The metadata flag that pins a message: `metadata.pinned: true`. */
export const PINNED_KEY = 'pinned';

/** Why a unit is pinned, in the order pins give way to the cap (last gives way first). */
export type PinReason = 'user-request' | 'marked' | 'tool-result';

/** A pinned unit of the view and why. */
export type PinnedUnit = { readonly unit: MessageUnit; readonly reason: PinReason; readonly tokens: number };

/** Which units of the view are pinned and why (whole units, so a pinned tool result keeps its call). */
export function pinnedUnits(
  units: readonly MessageUnit[],
  options: { readonly pinned: PinnedContextOptions; readonly counter: TokenCounter },
): readonly PinnedUnit[] {
  const requests = latestUserRequests(units, options.pinned.latestUserRequests ?? 1);
  const tools = latestToolResults(units, options.pinned.tools ?? []);
  const out: PinnedUnit[] = [];
  for (const unit of units) {
    const reason: PinReason | undefined = unit.messages.some((message) => requests.has(message))
      ? 'user-request'
      : unit.messages.some((message) => message.metadata?.[PINNED_KEY] === true)
        ? 'marked'
        : unit.messages.some((message) => tools.has(message))
          ? 'tool-result'
          : undefined;
    if (reason !== undefined)
      out.push({ unit, reason, tokens: options.counter.countMessages(unit.messages) });
  }
  return out;
}

/**
 * The pins that fit `maxTokens`: tool results give way first, then marked messages, oldest first;
 * user requests always stay. Returns the kept pins and the ones given up.
 */
export function capPins(
  pins: readonly PinnedUnit[],
  maxTokens: number,
): { readonly kept: readonly PinnedUnit[]; readonly dropped: readonly PinnedUnit[] } {
  let total = pins.reduce((sum, pin) => sum + pin.tokens, 0);
  const dropped = new Set<PinnedUnit>();
  for (const reason of ['tool-result', 'marked'] as const) {
    for (const pin of pins) {
      if (total <= maxTokens) break;
      if (pin.reason !== reason) continue;
      dropped.add(pin);
      total -= pin.tokens;
    }
  }
  return { kept: pins.filter((pin) => !dropped.has(pin)), dropped: [...dropped] };
}

/**
 * A user message a person wrote: not a summary, not blank, not only provider parts (a user message of
 * Anthropic `tool_addition` blocks that loaded deferred tools is no request).
 */
export function isRealUserRequest(message: Message): boolean {
  if (message.role !== 'user' || typeof message.metadata?.[COMPACTION_ID_KEY] === 'string') return false;
  return typeof message.content === 'string'
    ? message.content.trim() !== ''
    : message.content.some((part) =>
        part.type === 'text' ? part.text.trim() !== '' : part.type !== 'provider',
      );
}

function latestUserRequests(units: readonly MessageUnit[], count: number): ReadonlySet<Message> {
  const found = new Set<Message>();
  for (let index = units.length - 1; index >= 0 && found.size < count; index -= 1)
    for (const message of (units[index] as MessageUnit).messages)
      if (isRealUserRequest(message)) found.add(message);
  return found;
}

function latestToolResults(units: readonly MessageUnit[], tools: readonly string[]): ReadonlySet<Message> {
  const wanted = new Set(tools);
  const found = new Map<string, Message>();
  for (let index = units.length - 1; index >= 0 && found.size < wanted.size; index -= 1) {
    for (const message of (units[index] as MessageUnit).messages) {
      const name = message.name;
      if (message.role === 'tool' && name !== undefined && wanted.has(name) && !found.has(name))
        found.set(name, message);
    }
  }
  return new Set(found.values());
}
