import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContextError } from '../index.js';
import { closest } from './did-you-mean.js';
import { parseCliArgs } from './parse-cli-args.js';

const OPTIONS = {
  workspace: { type: 'string' },
  'max-tokens': { type: 'string' },
  json: { type: 'boolean' },
  dir: { type: 'string', multiple: true },
} as const;

const argument = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '--workspace',
    '--max-tokens',
    '--json',
    '--dir',
    '--',
    '-',
    '-5',
    '--json=1',
    '--wokspace',
  ),
  fc.string().map((text) => `--${text}`),
  fc.string().map((text) => `-${text}`),
);

describe('parseCliArgs', () => {
  it('either parses or throws INVALID_OPTIONS in its own words, for any arguments', () => {
    fc.assert(
      fc.property(fc.array(argument, { maxLength: 8 }), (args) => {
        try {
          const parsed = parseCliArgs('build', args, OPTIONS);
          for (const [name, value] of Object.entries(parsed.values)) {
            expect(Object.keys(OPTIONS)).toContain(name);
            const type = OPTIONS[name as keyof typeof OPTIONS].type;
            if (type === 'boolean') expect(value).toBe(true);
            else expect(typeof value === 'string' || Array.isArray(value)).toBe(true);
          }
        } catch (error) {
          expect(ContextError.isInstance(error) && error.code === 'INVALID_OPTIONS').toBe(true);
          const message = (error as Error).message;
          expect(message).not.toMatch(/ERR_PARSE_ARGS|XYZ|as in '--|TypeError/);
          expect(message).toContain("Run 'ctxloom build --help' for the options.");
        }
      }),
    );
  });
});

describe('closest', () => {
  it('returns a candidate itself, and only ever a candidate', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1 }),
        fc.string(),
        (candidates, given) => {
          expect(closest(candidates[0] ?? '', candidates)).toBe(candidates[0]);
          const match = closest(given, candidates);
          if (match !== undefined) expect(candidates).toContain(match);
        },
      ),
    );
  });

  it('finds a flag with one letter swapped, dropped or doubled', () => {
    const flags = ['--workspace', '--max-tokens', '--max-messages', '--session', '--history', '--format'];
    fc.assert(
      fc.property(
        fc.constantFrom(...flags),
        fc.nat(),
        fc.constantFrom('swap', 'drop', 'double'),
        (flag, at, edit) => {
          const i = 2 + (at % (flag.length - 3));
          const typo =
            edit === 'swap'
              ? `${flag.slice(0, i)}${flag[i + 1]}${flag[i]}${flag.slice(i + 2)}`
              : edit === 'drop'
                ? `${flag.slice(0, i)}${flag.slice(i + 1)}`
                : `${flag.slice(0, i)}${flag[i]}${flag.slice(i)}`;
          if (typo === flag) return;
          expect(closest(typo, flags)).toBe(flag);
        },
      ),
    );
  });
});
