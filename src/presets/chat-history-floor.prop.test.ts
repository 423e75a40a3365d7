import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { Message } from '../core/message.js';
import { sanitizeToolCallHistory } from '../filters/sanitize-tool-call-history.js';
import { conversationArbitrary, malformedConversationArbitrary } from '../testing/arbitraries.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { chatHistoryFloor } from './chat-history-floor.js';

const counter = new SimpleTokenCounter();
const anyConversation = fc.oneof(
  conversationArbitrary({ maxUnits: 12, maxTextLength: 60 }),
  malformedConversationArbitrary({ maxUnits: 12, maxTextLength: 60 }),
);

describe('chatHistoryFloor', () => {
  test.prop([anyConversation, anyConversation, fc.nat(12)], { numRuns: 300 })(
    'a message with a positive floor is sent as it is and counted as much, whatever is appended later',
    (history, later, cut) => {
      // The windows use floors only where no call id is declared by two messages (they fall back).
      const declared = history.flatMap((message) => [
        ...new Set((message.toolCalls ?? []).map((call) => call.id)),
      ]);
      fc.pre(new Set(declared).size === declared.length);
      // What comes after may start inside the history's last tool run (a late or duplicate result).
      const appended = [...history, ...later.slice(Math.min(cut, later.length))];
      const ending: Message = { id: 'end', role: 'user', content: 'end' };
      const sent = new Set(sanitizeToolCallHistory([...appended, ending]).messages);
      history.forEach((message, index) => {
        const floor = chatHistoryFloor(history, {
          index,
          counter,
          input: {},
          tag: (tagged) => tagged,
        });
        if (floor === 0) return;
        expect(sent.has(message)).toBe(true);
        expect(floor).toBe(counter.countMessage(message));
      });
    },
  );
});
