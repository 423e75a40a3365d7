import { describe, expect, it } from 'vitest';
import { assistant, system, user } from '../core/factories.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { diffRequests } from './diff-requests.js';

const tokenCounter = new SimpleTokenCounter();
const withSection = (message: ReturnType<typeof system>, section: string) => ({
  ...message,
  metadata: { section },
});

describe('diffRequests', () => {
  it('says an appended turn keeps the whole previous request cacheable', () => {
    const before = [system('You are Loom.'), user('hi')];
    const after = [...before, assistant('hello'), user('next')];
    const diff = diffRequests(before, after, { tokenCounter });
    expect(diff.appendOnly).toBe(true);
    expect(diff.divergence).toBeUndefined();
    expect(diff.cacheablePrefixTokens).toBe(diff.previousTokens);
  });

  it('names the first differing message, section, offset and the bytes on each side', () => {
    const before = [withSection(system('Stable text. Built at 12:00 today.'), 'system-prompt'), user('hi')];
    const after = [withSection(system('Stable text. Built at 12:05 today.'), 'system-prompt'), user('hi')];
    const diff = diffRequests(before, after, { tokenCounter, excerptChars: 6 });
    expect(diff.appendOnly).toBe(false);
    expect(diff.cacheablePrefixTokens).toBe(0);
    expect(diff.divergence).toMatchObject({
      block: 0,
      area: 'system',
      index: 0,
      part: 0,
      section: 'system-prompt',
    });
    expect(diff.divergence?.previous).toContain('12:00');
    expect(diff.divergence?.next).toContain('12:05');
  });

  it('counts the shared messages as the cacheable prefix when a later message changes', () => {
    const head = [system('You are Loom.'), user('first question')];
    const diff = diffRequests([...head, assistant('a')], [...head, assistant('b')], { tokenCounter });
    expect(diff.divergence?.index).toBe(2);
    expect(diff.cacheablePrefixTokens).toBe(tokenCounter.countMessages(head));
  });
});
