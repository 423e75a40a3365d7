import { sectionOf } from '../core/index.js';
import type { Decision, Message } from '../index.js';
import { messageText } from '../tokens/index.js';

/**
 * How one message fared between the store and the model. A stored message the replay left out is
 * `archived` (before the consolidation pointer: summarised into memory) or `boundary-skipped` (after
 * it, but cut by the replay's window or its legal-start rule).
 */
export type HistoryStatus = 'kept' | 'rewritten' | 'dropped' | 'archived' | 'boundary-skipped' | 'added';

/** One row of a {@link HistoryDiff} column. */
export type HistoryDiffEntry = {
  readonly id: string;
  readonly role: Message['role'];
  /** The message's text as counters see it (content, tool calls, reasoning). */
  readonly text: string;
  /** The content alone, for display: text parts, and `[image]` / `[file]` for media parts. */
  readonly content: string;
  readonly status: HistoryStatus;
  /** The reasons of the decisions that name this message. */
  readonly reasons: readonly string[];
  /** The section (provider id) of a sent message. */
  readonly section?: string;
  /** The tool calls of an assistant message. */
  readonly toolCalls?: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
  /** The call a tool result answers, and the tool's name when the message carries it. */
  readonly toolCallId?: string;
  readonly name?: string;
};

/** The stored history next to what the model receives. */
export type HistoryDiff = {
  /** Every stored message: kept, rewritten, dropped by a filter, or not replayed at all. */
  readonly stored: readonly HistoryDiffEntry[];
  /** Every sent message: kept, rewritten, or added by the build (system prompt, current message, fills). */
  readonly sent: readonly HistoryDiffEntry[];
};

/** Options for {@link diffHistory}. */
export type DiffHistoryOptions = {
  /** The session's stored messages. */
  readonly stored: readonly Message[];
  /** The history handed to the builder after replay. @default `stored` */
  readonly replayed?: readonly Message[];
  /** The messages the build produced. */
  readonly sent: readonly Message[];
  /** The build's decisions; their reasons are attached to the messages they name. */
  readonly decisions?: readonly Decision[];
  /** Stored messages before this index were archived by consolidation. @default 0 */
  readonly lastConsolidated?: number;
};

/**
 * Lines up the stored history with what the model receives, by message id: a stored message that the
 * replay left out is `archived` or `boundary-skipped`, one the filters removed is `dropped`, one whose content, tool
 * calls or tool-call id changed is `rewritten`; a sent message with no stored counterpart is `added`.
 * Pure; the inputs are not changed.
 */
export function diffHistory(options: DiffHistoryOptions): HistoryDiff {
  const reasons = reasonsById(options.decisions ?? []);
  const replayed = new Map((options.replayed ?? options.stored).map((message) => [message.id, message]));
  const sent = new Map(options.sent.map((message) => [message.id, message]));
  const storedIds = new Set(options.stored.map((message) => message.id));
  const entry = (message: Message, status: HistoryStatus): HistoryDiffEntry => {
    const section = sectionOf(message);
    return {
      id: message.id,
      role: message.role,
      text: messageText(message),
      content: displayContent(message),
      status,
      reasons: reasons.get(message.id) ?? [],
      ...(section === undefined ? {} : { section }),
      ...(message.toolCalls === undefined || message.toolCalls.length === 0
        ? {}
        : {
            toolCalls: message.toolCalls.map((call) => ({
              id: call.id,
              name: call.name,
              arguments: call.arguments,
            })),
          }),
      ...(message.toolCallId === undefined ? {} : { toolCallId: message.toolCallId }),
      ...(message.name === undefined ? {} : { name: message.name }),
    };
  };
  const archivedBefore = options.lastConsolidated ?? 0;
  return {
    stored: options.stored.map((message, index) => {
      const replay = replayed.get(message.id);
      if (replay === undefined)
        return entry(message, index < archivedBefore ? 'archived' : 'boundary-skipped');
      const out = sent.get(message.id);
      if (out === undefined) return entry(message, 'dropped');
      return entry(message, isSame(message, out) ? 'kept' : 'rewritten');
    }),
    sent: options.sent.map((message) => {
      if (!storedIds.has(message.id)) return entry(message, 'added');
      const before = replayed.get(message.id);
      return entry(message, before !== undefined && isSame(before, message) ? 'kept' : 'rewritten');
    }),
  };
}

function reasonsById(decisions: readonly Decision[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const decision of decisions) {
    for (const id of decision.messageIds) {
      const list = map.get(id) ?? [];
      list.push(`${decision.type} by ${decision.stage}: ${decision.reason}`);
      map.set(id, list);
    }
  }
  return map;
}

function isSame(a: Message, b: Message): boolean {
  return (
    a.role === b.role &&
    JSON.stringify(a.content) === JSON.stringify(b.content) &&
    JSON.stringify(a.toolCalls ?? []) === JSON.stringify(b.toolCalls ?? []) &&
    a.toolCallId === b.toolCallId
  );
}

function displayContent(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
}
