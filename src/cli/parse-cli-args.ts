import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ContextError } from '../index.js';
import { didYouMean } from './did-you-mean.js';

/** A `parseArgs` option table. */
export type CliOptions = NonNullable<ParseArgsConfig['options']>;

/** The flags and positionals of one command line. */
export type ParsedCliArgs = {
  readonly values: Readonly<Record<string, string | boolean | readonly string[] | undefined>>;
  readonly positionals: readonly string[];
};

/**
 * Parses the arguments of `ctxloom COMMAND` against its option table and reports mistakes in the
 * CLI's own words: an unknown flag names the closest known one, a string flag without its value says
 * so, a switch given a value says it takes none. A value that starts with a dash (`--max-tokens -5`)
 * is taken as the value, so the flag's own check can say what is wrong with it.
 * @throws ContextError `INVALID_OPTIONS` with what was wrong, why, and the help command.
 */
export function parseCliArgs(command: string, args: readonly string[], options: CliOptions): ParsedCliArgs {
  const help = `Run 'ctxloom ${command} --help' for the options.`;
  const { values, positionals, tokens } = parseArgs({
    args: [...args],
    options,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const known = Object.keys(options).map((name) => `--${name}`);
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const spec = options[token.name];
    if (spec === undefined) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `Unknown option ${token.rawName} for 'ctxloom ${command}'.${didYouMean(`--${token.name}`, known)} ${help}`,
      });
    }
    if (spec.type === 'string' && (token.value === undefined || isKnownFlag(token.value, known))) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `${token.rawName} needs a value, e.g. ${token.rawName} VALUE. ${help}`,
      });
    }
    if (spec.type === 'boolean' && token.inlineValue === true) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `${token.rawName} is a switch and takes no value (got ${JSON.stringify(token.value)}). ${help}`,
      });
    }
  }
  return { values: values as ParsedCliArgs['values'], positionals };
}

function isKnownFlag(value: string, known: readonly string[]): boolean {
  const name = value.split('=')[0] ?? value;
  return name.startsWith('--') && (known.includes(name) || name === '--help');
}
