import { isBlankContent } from '../core/content.js';
import { type Decision, decision } from '../core/decision.js';
import { isRecord } from '../core/is-record.js';
import type { ContentPart, Message } from '../core/message.js';
import { truncateText } from '../core/truncate-text.js';
import { NANOBOT_EXTRA_KEY } from './nanobot-message.js';
import type { SessionStore, StoreCallOptions } from './session-store.js';
import { addCallIds, storedCallIds } from './stored-call-ids.js';

/** Options for {@link saveTurn}. */
export type SaveTurnOptions = StoreCallOptions & {
  /** How many of `messages` were already stored before this run; only later ones are saved. */
  readonly initialLength: number;
  /** Longer tool results are truncated with the truncation suffix. @default 16000 */
  readonly maxToolResultChars?: number;
  /** Stamped on the last saved assistant message as nanobot's `latency_ms`. */
  readonly latencyMs?: number;
};

/** What {@link saveTurn} stored and what it left out. */
export type SaveTurnResult = {
  readonly saved: readonly Message[];
  readonly decisions: readonly Decision[];
};

const STAGE = 'save-turn';
const OMITTED = '[tool result omitted during persistence]';

/**
 * Persists a finished turn the way nanobot's `_save_turn` does: only the messages this run
 * added (index ≥ `initialLength`; pass the run's own list, never the governed model copy, so
 * governance edits are never persisted). Drops blank assistant messages without tool calls and tool
 * results with a missing, undeclared (checked against the stored session and this turn) or already
 * answered id (the first answer wins); truncates long tool results; replaces data-URL images with
 * `[image: path]` breadcrumbs (`[image]` without a path) so base64 is never stored; drops a user
 * message whose parts all vanish. Every drop or rewrite is a {@link Decision}.
 */
export async function saveTurn(
  store: SessionStore,
  sessionKey: string,
  messages: readonly Message[],
  options: SaveTurnOptions,
): Promise<SaveTurnResult> {
  const stored = storedCallIds(store, {
    sessionKey,
    stored: (await store.load(sessionKey, options)).messages,
  });
  // This turn's ids beside the stored ones (which are kept for the next turn, so never added to).
  const turn = { declared: new Set<string>(), answered: new Set<string>() };
  const seen: Seen = {
    declared: (id) => stored.declared.has(id) || turn.declared.has(id),
    answered: (id) => stored.answered.has(id) || turn.answered.has(id),
  };
  const decisions: Decision[] = [];
  const saved: Message[] = [];
  const maxChars = options.maxToolResultChars ?? 16_000;
  for (const message of messages.slice(Math.max(0, options.initialLength))) {
    const verdict = check(message, seen);
    if (verdict !== undefined) {
      decisions.push(decision('message-drop', { stage: STAGE, reason: verdict, messageIds: [message.id] }));
      continue;
    }
    const cleaned = sanitize(message, maxChars);
    if (cleaned === undefined) {
      decisions.push(drop(message, 'user message with no content left after removing inline images'));
      continue;
    }
    if (cleaned !== message) {
      decisions.push(
        decision('message-rewrite', {
          stage: STAGE,
          reason: 'truncated a long tool result or replaced inline image data with a breadcrumb',
          messageIds: [message.id],
        }),
      );
    }
    addCallIds(cleaned, turn);
    saved.push(cleaned);
  }
  const withLatency = stampLatency(saved, options.latencyMs);
  await store.append(sessionKey, withLatency, options);
  return { saved: withLatency, decisions };
}

/** Whether a call id was declared, or answered, in the stored session or earlier in this turn. */
type Seen = { readonly declared: (id: string) => boolean; readonly answered: (id: string) => boolean };

function check(message: Message, seen: Seen): string | undefined {
  if (
    message.role === 'assistant' &&
    (message.toolCalls?.length ?? 0) === 0 &&
    isBlankContent(message.content)
  ) {
    return 'assistant message with empty content and no tool calls';
  }
  if (message.role !== 'tool') return undefined;
  const id = message.toolCallId;
  if (id === undefined || id === '') return 'tool result without a tool call id';
  if (!seen.declared(id)) return `tool result for undeclared call id '${id}'`;
  if (seen.answered(id)) return `duplicate tool result for call id '${id}' (the first is kept)`;
  return undefined;
}

function sanitize(message: Message, maxChars: number): Message | undefined {
  const { content } = message;
  if (typeof content === 'string') {
    if (message.role !== 'tool') return message;
    const truncated = truncateText(content, maxChars);
    return truncated === content ? message : { ...message, content: truncated };
  }
  const limit = message.role === 'tool' ? maxChars : 0;
  const parts = content.map((part) => sanitizePart(part, limit));
  if (parts.length === 0 && message.role === 'user') return undefined;
  if (parts.length === 0 && message.role === 'tool')
    return { ...message, content: [{ type: 'text', text: OMITTED }] };
  return parts.some((part, index) => part !== content[index]) ? { ...message, content: parts } : message;
}

function sanitizePart(part: ContentPart, maxChars: number): ContentPart {
  if (part.type === 'text') {
    const text = truncateText(part.text, maxChars);
    return text === part.text ? part : { ...part, text };
  }
  // Reasoning and provider parts are atomic: stored as they are.
  if (part.type === 'reasoning' || part.type === 'provider') return part;
  if (!part.url.startsWith('data:')) return part;
  const label = part.type === 'image' ? 'image' : 'file';
  const where = part.path ?? (part.type === 'file' ? part.filename : undefined);
  return { type: 'text', text: where === undefined ? `[${label}]` : `[${label}: ${where}]` };
}

function stampLatency(messages: readonly Message[], latencyMs: number | undefined): readonly Message[] {
  if (latencyMs === undefined) return messages;
  const index = messages.findLastIndex((message) => message.role === 'assistant');
  if (index < 0) return messages;
  return messages.map((message, position) => {
    if (position !== index) return message;
    const extra = message.metadata?.[NANOBOT_EXTRA_KEY];
    const base = isRecord(extra) ? extra : {};
    return {
      ...message,
      metadata: { ...message.metadata, [NANOBOT_EXTRA_KEY]: { ...base, latency_ms: latencyMs } },
    };
  });
}

function drop(message: Message, reason: string): Decision {
  return decision('message-drop', { stage: STAGE, reason, messageIds: [message.id] });
}
