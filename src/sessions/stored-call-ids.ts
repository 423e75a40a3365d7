import { extendsMarkedList, type ListMark, markList } from '../core/list-mark.js';
import type { Message } from '../core/message.js';
import type { SessionStore } from './session-store.js';

/** The tool call ids a stored session declares (assistant calls) and answers (tool results). */
export type CallIds = { readonly declared: ReadonlySet<string>; readonly answered: ReadonlySet<string> };

/** What was worked out for the last session seen in a store: its messages then, and their ids. */
type Known = {
  readonly sessionKey: string;
  readonly mark: ListMark<Message>;
  readonly declared: Set<string>;
  readonly answered: Set<string>;
};

/** Per store, the last session seen (one, so what is kept stays the size of one session's ids). */
const KNOWN = new WeakMap<SessionStore, Known>();

/**
 * The call ids `stored` (a session's messages, as `store` loaded them) declares and answers. The ids
 * of the last session seen in each store are kept: when `stored` starts with the same message objects
 * (compared by identity, one pointer each; ctxloom's stores give old messages back as the same
 * objects), only the messages after them are read, so saving a turn does not read the whole session
 * again. Anything else (another session, a rewrite, a store that makes new objects) reads them all.
 * @internal
 */
export function storedCallIds(
  store: SessionStore,
  session: { readonly sessionKey: string; readonly stored: readonly Message[] },
): CallIds {
  const { sessionKey, stored } = session;
  const known = KNOWN.get(store);
  const kept = known?.sessionKey === sessionKey && extendsMarkedList(known.mark, stored) ? known : undefined;
  // Extended in place: the sets belong to the newest `Known` only, which replaces the old one.
  const declared = kept?.declared ?? new Set<string>();
  const answered = kept?.answered ?? new Set<string>();
  for (let index = kept?.mark.length ?? 0; index < stored.length; index += 1)
    addCallIds(stored[index] as Message, { declared, answered });
  KNOWN.set(store, { sessionKey, mark: markList(stored), declared, answered });
  return { declared, answered };
}

/** Adds the ids `message` declares (its tool calls) and answers (a tool result's id). */
export function addCallIds(
  message: Message,
  ids: { readonly declared: Set<string>; readonly answered: Set<string> },
): void {
  for (const call of message.toolCalls ?? []) ids.declared.add(call.id);
  if (message.role === 'tool' && message.toolCallId !== undefined) ids.answered.add(message.toolCallId);
}
