import { parseArgs } from 'node:util';
import { ContextError } from '../../index.js';
import type { CliCommand } from '../cli-io.js';

const USAGE = `Usage: ctxloom serve [--workspace DIR] [--port N] [--host ADDRESS] [--model NAME]
                     [--context-window N] [--max-output N]

Serves the read-only web inspector: the sessions of the workspace and, for each, the built context
section by section, the token budget by category, the trace of stages with their decisions, and the
stored history next to what the model receives. Stop it with Ctrl-C.

Options:
  --workspace DIR        the agent workspace (default: the current folder)
  --port N               the TCP port, 0 for any free port (default: 4319)
  --host ADDRESS         the address to bind (default: 127.0.0.1; anything else exposes your sessions)
  --model NAME           the model name shown (default: gpt-4o)
  --context-window N     the model's context window in tokens (default: 128000)
  --max-output N         tokens reserved for the answer (default: 8192)
`;

/** `ctxloom serve`: the web inspector on 127.0.0.1. Resolves (exit code 0) after SIGINT or SIGTERM. */
export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'Serve the read-only web inspector on 127.0.0.1',
  usage: USAGE,
  async run(args, io) {
    const values = parseServeArgs(args);
    const port = parseNumber('--port', values.port);
    const contextWindowTokens = parseNumber('--context-window', values['context-window']);
    const maxOutputTokens = parseNumber('--max-output', values['max-output']);
    // The inspector (and its HTTP server, Hono) loads only when serving.
    const { openWorkspaceInspector, startInspectorServer } = await import('../../inspector/index.js');
    const inspector = await openWorkspaceInspector({
      workspace: values.workspace ?? io.cwd,
      ...(values.model === undefined ? {} : { model: values.model }),
      ...(contextWindowTokens === undefined ? {} : { contextWindowTokens }),
      ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    });
    const server = await startInspectorServer({
      inspector,
      ...(values.host === undefined ? {} : { host: values.host }),
      ...(port === undefined ? {} : { port }),
    });
    io.stdout.write(`ctxloom inspector: ${server.url} (read-only; Ctrl-C to stop)\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await server.close();
    return 0;
  },
};

function parseServeArgs(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      options: {
        workspace: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        model: { type: 'string' },
        'context-window': { type: 'string' },
        'max-output': { type: 'string' },
      },
    }).values;
  } catch (error) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `${error instanceof Error ? error.message : String(error)} Run 'ctxloom serve --help' for the options.`,
      cause: error,
    });
  }
}

function parseNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value.replaceAll('_', ''));
  if (Number.isInteger(parsed) && parsed >= 0) return parsed;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `${flag} must be a whole number ≥ 0, got ${JSON.stringify(value)}.`,
  });
}
