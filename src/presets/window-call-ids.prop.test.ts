import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { Message } from '../core/message.js';
import { WindowCallIds } from './window-call-ids.js';

/** An assistant message calling these ids (ids drawn from a small set, so they repeat). */
function caller(index: number, ids: readonly string[]): Message {
  return {
    id: `m${index}`,
    role: 'assistant',
    content: '',
    ...(ids.length === 0 ? {} : { toolCalls: ids.map((id) => ({ id, name: 'exec', arguments: '{}' })) }),
  };
}

/** The whole window checked from scratch: unique ids, none left out. */
function checkedWhole(
  history: readonly Message[],
  window: { readonly start: number; readonly leftOut: ReadonlySet<string> },
): boolean {
  const ids = history
    .slice(window.start)
    .flatMap((message) => (message.toolCalls ?? []).map((call) => call.id));
  return new Set(ids).size === ids.length && ids.every((id) => !window.leftOut.has(id));
}

const turnArbitrary = fc.record({
  grow: fc.array(fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'x'), { maxLength: 2 }), {
    maxLength: 4,
  }),
  advance: fc.nat({ max: 3 }),
});

describe('WindowCallIds', () => {
  test.prop([fc.array(turnArbitrary, { minLength: 1, maxLength: 12 })])(
    'a kept window answers what a window checked whole answers, over a growing history',
    (turns) => {
      const kept = new WindowCallIds();
      const history: Message[] = [];
      // An id of the part left out before this history began: new calls may reuse it.
      const leftOut = new Set<string>(['x']);
      let start = 0;
      for (const turn of turns) {
        for (const ids of turn.grow) history.push(caller(history.length, ids));
        const next = Math.min(history.length, start + turn.advance);
        // What leaves the window becomes left out (the window's own bookkeeping does the same).
        for (let index = start; index < next; index += 1) {
          for (const call of history[index]?.toolCalls ?? []) leftOut.add(call.id);
        }
        start = next;
        const window = { start, leftOut };
        expect(kept.areFree(history, window)).toBe(checkedWhole(history, window));
      }
    },
  );
});
