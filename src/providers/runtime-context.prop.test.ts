import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { Message } from '../core/message.js';
import { appendRuntimeContext } from './runtime-context.js';
import { stripRuntimeContext } from './strip-runtime-context.js';

const block = fc.record({ source: fc.string(), content: fc.string() });
const parts = fc.array(
  fc.string().map((text) => ({ type: 'text' as const, text })),
  { maxLength: 4 },
);

describe('runtime context', () => {
  test.prop([fc.oneof(fc.string(), parts), fc.array(block, { maxLength: 5 })])(
    'stripping what was appended gives back the user content exactly',
    (content, blocks) => {
      const appended = appendRuntimeContext(content, blocks);
      const message: Message = {
        id: 'm',
        role: 'user',
        content: appended.content,
        ...(appended.marker === undefined ? {} : { metadata: { runtimeContext: appended.marker } }),
      };
      expect(stripRuntimeContext(message).content).toEqual(content);
      // the user's content always comes first
      if (typeof content === 'string' && typeof appended.content === 'string') {
        expect(appended.content.startsWith(content)).toBe(true);
      }
    },
  );
});
