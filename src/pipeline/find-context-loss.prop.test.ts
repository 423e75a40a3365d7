import { test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { Message } from '../core/message.js';
import { conversationArbitrary } from '../testing/arbitraries.js';
import { ContextPipeline } from './context-pipeline.js';
import type { ContextFilter } from './contracts.js';

/** Keeps the system messages and the newest turn (from the newest user message on). */
const keepNewestTurn: ContextFilter = {
  id: 'keep-newest-turn',
  apply(messages) {
    const start = messages.findLastIndex((message) => message.role === 'user');
    const dropped = messages.filter((message, index) => index < start && message.role !== 'system');
    return {
      messages: messages.filter((message, index) => index >= start || message.role === 'system'),
      decisions:
        dropped.length === 0
          ? []
          : [
              {
                type: 'message-drop',
                stage: 'keep-newest-turn',
                reason: 'test',
                messageIds: dropped.map((m) => m.id),
              },
            ],
    };
  },
};

const lossTypes = (warnings: readonly { readonly check: string; readonly type: string }[] = []) =>
  warnings.filter((warning) => warning.check === 'context-loss').map((warning) => warning.type);

describe('context-loss warnings (properties)', () => {
  test.prop([conversationArbitrary({ endsWithUser: true, maxUnits: 10 })])(
    'a pipeline that changes nothing never warns',
    async (messages: readonly Message[]) => {
      const { trace } = await new ContextPipeline().transform(messages);
      expect(lossTypes(trace.warnings)).toEqual([]);
    },
  );

  test.prop([conversationArbitrary({ endsWithUser: true, maxUnits: 10 })])(
    'cutting to the newest turn warns exactly when there was history before it',
    async (messages: readonly Message[]) => {
      const { trace } = await new ContextPipeline({ filters: [keepNewestTurn] }).transform(messages);
      const start = messages.findLastIndex((message) => message.role === 'user');
      const hadHistory = messages.some((message, index) => index < start && message.role !== 'system');
      expect(lossTypes(trace.warnings)).toEqual(hadHistory ? ['history-dropped'] : []);
    },
  );
});
