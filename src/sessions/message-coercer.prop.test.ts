import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { ContextError } from '../core/errors.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import { safeParseMessage } from '../core/message-schema.js';
import { messageArbitrary } from '../testing/arbitraries.js';
import { LenientMessageCoercer } from './lenient-message-coercer.js';
import { MemorySessionStore } from './memory-session-store.js';
import { MessageStore } from './message-store.js';
import { StrictMessageCoercer } from './strict-message-coercer.js';

const context = () => ({ path: 'input', generateId: createSequentialIdGenerator('p') });
const loose = fc.oneof(
  fc.jsonValue(),
  fc.record({ role: fc.string(), content: fc.jsonValue() }, { requiredKeys: [] }),
  fc.record({ type: fc.constantFrom('human', 'ai', 'system', 'tool', 'x'), content: fc.jsonValue() }),
);

describe('message coercers', () => {
  test.prop([messageArbitrary().filter((message) => safeParseMessage(message).success)])(
    'strict accepts every valid message unchanged',
    (message) => {
      expect(new StrictMessageCoercer().coerce(message, context())).toEqual(message);
    },
  );

  test.prop([loose])(
    'lenient returns a schema-valid message or throws INVALID_INPUT, nothing else',
    (value) => {
      try {
        const message = new LenientMessageCoercer().coerce(value, context());
        expect(safeParseMessage(message).success).toBe(true);
      } catch (error) {
        expect(ContextError.isInstance(error) && error.code === 'INVALID_INPUT').toBe(true);
      }
    },
  );

  test.prop([fc.array(fc.oneof(messageArbitrary(), loose), { maxLength: 6 })])(
    'a strict batch is written whole or not at all',
    async (batch) => {
      const store = new MessageStore({ sessionKey: 'k', store: new MemorySessionStore() });
      const written = await store.append(batch).then(
        (messages) => messages.length,
        (error: unknown) => {
          // Only a strict-coercion refusal may write nothing; any other failure fails the property.
          expect(error).toMatchObject({ code: 'INVALID_INPUT' });
          return 0;
        },
      );
      expect((await store.messages()).length).toBe(written);
      if (written > 0) expect(written).toBe(batch.length);
    },
  );
});
