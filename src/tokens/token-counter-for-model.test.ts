import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { user } from '../core/factories.js';
import { EstimatingTokenCounter } from './estimating-token-counter.js';
import { ScaledTokenCounter } from './scaled-token-counter.js';
import { CLAUDE_TOKEN_FACTOR, isClaudeModel, tokenCounterForModel } from './token-counter-for-model.js';

describe('tokenCounterForModel', () => {
  it('counts a Claude model conservatively and names the factor in its id', () => {
    for (const model of ['claude-sonnet-4-5', 'anthropic/Claude-3-Haiku', 'us.anthropic.claude-opus-4-1']) {
      expect(isClaudeModel(model)).toBe(true);
      expect(tokenCounterForModel(model).id).toBe('scaled(1.25):estimate:o200k');
    }
  });

  it('leaves other models, and no model, with the plain estimate', () => {
    for (const model of ['gpt-4o', 'llama-3.1-70b', 'gemini-2.5-pro', undefined]) {
      expect(isClaudeModel(model)).toBe(false);
      expect(tokenCounterForModel(model).id).toBe('estimate:o200k');
    }
  });

  test.prop([fc.string({ maxLength: 400 })])('a Claude count is the estimate × 1.25, rounded up', (text) => {
    const estimate = new EstimatingTokenCounter();
    const claude = tokenCounterForModel('claude-sonnet-4-5');
    expect(claude.countText(text)).toBe(Math.ceil(estimate.countText(text) * CLAUDE_TOKEN_FACTOR));
    const message = user(text, { id: 'm' });
    expect(claude.countMessage(message)).toBe(
      Math.ceil(estimate.countMessage(message) * CLAUDE_TOKEN_FACTOR),
    );
    expect(claude.countMessages([message, message])).toBe(2 * claude.countMessage(message));
  });

  it('refuses a factor that is not a positive number', () => {
    expect(() => new ScaledTokenCounter(new EstimatingTokenCounter(), { factor: 0 })).toThrow(
      /finite factor above 0 \(got 0\)/,
    );
  });
});
