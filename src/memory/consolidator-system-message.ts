import { system } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { archivedSummaryOf } from '../sessions/replay-session.js';
import type { SessionRecord } from '../sessions/session-store.js';
import {
  DEFAULT_MEMORY_CONSOLIDATOR,
  type MemoryConsolidatorOptions,
} from './memory-consolidator-options.js';

/** The ordinary turn's system prompt for a session (given its archived summary), as archive requests send it. */
export async function consolidatorSystemMessage(
  record: SessionRecord,
  options: Pick<MemoryConsolidatorOptions, 'systemPrompt'>,
): Promise<Message> {
  const summary = archivedSummaryOf(record);
  const source = options.systemPrompt;
  const text =
    source === undefined
      ? DEFAULT_MEMORY_CONSOLIDATOR.systemPrompt
      : await source({ sessionKey: record.key, ...(summary === undefined ? {} : { summary }) });
  return system(text, { id: 'system-prompt' });
}
