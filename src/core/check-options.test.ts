import { describe, expect, it } from 'vitest';
import { checkOptions, type OptionKeys } from './check-options.js';
import { ContextError } from './errors.js';

type Offload = { readonly previewChars?: number; readonly dryRun?: boolean };
type Governor = { readonly onOverBudget?: 'throw' | 'keep'; readonly offload?: Offload };
type Preset = {
  readonly workspace: string;
  readonly maxInputTokens?: number;
  readonly contextWindowTokens?: number;
  readonly governor?: Governor;
  readonly state?: Readonly<Record<string, unknown>>;
};

const offloadKeys = { previewChars: true, dryRun: true } as const satisfies OptionKeys<Offload>;
const governorKeys = { onOverBudget: true, offload: true } as const satisfies OptionKeys<Governor>;
const presetKeys = {
  workspace: true,
  maxInputTokens: true,
  contextWindowTokens: true,
  governor: true,
  state: true,
} as const satisfies OptionKeys<Preset>;
const shape = {
  where: 'makePreset options',
  known: presetKeys,
  nested: { governor: { known: governorKeys, nested: { offload: { known: offloadKeys } } } },
};

function errorOf(run: () => void): ContextError {
  try {
    run();
  } catch (error) {
    if (ContextError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ContextError');
}

describe('checkOptions', () => {
  it('accepts known keys, absent options and values that are not objects', () => {
    expect(() => checkOptions({ workspace: 'w', maxInputTokens: 1 }, shape)).not.toThrow();
    expect(() => checkOptions(undefined, shape)).not.toThrow();
    expect(() => checkOptions(null, shape)).not.toThrow();
    expect(() => checkOptions('text', shape)).not.toThrow();
    expect(() => checkOptions([1, 2], shape)).not.toThrow();
  });

  it('names the unknown key, where it was found and the closest known name', () => {
    const error = errorOf(() => checkOptions({ workspace: 'w', maxTokens: 1 }, shape));
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.category).toBe('user');
    expect(error.message).toMatch(
      /^Unknown option maxTokens in makePreset options; did you mean maxInputTokens\? /,
    );
    expect(error.message).toContain(
      'The known keys of makePreset options: workspace, maxInputTokens, contextWindowTokens, governor, state.',
    );
    expect(error.details).toEqual({
      where: 'makePreset options',
      unknown: [{ key: 'maxTokens', where: 'makePreset options' }],
      known: ['workspace', 'maxInputTokens', 'contextWindowTokens', 'governor', 'state'],
    });
  });

  it('rejects an unknown key whose value is undefined', () => {
    expect(() => checkOptions({ maxInputToken: undefined }, shape)).toThrow(
      'Unknown option maxInputToken in makePreset options; did you mean maxInputTokens?',
    );
  });

  it('says a nested object key used at the top level belongs under that object', () => {
    expect(() => checkOptions({ onOverBudget: 'keep' }, shape)).toThrow(
      'Unknown option onOverBudget in makePreset options; it belongs under governor: pass { governor: { onOverBudget } } (at makePreset options.governor.onOverBudget).',
    );
  });

  it('checks nested objects at every level, with their path', () => {
    expect(() => checkOptions({ governor: { onOverBudgte: 'keep' } }, shape)).toThrow(
      'Unknown option onOverBudgte in makePreset options.governor; did you mean onOverBudget?',
    );
    expect(() => checkOptions({ governor: { offload: { previewChar: 1 } } }, shape)).toThrow(
      'Unknown option previewChar in makePreset options.governor.offload; did you mean previewChars?',
    );
  });

  it('says a top-level key used inside a nested object belongs one level up', () => {
    expect(() => checkOptions({ governor: { contextWindowTokens: 1 } }, shape)).toThrow(
      'Unknown option contextWindowTokens in makePreset options.governor; it belongs one level up, next to governor (not inside it).',
    );
  });

  it('skips a nested key whose value is not an object', () => {
    expect(() => checkOptions({ governor: false }, shape)).not.toThrow();
  });

  it('leaves open bags open: the keys inside an option not declared nested are not checked', () => {
    expect(() => checkOptions({ state: { anything: 1, goes: 2 } }, shape)).not.toThrow();
  });

  it('reports every unknown key at once, in order', () => {
    const error = errorOf(() => checkOptions({ a: 1, workspace: 'w', governor: { b: 2 } }, shape));
    expect(error.message).toMatch(
      /^Unknown option a in makePreset options\. Unknown option b in makePreset options\.governor\. /,
    );
    expect(error.details['unknown']).toEqual([
      { key: 'a', where: 'makePreset options' },
      { key: 'b', where: 'makePreset options.governor' },
    ]);
    expect(error.message).toContain('The known keys of makePreset options.governor: onOverBudget, offload.');
  });

  it('lists the keys of every member of a union options type', () => {
    type Strategy =
      | { readonly strategy: 'keep-last'; readonly startOn?: string }
      | { readonly strategy: 'keep-first' };
    const keys = { strategy: true, startOn: true } as const satisfies OptionKeys<Strategy>;
    const where = 'trim options';
    expect(() =>
      checkOptions({ strategy: 'keep-last', startOn: 'user' }, { where, known: keys }),
    ).not.toThrow();
    expect(() => checkOptions({ strategy: 'keep-first', startsOn: 'user' }, { where, known: keys })).toThrow(
      'Unknown option startsOn in trim options; did you mean startOn?',
    );
  });

  it('does not take inherited names for known keys, and quotes keys that are not identifiers', () => {
    expect(() => checkOptions({ toString: 1 }, shape)).toThrow('Unknown option toString in');
    expect(() => checkOptions(JSON.parse('{"__proto__": 1}'), shape)).toThrow('Unknown option __proto__ in');
    expect(() => checkOptions({ 'max tokens': 1 }, shape)).toThrow('Unknown option "max tokens" in');
  });
});
