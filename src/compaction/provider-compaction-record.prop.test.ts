import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { toAnthropicMessages } from '../adapters/to-anthropic-messages.js';
import { toOpenAIResponsesInput } from '../adapters/to-openai-responses-input.js';
import { applyCompactions, viewId } from '../core/apply-compactions.js';
import { COMPACTION_ID_KEY, type CompactionRecord } from '../core/compaction-record.js';
import { ContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { groupTransactions } from '../core/transactions.js';
import { validateCompactionLineage } from '../core/validate-compaction-lineage.js';
import { conversationArbitrary } from '../testing/arbitraries.js';
import { providerCompactionRecord } from './provider-compaction-record.js';

type Format = 'anthropic' | 'openai-responses';

/** A provider response compacting a request, as the server would shape it (a signed block or sealed item, then a reply). */
function responseOf(format: Format, serial: number): Record<string, unknown> {
  if (format === 'anthropic')
    return {
      model: 'claude-sonnet-5',
      stop_reason: 'end_turn',
      content: [
        {
          type: 'compaction',
          content: `summary ${serial}`,
          encrypted_content: `enc${serial}`,
          signature: `sig${serial}`,
        },
        { type: 'text', text: `reply ${serial}`, citations: null },
      ],
    };
  return {
    object: 'response',
    model: 'gpt-6-astra',
    previous_response_id: null,
    output: [
      { type: 'compaction', id: `cmp_${serial}`, encrypted_content: `sealed${serial}` },
      {
        type: 'message',
        id: `msg_${serial}`,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: `reply ${serial}`, annotations: [] }],
      },
    ],
  };
}

/** The raw ids a view item stands for: a summary through its record's `replaces`, recursively. */
function covered(item: Message, records: ReadonlyMap<string, CompactionRecord>): string[] {
  const recordId = item.metadata?.[COMPACTION_ID_KEY];
  if (typeof recordId !== 'string') return [item.id];
  const expand = (id: string): string[] => {
    const record = records.get(id);
    return record === undefined ? [id] : record.replaces.flatMap(expand);
  };
  return expand(recordId);
}

describe('provider compaction records (property)', () => {
  test.prop(
    [
      conversationArbitrary({ minUnits: 2, maxUnits: 14 }),
      fc.constantFrom<Format>('anthropic', 'openai-responses'),
      fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 4 }),
    ],
    { numRuns: 100 },
  )(
    'after chained provider compactions every message is sent once, the latest block first and alone, lineage and tool integrity hold',
    (conversation, format, batches) => {
      const units = groupTransactions(conversation).map((unit) => unit.messages);
      let history: Message[] = [];
      const records: CompactionRecord[] = [];
      let taken = 0;
      for (const [serial, batch] of batches.entries()) {
        history = [...history, ...units.slice(taken, taken + batch).flat()];
        taken += batch;
        const view = applyCompactions(history, records).view;
        let result: ReturnType<typeof providerCompactionRecord>;
        try {
          result = providerCompactionRecord({
            format,
            response: responseOf(format, serial),
            messages: view,
            generateId: () => `pc${serial}`,
          });
        } catch (error) {
          // Nothing left to stand for (only system messages or pins): refused, as documented.
          expect(ContextError.isInstance(error) && error.code).toBe('INVALID_INPUT');
          continue;
        }
        const record = result.record as CompactionRecord;
        records.push(record);
        history = [...history, ...result.reply];
      }
      const applied = applyCompactions(history, records);
      expect(applied.violations).toEqual([]);
      expect(validateCompactionLineage(history, records)).toEqual([]);
      const byId = new Map(records.map((record) => [record.id, record]));
      const reached = applied.view.flatMap((item) => covered(item, byId)).sort();
      expect(reached).toEqual(history.map((message) => message.id).sort());
      expect(validateToolCallIntegrity(applied.view)).toEqual(validateToolCallIntegrity(history));
      const latest = records.at(-1);
      if (latest === undefined) return;
      const conversationStart = applied.view.findIndex((message) => message.role !== 'system');
      expect(viewId(applied.view[conversationStart] as Message)).toBe(latest.id);
      if (format === 'anthropic') {
        const { messages } = toAnthropicMessages(applied.view);
        const blocks = messages.flatMap((message) =>
          typeof message.content === 'string'
            ? []
            : message.content.filter((block) => (block.type as string) === 'compaction'),
        );
        expect(blocks).toEqual([latest.providerPayload]);
        const opening = messages[0]?.content;
        expect(Array.isArray(opening) ? opening[0] : opening).toEqual(latest.providerPayload);
      } else {
        const { items } = toOpenAIResponsesInput(applied.view);
        const compactions = items.filter((item) => (item as { type?: string }).type === 'compaction');
        expect(compactions).toEqual([latest.providerPayload]);
        const first = items.findIndex(
          (item) => !['system', 'developer'].includes(String((item as { role?: string }).role)),
        );
        expect(items[first]).toEqual(latest.providerPayload);
      }
    },
  );
});
