import { test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { countingTokenCounter } from '../../test/helpers/counting-token-counter.js';
import { assistant, tool, user } from '../core/factories.js';
import type { Message, ToolCall } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { messageArbitrary, textArbitrary } from '../testing/arbitraries.js';
import { CachedTokenCounter, withTokenCache } from './cached-token-counter.js';
import { hashMessageContent, hashText } from './content-hash.js';
import { SimpleTokenCounter } from './simple-token-counter.js';

/** The old content key: the copy of every counted field the cache must no longer keep, as an oracle. */
function contentKey(message: Message): string {
  return JSON.stringify([
    message.role,
    message.name ?? '',
    message.toolCallId ?? '',
    message.toolCalls ?? null,
    message.reasoning ?? '',
    message.content,
  ]);
}

describe('CachedTokenCounter', () => {
  it('answers a message seen before by identity, and an equal copy by content', () => {
    const inner = countingTokenCounter();
    const cached = new CachedTokenCounter({ counter: inner });
    const message = user('The quick brown fox jumps over the lazy dog.', { id: 'a', metadata: { x: 1 } });
    const first = cached.countMessage(message);
    expect(cached.countMessage(message)).toBe(first);
    expect(cached.countMessage({ ...message, id: 'b', metadata: { y: 2 } })).toBe(first);
    expect(inner.calls).toBe(1);
    expect(cached.stats).toEqual({ hits: 2, misses: 1 });
  });

  it('counts again when a counted field differs, including where one field ends and the next starts', () => {
    const inner = countingTokenCounter();
    const cached = new CachedTokenCounter({ counter: inner });
    const variants: Message[] = [
      user('hello', { id: 'x' }),
      assistant('hello', { id: 'x' }),
      user('hello', { id: 'x', name: 'n' }),
      user('hellon', { id: 'x' }),
      tool('hello', { id: 'x', toolCallId: 'c' }),
      assistant('hello', { id: 'x', reasoning: 'why' }),
      assistant('hello', { id: 'x', toolCalls: [{ id: 'c', name: 'read', arguments: '{}' }] }),
      assistant('hello', { id: 'x', toolCalls: [{ id: 'c', name: 'rea', arguments: 'd{}' }] }),
      user([{ type: 'text', text: 'hello' }], { id: 'x' }),
    ];
    for (const message of variants) cached.countMessage(message);
    expect(inner.calls).toBe(variants.length);
  });

  it('counts a tool list again when the caller pushed to the array it passes again', () => {
    const cached = new CachedTokenCounter({ counter: new SimpleTokenCounter() });
    const tools: ToolDefinition[] = [{ name: 'exec' }];
    const one = cached.countTools(tools);
    expect(cached.countTools(tools)).toBe(one);
    tools.push({ name: 'read_file', description: 'Reads a file of the workspace and returns its text.' });
    const two = cached.countTools(tools);
    expect(two).toBe(new SimpleTokenCounter().countTools(tools));
    expect(two).toBeGreaterThan(one);
  });

  it('counts malformed input as the wrapped counter does (a null tool name from a relay)', () => {
    const cached = new CachedTokenCounter({ counter: new SimpleTokenCounter() });
    const call = JSON.parse('{"id":"call-1","name":null,"arguments":"{}"}') as ToolCall;
    const message = assistant('', { id: 'x', toolCalls: [call] });
    expect(cached.countMessage(message)).toBe(new SimpleTokenCounter().countMessage(message));
    expect(hashMessageContent(message)).not.toBe(
      hashMessageContent({ ...message, toolCalls: [{ ...call, name: 'null' }] }),
    );
  });

  it('keeps at most maxEntries fingerprints, evicting the least recently used', () => {
    const inner = countingTokenCounter();
    const cached = new CachedTokenCounter({ counter: inner, maxEntries: 2 });
    const texts = ['a', 'b', 'c'].map((letter) => letter.repeat(100));
    for (const text of texts) cached.countText(text);
    cached.countText(texts[2] as string);
    cached.countText(texts[1] as string);
    expect(inner.calls).toBe(3);
    cached.countText(texts[0] as string);
    expect(inner.calls).toBe(4);
  });

  it('reports the wrapped counter’s id and kind, and is not wrapped twice', () => {
    const cached = new CachedTokenCounter({ counter: countingTokenCounter() });
    expect([cached.id, cached.kind, cached.isCached]).toEqual(['counting', 'exact', true]);
    expect(withTokenCache(cached)).toBe(cached);
    expect(new CachedTokenCounter({ counter: new SimpleTokenCounter() }).kind).toBe('estimate');
  });

  it('gives a counter one cache, shared by everything that wraps it', () => {
    const counter = countingTokenCounter();
    const message = user('counted once, whoever asks');
    expect(withTokenCache(counter)).toBe(withTokenCache(counter));
    withTokenCache(counter).countMessage(message);
    withTokenCache(counter).countMessage(message);
    expect(counter.calls).toBe(1);
    expect(withTokenCache(countingTokenCounter())).not.toBe(withTokenCache(counter));
  });

  test.prop([messageArbitrary(), messageArbitrary()], { numRuns: 300 })(
    'gives two messages the same fingerprint only when every counted field is equal',
    (left, right) => {
      const sameKey = contentKey(left) === contentKey(right);
      expect(hashMessageContent(left) === hashMessageContent(right)).toBe(sameKey);
      expect(hashMessageContent({ ...left, id: 'other', metadata: { z: true } })).toBe(
        hashMessageContent(left),
      );
    },
  );

  test.prop([textArbitrary(200), textArbitrary(200)], { numRuns: 300 })(
    'fingerprints different texts differently',
    (left, right) => {
      expect(hashText(left) === hashText(right)).toBe(left === right);
    },
  );

  it('fingerprints 200,000 near-identical texts without a collision', () => {
    const seen = new Set<string>();
    for (let index = 0; index < 200_000; index += 1) seen.add(hashText(`message ${index} `.repeat(3)));
    expect(seen.size).toBe(200_000);
  });
});
