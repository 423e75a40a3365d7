import type { OptionKeys } from '../core/check-options.js';
import { COMPACTION_ID_KEY } from '../core/compaction-record.js';
import type { Message } from '../core/message.js';
import type { MessageUnit } from '../core/transactions.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** What compaction never gives to the summariser: kept verbatim, right after the summary. */
export type PinnedContextOptions = {
  /** How many of the latest real user requests are pinned (never given up to the cap). @default 1 */
  readonly latestUserRequests?: number;
  /**
   * Whether the user's own earlier messages in the run stay verbatim too. The user's words carry the
   * task, the ground rules and the corrections, and they are short next to tool output; a summariser
   * that drops or rewrites them (or obeys an instruction planted in a tool result) loses exactly what
   * the user will hold the agent to. OpenAI's `/responses/compact` and Codex keep user messages
   * verbatim for the same reason. Past the cap they give way from the middle: the first ones (the task
   * and the rules set at the start) and the newest ones stay, each end taking half of what is left.
   * `false` hands them to the summariser like the rest.
   * @default true
   */
  readonly userMessages?: boolean;
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
  userMessages: true,
  tools: true,
  maxTokens: true,
} as const satisfies OptionKeys<PinnedContextOptions>;

/** Defaults of {@link PinnedContextOptions}. */
export const DEFAULT_PINNED_CONTEXT = Object.freeze({
  latestUserRequests: 1,
  userMessages: true,
  maxTokens: 8000,
});

/** The metadata flag that pins a message: `metadata.pinned: true`. */
export const PINNED_KEY = 'pinned';

/**
 * Why a unit is pinned. Under the cap, tool results give way first, then the user's earlier messages
 * (from the middle), then marked messages; the latest user requests never.
 */
export type PinReason = 'user-request' | 'marked' | 'user-message' | 'tool-result';

/** A pinned unit of the view and why. */
export type PinnedUnit = { readonly unit: MessageUnit; readonly reason: PinReason; readonly tokens: number };

/** Which units of the view are pinned and why (whole units, so a pinned tool result keeps its call). */
export function pinnedUnits(
  units: readonly MessageUnit[],
  options: { readonly pinned: PinnedContextOptions; readonly counter: TokenCounter },
): readonly PinnedUnit[] {
  const requests = latestUserRequests(units, options.pinned.latestUserRequests ?? 1);
  const tools = latestToolResults(units, options.pinned.tools ?? []);
  const isUserPinned = options.pinned.userMessages ?? DEFAULT_PINNED_CONTEXT.userMessages;
  const out: PinnedUnit[] = [];
  for (const unit of units) {
    const reason = pinReasonOf(unit, { requests, tools, isUserPinned });
    if (reason !== undefined)
      out.push({ unit, reason, tokens: options.counter.countMessages(unit.messages) });
  }
  return out;
}

/** Why a unit is pinned, if it is (the first reason that applies, in order of strength). */
function pinReasonOf(
  unit: MessageUnit,
  pins: {
    readonly requests: ReadonlySet<Message>;
    readonly tools: ReadonlySet<Message>;
    readonly isUserPinned: boolean;
  },
): PinReason | undefined {
  const has = (test: (message: Message) => boolean): boolean => unit.messages.some(test);
  if (has((message) => pins.requests.has(message))) return 'user-request';
  if (has((message) => message.metadata?.[PINNED_KEY] === true)) return 'marked';
  if (pins.isUserPinned && has(isRealUserRequest)) return 'user-message';
  if (has((message) => pins.tools.has(message))) return 'tool-result';
  return undefined;
}

/**
 * The pins that fit `maxTokens`: tool results give way first (oldest first), then the user's earlier
 * messages from the middle (the first ones and the newest ones each keep half of what is left), then
 * marked messages (oldest first); the latest user requests always stay. Returns the kept pins and the
 * ones given up.
 */
export function capPins(
  pins: readonly PinnedUnit[],
  maxTokens: number,
): { readonly kept: readonly PinnedUnit[]; readonly dropped: readonly PinnedUnit[] } {
  let total = pins.reduce((sum, pin) => sum + pin.tokens, 0);
  const dropped = new Set<PinnedUnit>();
  const dropOldest = (reason: PinReason): void => {
    for (const pin of pins) {
      if (total <= maxTokens) break;
      if (pin.reason !== reason) continue;
      dropped.add(pin);
      total -= pin.tokens;
    }
  };
  dropOldest('tool-result');
  if (total > maxTokens) {
    const users = pins.filter((pin) => pin.reason === 'user-message');
    const userTokens = users.reduce((sum, pin) => sum + pin.tokens, 0);
    for (const pin of middleOut(users, maxTokens - (total - userTokens))) {
      dropped.add(pin);
      total -= pin.tokens;
    }
  }
  dropOldest('marked');
  return { kept: pins.filter((pin) => !dropped.has(pin)), dropped: [...dropped] };
}

/** The pins (in order) that do not fit `allowance`: the first ones take up to half, the newest the rest. */
function middleOut(pins: readonly PinnedUnit[], allowance: number): readonly PinnedUnit[] {
  const kept = new Set<PinnedUnit>();
  let used = 0;
  for (const pin of pins) {
    if (used + pin.tokens > allowance / 2) break;
    kept.add(pin);
    used += pin.tokens;
  }
  for (let index = pins.length - 1; index >= 0; index -= 1) {
    const pin = pins[index] as PinnedUnit;
    if (kept.has(pin)) break;
    if (used + pin.tokens > allowance) break;
    kept.add(pin);
    used += pin.tokens;
  }
  return pins.filter((pin) => !kept.has(pin));
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
