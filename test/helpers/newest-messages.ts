import type { SessionRecord } from '../../src/sessions/session-store.js';

/** What a load of the newest `lastMessages` (`undefined`: all) gives, from a load of every message. */
export function newestMessages(record: SessionRecord, lastMessages: number | undefined): SessionRecord {
  const firstIndex = Math.max(0, record.messages.length - (lastMessages ?? Number.POSITIVE_INFINITY));
  return firstIndex === 0 ? record : { ...record, messages: record.messages.slice(firstIndex), firstIndex };
}
