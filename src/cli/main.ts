import { ContextError } from '../index.js';
import type { CliIo } from './cli-io.js';
import { COMMANDS } from './commands/index.js';
import { EXIT_CODES, exitCodeFor } from './exit-codes.js';

/**
 * Runs the `ctxloom` command line with `argv` (without `node` and the script) and resolves to the
 * exit code. All I/O goes through `io`.
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const debug = argv.includes('--debug');
  const args = argv.filter((arg) => arg !== '--debug');
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(helpText());
    return name === undefined ? EXIT_CODES.invalid : EXIT_CODES.ok;
  }
  if (name === '--version') {
    io.stdout.write('ctxloom 0.1.0\n');
    return EXIT_CODES.ok;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) {
    io.stderr.write(`INVALID_OPTIONS: unknown command '${name}'. Run 'ctxloom --help' for the list.\n`);
    return EXIT_CODES.invalid;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`${command.usage.trimEnd()}\n`);
    return EXIT_CODES.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    const code = ContextError.isInstance(error) ? error.code : 'UNEXPECTED';
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`${code}: ${message}\n`);
    if (debug && error instanceof Error && error.stack !== undefined) io.stderr.write(`${error.stack}\n`);
    return exitCodeFor(error);
  }
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
    "Run 'ctxloom <command> --help' for a command's options. Add --debug to see stack traces.",
    '',
  ].join('\n');
}
