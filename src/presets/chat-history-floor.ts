import type { Message } from '../core/message.js';
import type { HistoryFloor } from './history-window.js';

/**
 * The floor of a history message in the chat, ReAct and skill presets (see `HistoryFloor`): what the
 * token budget counts for it once the tool-call sanitizing step ran. That step passes user
 * messages, assistant answers without tool calls and whole transactions as they are; a transaction
 * is whole when every call has an id and a name, no id appears twice, and the run of results after
 * it answers each call exactly once (the history windows fall back when an id is reused elsewhere).
 * Anything else may be dropped or changed (0), and so may a transaction whose run of results reaches
 * the end of the history, since a later message may still join that run.
 */
export const chatHistoryFloor: HistoryFloor = (history, { index, counter }) =>
  isSentAsItIs(history, index) ? counter.countMessage(history[index] as Message) : 0;

/**
 * The floor of a history message under a message limit (`maxMessages` without a token budget): 1 for
 * a message the sanitizing step passes as it is (see {@link chatHistoryFloor}), else 0.
 */
export const chatMessageFloor: HistoryFloor = (history, { index }) => (isSentAsItIs(history, index) ? 1 : 0);

/** True when the tool-call sanitizing step passes `history[index]` as it is, whatever is appended. */
function isSentAsItIs(history: readonly Message[], index: number): boolean {
  const message = history[index] as Message; // the window stays in range
  switch (message.role) {
    case 'user':
      return true;
    case 'assistant':
      return message.toolCalls === undefined || isWholeTransaction(history, index);
    case 'tool': {
      let caller = index - 1;
      while (caller >= 0 && history[caller]?.role === 'tool') caller -= 1;
      return isWholeTransaction(history, caller);
    }
    default:
      return false;
  }
}

/** True when `history[index]` is an assistant whose calls and the run of results after it are whole. */
function isWholeTransaction(history: readonly Message[], index: number): boolean {
  const calls = history[index]?.toolCalls ?? [];
  if (history[index]?.role !== 'assistant' || calls.length === 0) return false;
  const pending = new Set<string>();
  for (const call of calls) {
    if (!isNonEmptyString(call.id) || !isNonEmptyString(call.name) || pending.has(call.id)) return false;
    pending.add(call.id);
  }
  let end = index + 1;
  for (; end < history.length && history[end]?.role === 'tool'; end += 1) {
    const id = history[end]?.toolCallId;
    if (id === undefined || !pending.delete(id)) return false;
  }
  return pending.size === 0 && end < history.length;
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}
