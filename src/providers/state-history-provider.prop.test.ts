import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { assistant, tool, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { StateHistoryProvider } from './state-history-provider.js';
import { testBuildContext } from './test-context.js';

/** A legal conversation: user turns, plain replies and tool transactions (some results with toolResult). */
const conversation = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constant('user' as const), text: fc.string() }),
      fc.record({ kind: fc.constant('reply' as const), text: fc.string() }),
      fc.record({
        kind: fc.constant('transaction' as const),
        text: fc.string(),
        calls: fc.integer({ min: 1, max: 3 }),
        structured: fc.boolean(),
      }),
    ),
    { maxLength: 25 },
  )
  .map((units) => {
    const messages: Message[] = [];
    units.forEach((unit, index) => {
      if (unit.kind === 'user') messages.push(user(unit.text, { id: `u${index}` }));
      else if (unit.kind === 'reply') messages.push(assistant(unit.text, { id: `a${index}` }));
      else {
        const ids = Array.from({ length: unit.calls }, (_, call) => `c${index}_${call}`);
        const toolCalls = ids.map((id) => ({ id, name: 'run', arguments: { n: index } }));
        messages.push(assistant(unit.text, { id: `a${index}`, toolCalls }));
        for (const id of ids) {
          const metadata = unit.structured ? { toolResult: { ok: true, id } } : {};
          messages.push(tool(`result ${id}`, { id: `t${id}`, toolCallId: id, name: 'run', metadata }));
        }
      }
    });
    return messages;
  });

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
