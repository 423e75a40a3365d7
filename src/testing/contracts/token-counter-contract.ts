import * as fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { assistant, tool, user } from '../../core/factories.js';
import type { Message } from '../../core/message.js';
import { CachedTokenCounter } from '../../tokens/cached-token-counter.js';
import { DEFAULT_MESSAGE_COST, type TokenCounter } from '../../tokens/token-counter.js';
import { messageArbitrary, textArbitrary, toolDefinitionsArbitrary } from '../arbitraries.js';

/** Options for {@link describeTokenCounterContract}. */
export type TokenCounterContractOptions = {
  /** The name shown in the test report. */
  readonly name: string;
  /** Makes the counter under test (once per suite). */
  readonly create: () => TokenCounter | Promise<TokenCounter>;
  /** Tokens a concatenation may differ from its parts (BPE merges or splits at the seam). @default 3 */
  readonly tolerance?: number;
  /** The counter's per-message overhead: `countMessage` is at least this. @default 4 */
  readonly messageOverheadTokens?: number;
  /** fast-check runs per property. @default 100 */
  readonly numRuns?: number;
};

/**
 * The conformance suite every {@link TokenCounter} passes (built-in or third-party): 0 for `''`,
 * never negative, monotone under concatenation within a tolerance, `countMessage` at least the
 * per-message overhead, a flat cost per image (a 1 MB data URL costs what a tiny one does),
 * `countMessages` is the sum of `countMessage`, `countTools([])` is 0, counts are deterministic, and
 * the caching wrapper returns the same numbers.
 * @example describeTokenCounterContract({ name: 'simple', create: () => new SimpleTokenCounter() });
 */
export function describeTokenCounterContract(options: TokenCounterContractOptions): void {
  const tolerance = options.tolerance ?? 3;
  const overhead = options.messageOverheadTokens ?? DEFAULT_MESSAGE_COST.messageOverheadTokens;
  const runs = { numRuns: options.numRuns ?? 100 };
  describe(`TokenCounter contract: ${options.name}`, () => {
    let counter: TokenCounter;
    beforeAll(async () => {
      counter = await options.create();
    }, 60_000);

    it('counts 0 for an empty text and for no tools', () => {
      expect(counter.countText('')).toBe(0);
      expect(counter.countTools([])).toBe(0);
      expect(counter.countMessages([])).toBe(0);
    });

    it('declares the v1 contract and an id', () => {
      expect(counter.specificationVersion).toBe('v1');
      expect(counter.id).toMatch(/\S/);
    });

    it('never counts a negative or fractional number, and counts the same twice', () => {
      fc.assert(
        fc.property(textArbitrary(200), messageArbitrary(), (text, message) => {
          for (const count of [counter.countText(text), counter.countMessage(message)]) {
            expect(Number.isInteger(count) && count >= 0).toBe(true);
          }
          expect(counter.countText(text)).toBe(counter.countText(text));
        }),
        runs,
      );
    });

    it(`is monotone under concatenation within ${tolerance} tokens`, () => {
      fc.assert(
        fc.property(textArbitrary(200), textArbitrary(200), (left, right) => {
          const whole = counter.countText(left + right);
          expect(whole).toBeGreaterThanOrEqual(
            Math.max(counter.countText(left), counter.countText(right)) - tolerance,
          );
          expect(whole).toBeLessThanOrEqual(counter.countText(left) + counter.countText(right) + tolerance);
        }),
        runs,
      );
    });

    it('counts a message at least the per-message overhead plus its text', () => {
      fc.assert(
        fc.property(messageArbitrary(), (message) => {
          expect(counter.countMessage(message)).toBeGreaterThanOrEqual(overhead);
        }),
        runs,
      );
      const text = 'The quick brown fox jumps over the lazy dog.';
      expect(counter.countMessage(user(text))).toBeGreaterThanOrEqual(counter.countText(text) + overhead);
    });

    it('counts an image at a flat cost: a 1 MB data URL costs what a tiny one does', () => {
      const huge = `data:image/png;base64,${'A'.repeat(1_000_000)}`;
      const tiny = 'data:image/png;base64,AAAA';
      const withImage = (url: string): Message =>
        user([
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image', url, mediaType: 'image/png' },
        ]);
      expect(counter.countMessage(withImage(huge))).toBe(counter.countMessage(withImage(tiny)));
      expect(counter.countMessage(withImage(tiny))).toBeGreaterThan(
        counter.countMessage(user('What is in this picture?')),
      );
    });

    it('counts a list as the sum of its messages, tool calls and results included', () => {
      const messages = [
        user('Read the notes.'),
        assistant('', { toolCalls: [{ id: 'call-1', name: 'read_file', arguments: { path: 'notes.md' } }] }),
        tool('Buy milk.', { toolCallId: 'call-1', name: 'read_file' }),
      ];
      const sum = messages.reduce((total, message) => total + counter.countMessage(message), 0);
      expect(counter.countMessages(messages)).toBe(sum);
      expect(counter.countMessage(messages[1] as Message)).toBeGreaterThan(
        counter.countMessage(assistant('')),
      );
    });

    it('counts tool schemas: more than 0 for a non-empty list', () => {
      fc.assert(
        fc.property(toolDefinitionsArbitrary(), (tools) => {
          const count = counter.countTools(tools);
          expect(tools.length === 0 ? count === 0 : count > 0).toBe(true);
        }),
        runs,
      );
    });

    it('gives the same numbers through the caching wrapper', () => {
      const cached = new CachedTokenCounter({ counter });
      fc.assert(
        fc.property(
          textArbitrary(200),
          messageArbitrary(),
          toolDefinitionsArbitrary(),
          (text, message, tools) => {
            expect(cached.countText(text)).toBe(counter.countText(text));
            expect(cached.countMessage(message)).toBe(counter.countMessage(message));
            expect(cached.countMessage({ ...message })).toBe(counter.countMessage(message));
            expect(cached.countTools(tools)).toBe(counter.countTools(tools));
          },
        ),
        runs,
      );
    });
  });
}
