import { describe, expect, it } from 'vitest';
import { BudgetUnsatisfiableError, ContextError, throwIfAborted, toContextError } from './errors.js';

describe('ContextError', () => {
  it('is recognised by its marker, with its category from the code table', () => {
    const error = new ContextError({ code: 'STORE_CORRUPT', message: 'bad line 3' });
    expect(ContextError.isInstance(error)).toBe(true);
    expect(ContextError.isInstance({ code: 'STORE_CORRUPT' })).toBe(false);
    expect(error.category).toBe('system');
  });

  it('serialises to JSON with its cause', () => {
    const error = new ContextError({
      code: 'INVALID_INPUT',
      message: 'role: bad',
      cause: new TypeError('x'),
    });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'ContextError',
      code: 'INVALID_INPUT',
      category: 'user',
      message: 'role: bad',
      details: {},
      cause: { name: 'TypeError', message: 'x' },
    });
  });

  it('carries typed budget data in BudgetUnsatisfiableError', () => {
    const error = new BudgetUnsatisfiableError({
      budget: 8000,
      required: 9120,
      pinnedTokens: 9120,
      message: 'm',
    });
    expect(ContextError.isInstance(error)).toBe(true);
    expect([error.code, error.budget, error.pinnedTokens]).toEqual(['BUDGET_UNSATISFIABLE', 8000, 9120]);
  });

  it('normalises unknown throwables and aborts', () => {
    expect(toContextError('boom')).toMatchObject({ code: 'UNEXPECTED', message: 'boom' });
    const abort = new Error('stop');
    abort.name = 'AbortError';
    expect(toContextError(abort).code).toBe('ABORTED');
    const same = new ContextError({ code: 'NOT_FOUND', message: 'x' });
    expect(toContextError(same)).toBe(same);
    const controller = new AbortController();
    controller.abort();
    expect(() => throwIfAborted(controller.signal)).toThrow(expect.objectContaining({ code: 'ABORTED' }));
  });
});
