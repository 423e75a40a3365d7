import { fc } from '@fast-check/vitest';
import { textOf } from '../../src/core/index.js';
import type { Message } from '../../src/index.js';

/** One turn of a growing session: append messages, edit an old one, send the same again, reuse a call id. */
export type SessionStep =
  | { readonly kind: 'grow'; readonly by: number }
  | { readonly kind: 'edit'; readonly at: number }
  | { readonly kind: 'same' }
  | { readonly kind: 'reuse-call-id' };

/** Steps, mostly growth. */
export const sessionStepArbitrary: fc.Arbitrary<SessionStep> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('grow' as const), by: fc.integer({ min: 1, max: 8 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('edit' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'same' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reuse-call-id' as const }) },
);

/**
 * Applies one step to a session whose history is the first `length` messages of `master` (changed
 * in place: an edit replaces a message by a new object, a reused call id inserts a turn), and
 * returns the history's new length.
 */
export function applySessionStep(
  step: SessionStep,
  session: { readonly master: Message[]; readonly length: number; readonly turn: number },
): number {
  const { master, length } = session;
  switch (step.kind) {
    case 'reuse-call-id': {
      const turnMessages = reusedCallTurn(master, session.turn);
      master.splice(length, 0, ...turnMessages);
      // The whole turn, or only its first one or two messages (later steps bring the rest, so the
      // reused id arrives as the first message of a turn too).
      return length + 1 + (session.turn % turnMessages.length);
    }
    case 'grow':
      return Math.min(master.length, length + step.by);
    case 'edit': {
      const old = length === 0 ? undefined : master[step.at % length];
      if (old !== undefined)
        master[step.at % length] = { ...old, content: `${textOf(old.content)} (edited)` };
      return length;
    }
    case 'same':
      return length;
  }
}

/** A later turn that reuses the first call id of the session (providers do), with its result. */
function reusedCallTurn(master: readonly Message[], turn: number): readonly Message[] {
  const id = master.find((message) => (message.toolCalls?.length ?? 0) > 0)?.toolCalls?.[0]?.id ?? 'call-1';
  return [
    { id: `reuse-u-${turn}`, role: 'user', content: 'again' },
    {
      id: `reuse-a-${turn}`,
      role: 'assistant',
      content: '',
      toolCalls: [{ id, name: 'exec', arguments: '{}' }],
    },
    { id: `reuse-t-${turn}`, role: 'tool', toolCallId: id, name: 'exec', content: 'output again' },
  ];
}
