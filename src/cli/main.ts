import { readFileSync } from 'node:fs';
import { ContextError } from '../index.js';
import { toCliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { COMMANDS } from './commands/index.js';
import { didYouMean } from './did-you-mean.js';
import { EXIT_CODES, exitCodeFor } from './exit-codes.js';

/**
 * Runs the `ctxloom` command line with `argv` (without `node` and the script) and resolves to the
 * exit code. All I/O goes through `io`: results on stdout, tables, progress and errors on stderr.
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const debug = argv.includes('--debug');
  const args = argv.filter((arg) => arg !== '--debug');
  const [name, ...rest] = args;
  if (name === undefined) {
    io.stderr.write(helpText());
    return EXIT_CODES.invalid;
  }
  if (name === '--help' || name === '-h') {
    io.stdout.write(helpText());
    return EXIT_CODES.ok;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout.write(`ctxloom ${packageVersion()}\n`);
    return EXIT_CODES.ok;
  }
  if (name === 'help') return help(rest, io);
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) return fail(unknownCommand(name), io, debug);
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`${command.usage.trimEnd()}\n`);
    return EXIT_CODES.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    return fail(error, io, debug);
  }
}

/** Prints an error as `CODE: message` (the stack with --debug) and returns its exit code. */
function fail(thrown: unknown, io: CliIo, debug: boolean): number {
  const error = toCliError(thrown);
  io.stderr.write(`${error.code}: ${error.message}\n`);
  if (debug) {
    const original = thrown instanceof Error ? thrown : error;
    if (original.stack !== undefined) io.stderr.write(`${original.stack}\n`);
  }
  return exitCodeFor(error);
}

/** `ctxloom help [COMMAND]`. */
function help(args: readonly string[], io: CliIo): number {
  const [topic] = args;
  if (topic === undefined) {
    io.stdout.write(helpText());
    return EXIT_CODES.ok;
  }
  const command = COMMANDS.find((candidate) => candidate.name === topic);
  if (command === undefined) return fail(unknownCommand(topic), io, false);
  io.stdout.write(`${command.usage.trimEnd()}\n`);
  return EXIT_CODES.ok;
}

function unknownCommand(name: string): ContextError {
  const names = COMMANDS.map((command) => command.name);
  const hint = name.startsWith('-')
    ? ` Options go after the command, e.g. 'ctxloom build ${name} …'.`
    : didYouMean(name, [...names, 'help', 'version']);
  return new ContextError({
    code: 'INVALID_OPTIONS',
    message: `Unknown command '${name}'.${hint} The commands are: ${names.join(', ')}; 'ctxloom --help' describes them.`,
  });
}

let version: string | undefined;

/** The version in ctxloom's package.json (two folders up from both src/cli and dist/cli). */
function packageVersion(): string {
  version ??= (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
  return version;
}

function helpText(): string {
  const width = Math.max(0, ...COMMANDS.map((command) => command.name.length));
  const lines = COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return [
    'ctxloom: build, govern and explain the context an LLM agent sends to its model.',
    '',
    'Usage: ctxloom <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    "Run 'ctxloom help <command>' (or 'ctxloom <command> --help') for a command's options.",
    'Results go to stdout (--json for JSON); tables, progress and errors go to stderr.',
    "Add --debug to see stack traces; 'ctxloom --version' prints the version.",
    '',
  ].join('\n');
}
