import { describe, expect, it } from 'vitest';
import { ContextError } from '../core/errors.js';
import { StaticPromptProvider } from './static-prompt-provider.js';
import { testBuildContext } from './test-context.js';

describe('StaticPromptProvider', () => {
  it('wraps its text as one system message', () => {
    const provider = new StaticPromptProvider({ id: 'persona', text: 'Be brief.' });
    expect(provider.id).toBe('persona');
    expect(provider.getMessages({}, testBuildContext())).toEqual([
      { id: 'p-1', role: 'system', content: 'Be brief.' },
    ]);
  });

  it('uses the static-prompt id by default and contributes nothing for blank text', () => {
    const provider = new StaticPromptProvider({ text: '  \n' });
    expect(provider.id).toBe('static-prompt');
    expect(provider.getMessages({}, testBuildContext())).toEqual([]);
  });

  it('rejects a missing text with INVALID_OPTIONS', () => {
    // Simulates an untyped JavaScript caller that forgot `text`.
    const bad = {} as { text: string };
    expect(() => new StaticPromptProvider(bad)).toThrow(ContextError);
  });
});
