import { describe, expect, it } from 'vitest';
import { closestName } from './closest-name.js';

describe('closestName', () => {
  it('finds a typo by edit distance (a swap counts as one edit)', () => {
    expect(closestName('maxInputTokesn', ['maxMessages', 'maxInputTokens'])).toBe('maxInputTokens');
    expect(closestName('--wokspace', ['--workspace', '--session'])).toBe('--workspace');
  });

  it('finds a candidate that starts with the given name', () => {
    expect(closestName('contextWindow', ['contextWindowTokens', 'channel'])).toBe('contextWindowTokens');
  });

  it('finds the candidate whose words hold all the given words, fewest extra words first', () => {
    expect(closestName('maxTokens', ['maxMessages', 'maxInputTokens', 'systemPrompt'])).toBe(
      'maxInputTokens',
    );
    expect(closestName('max-tokens', ['max-input-tokens', 'max-input-output-tokens'])).toBe(
      'max-input-tokens',
    );
    expect(closestName('windowTokens', ['contextWindowTokens', 'maxOutputTokens'])).toBe(
      'contextWindowTokens',
    );
  });

  it('prefers a close spelling to a word match', () => {
    expect(closestName('maxToken', ['maxTokens', 'maxInputTokens'])).toBe('maxTokens');
  });

  it('suggests nothing when no candidate is close', () => {
    expect(closestName('fsync', ['systemPrompt', 'maxMessages'])).toBeUndefined();
    expect(closestName('tokens', ['maxInputTokens'])).toBeUndefined();
    expect(closestName('anything', [])).toBeUndefined();
  });
});
