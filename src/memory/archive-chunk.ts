import type { Message } from '../core/message.js';
import type { ChatResult } from '../llm/chat-model.js';
import type { ChatModelError } from '../llm/chat-model-error.js';
import { toChatModelError } from '../llm/to-chat-model-error.js';
import type { SessionRecord } from '../sessions/session-store.js';
import type { ArchiveOutcome } from './consolidation-result.js';
import type { HistorySink } from './history-sink.js';
import {
  DEFAULT_MEMORY_CONSOLIDATOR,
  type MemoryConsolidatorOptions,
} from './memory-consolidator-options.js';
import type { ArchiveRequestPlan } from './plan-archive-request.js';
import { formatRawArchiveEntries } from './raw-archive.js';
import { usableReplyText } from './usable-reply-text.js';

/** One archive step: the chunk's end and planned request, and what the consolidator supplies. */
export type ArchiveChunkStep = {
  readonly end: number;
  readonly plan: ArchiveRequestPlan;
  readonly signal: AbortSignal | undefined;
  readonly options: MemoryConsolidatorOptions;
  /** Where summaries and raw archive entries are appended. */
  readonly history: HistorySink;
};

/**
 * Archives `messages[lastConsolidated:end]` of a loaded session: the model's summary is appended to the
 * history, or the chunk is archived raw (too large for one request, a transient model failure, or an
 * unusable reply with `unusableReply: 'raw-archive'`). Does not move the pointer.
 * @throws ChatModelError on a configuration failure or an unusable reply (nothing archived)
 */
export async function archiveChunk(record: SessionRecord, step: ArchiveChunkStep): Promise<ArchiveOutcome> {
  const { options, history } = step;
  const chunk = record.messages.slice(record.lastConsolidated, step.end);
  const raw = async (reason: string, failure?: ChatModelError): Promise<ArchiveOutcome> => {
    const maxChars = options.maxRawArchiveChars ?? DEFAULT_MEMORY_CONSOLIDATOR.maxRawArchiveChars;
    const entries = formatRawArchiveEntries(chunk, maxChars);
    for (const entry of entries) await history.append(entry, { sessionKey: record.key, maxChars });
    return { kind: 'raw', reason, entries: entries.length, ...(failure === undefined ? {} : { failure }) };
  };
  if (step.plan.kind === 'too-large') return raw(step.plan.reason);
  const purpose = `the summary of ${record.key} messages ${record.lastConsolidated}–${step.end}`;
  const unchanged = `Nothing was archived; ${record.key} stays archived up to message ${record.lastConsolidated}.`;
  let text: string;
  try {
    const reply = await generate(step.plan.messages, step);
    text = usableReplyText(reply, { purpose, maxOutputTokens: options.maxOutputTokens });
  } catch (error) {
    const failure = toChatModelError(error);
    if (failure === undefined) throw error;
    if (failure.kind === 'transient') return raw(`the model failed: ${failure.message}`, failure);
    if (failure.kind === 'unusable-reply' && options.unusableReply === 'raw-archive')
      return raw(failure.message, failure);
    throw failure.withNote(unchanged);
  }
  if (text === '(nothing)') return { kind: 'nothing' };
  await history.append(text, {
    sessionKey: record.key,
    maxChars: options.maxSummaryChars ?? DEFAULT_MEMORY_CONSOLIDATOR.maxSummaryChars,
  });
  return { kind: 'summary', text };
}

function generate(
  messages: readonly Message[],
  step: Pick<ArchiveChunkStep, 'options' | 'signal'>,
): Promise<ChatResult> {
  const tools = step.options.tools ?? [];
  return step.options.model.generate({
    messages,
    ...(tools.length === 0 ? {} : { tools, toolChoice: 'none' as const }),
    maxOutputTokens: step.options.maxOutputTokens,
    ...(step.signal === undefined ? {} : { signal: step.signal }),
  });
}
