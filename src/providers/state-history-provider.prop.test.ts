import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { conversationArbitrary } from '../testing/arbitraries.js';
import { StateHistoryProvider } from './state-history-provider.js';
import { testBuildContext } from './test-context.js';

/** A legal conversation (the shared arbitrary) where some tool results carry `metadata.toolResult`. */
const conversation = fc
  .tuple(
    conversationArbitrary(),
    fc.array(fc.oneof(fc.constant(undefined), fc.boolean(), fc.jsonValue()), { minLength: 8, maxLength: 8 }),
  )
  .map(([messages, results]) =>
    messages.map((message, index): Message => {
      const toolResult = results[index % results.length];
      if (message.role !== 'tool' || toolResult === undefined) return message;
      return { ...message, metadata: { toolResult } };
    }),
  );

describe('StateHistoryProvider properties', () => {
  test.prop([conversation, fc.boolean()])('never mutates the history', async (history, annotate) => {
    const snapshot = structuredClone(history);
    await new StateHistoryProvider({ annotate }).getMessages({ history }, testBuildContext());
    expect(history).toEqual(snapshot);
  });

  test.prop([conversation])(
    'annotated output stays legal and keeps every message in order',
    async (history) => {
      const messages = await new StateHistoryProvider({ annotate: true }).getMessages(
        { history },
        testBuildContext(),
      );
      expect(validateToolCallIntegrity(messages)).toEqual([]);
      const body = messages.filter((message) => message.metadata?.['semanticKind'] !== 'history_semantics');
      expect(body.map((message) => message.id)).toEqual(history.map((message) => message.id));
      expect(body.map((message) => message.toolCalls)).toEqual(history.map((message) => message.toolCalls));
      const inserted = messages.length - history.length;
      expect(inserted).toBe(body.some((message, index) => message !== history[index]) ? 1 : 0);
      if (inserted === 1) expect(messages[0]?.role).toBe('system');
    },
  );
});
