import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capPins, type PinnedUnit, type PinReason } from './pinned-context.js';

const reasons: readonly PinReason[] = ['user-request', 'marked', 'user-message', 'tool-result'];

/** Pins in order, each a one-message unit with a reason and a token count. */
const pinsArbitrary = fc
  .array(fc.record({ reason: fc.constantFrom(...reasons), tokens: fc.integer({ min: 1, max: 400 }) }), {
    maxLength: 30,
  })
  .map((specs): readonly PinnedUnit[] =>
    specs.map((spec, index) => ({
      unit: { kind: 'single', start: index, messages: [{ id: `m${index}`, role: 'user', content: 'x' }] },
      reason: spec.reason,
      tokens: spec.tokens,
    })),
  );

const sum = (pins: readonly PinnedUnit[]): number => pins.reduce((total, pin) => total + pin.tokens, 0);

describe('capPins', () => {
  it('keeps the order, never drops a latest user request, fits the cap unless those alone exceed it, and gives way by reason', () => {
    fc.assert(
      fc.property(pinsArbitrary, fc.integer({ min: 0, max: 4000 }), (pins, maxTokens) => {
        const { kept, dropped } = capPins(pins, maxTokens);
        expect([...kept, ...dropped].length).toBe(pins.length);
        expect(kept).toEqual(pins.filter((pin) => kept.includes(pin)));
        expect(dropped.some((pin) => pin.reason === 'user-request')).toBe(false);
        const requests = sum(pins.filter((pin) => pin.reason === 'user-request'));
        if (requests <= maxTokens) expect(sum(kept)).toBeLessThanOrEqual(maxTokens);
        if (sum(pins) <= maxTokens) expect(dropped).toEqual([]);
        // A marked pin goes only once every tool result and user message is gone; a user message only
        // once every tool result is gone.
        if (dropped.some((pin) => pin.reason === 'marked'))
          expect(kept.some((pin) => pin.reason === 'tool-result' || pin.reason === 'user-message')).toBe(
            false,
          );
        if (dropped.some((pin) => pin.reason === 'user-message'))
          expect(kept.some((pin) => pin.reason === 'tool-result')).toBe(false);
      }),
    );
  });

  it('gives up user messages from the middle: the kept ones are a head and a tail of them', () => {
    fc.assert(
      fc.property(pinsArbitrary, fc.integer({ min: 0, max: 4000 }), (pins, maxTokens) => {
        const users = pins.filter((pin) => pin.reason === 'user-message');
        const { kept } = capPins(pins, maxTokens);
        const flags = users.map((pin) => kept.includes(pin));
        // kept* dropped* kept*: at most one run of dropped ones.
        const shape = flags.map((flag) => (flag ? 'k' : 'd')).join('');
        expect(shape).toMatch(/^k*d*k*$/);
      }),
    );
  });
});
