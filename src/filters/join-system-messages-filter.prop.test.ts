import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { system } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { testBuildContext } from '../providers/test-context.js';
import { conversationArbitrary } from '../testing/arbitraries.js';
import { JoinSystemMessagesFilter, type SystemPromptPart } from './join-system-messages-filter.js';

const parts = fc.array(
  fc.record({ section: fc.constantFrom('identity', 'memory', 'skills-index'), text: fc.string() }),
  { minLength: 0, maxLength: 6 },
);

describe('JoinSystemMessagesFilter invariants', () => {
  test.prop([parts, conversationArbitrary()])(
    'keeps the tail in order, slices back into the parts exactly, and is idempotent',
    (prefix, conversation) => {
      const leading = prefix.map((part, index) =>
        system(part.text, { id: `s${index}`, metadata: { section: part.section } }),
      );
      const tail = conversation.filter((message: Message) => message.role !== 'system');
      const filter = new JoinSystemMessagesFilter();
      const first = filter.apply([...leading, ...tail], {}, testBuildContext());
      const kept = first.messages.slice(leading.length === 0 ? 0 : 1);
      expect(kept).toEqual(tail);
      if (leading.length > 0) {
        const joined = first.messages[0];
        const recorded = joined?.metadata?.['parts'] as readonly SystemPromptPart[]; // written by the filter
        let offset = 0;
        const text = String(joined?.content);
        for (const [index, part] of recorded.entries()) {
          expect(text.slice(offset, offset + part.chars)).toBe(prefix[index]?.text);
          offset += part.chars + '\n\n---\n\n'.length;
        }
      }
      const second = filter.apply(first.messages, {}, testBuildContext());
      expect(second.messages).toBe(first.messages);
      expect(second.decisions).toEqual([]);
    },
  );
});
