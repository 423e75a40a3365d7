import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { user } from '../core/factories.js';
import { conversationArbitrary } from '../testing/arbitraries.js';
import { MergeCurrentMessageFilter } from './merge-current-message-filter.js';

describe('MergeCurrentMessageFilter invariants', () => {
  test.prop([conversationArbitrary(), fc.string()])(
    'keeps every other message in order, merges at most one, and is idempotent',
    (history, text) => {
      const current = user(text, { id: 'current', metadata: { section: 'current-message' } });
      const filter = new MergeCurrentMessageFilter();
      const first = filter.apply([...history, current]);
      const merged = first.messages.length === history.length;
      expect(first.messages.length === history.length + 1 || merged).toBe(true);
      expect(first.messages.slice(0, history.length - (merged ? 1 : 0))).toEqual(
        history.slice(0, history.length - (merged ? 1 : 0)),
      );
      expect(first.messages.at(-1)?.id).toBe('current');
      const second = filter.apply(first.messages);
      expect(second.messages).toBe(first.messages);
    },
  );
});
