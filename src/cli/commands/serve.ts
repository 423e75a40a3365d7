import { resolveAgentSettings } from '../../config/index.js';
import { loadConfig } from '../../index.js';
import type { CliCommand } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import { parseIntegerFlag } from '../integer-flag.js';
import { parseCliArgs } from '../parse-cli-args.js';
import { resolveAgentBudget } from './agent-context.js';
import { existingWorkspace, openStore, STORE_FLAGS } from './session-store-flags.js';

const USAGE = `Usage: ctxloom serve [--workspace DIR] [--port N] [--host ADDRESS] [--model NAME]
                     [--context-window N] [--max-output N] [--sessions DIR | --sqlite PATH | --pg URL] [--json]

Serves the read-only web inspector: the sessions of the workspace and, for each, the built context
section by section, the token budget by category, the trace of stages with their decisions, and the
stored history next to what the model receives. Stop it with Ctrl-C.

Options:
  --workspace DIR        the agent workspace (default: the current folder)
  --port N               the TCP port, 0 for any free port (default: 4319)
  --host ADDRESS         the address to bind (default: 127.0.0.1; anything else exposes your sessions)
  --model NAME           the model name shown (default: agent.model, else gpt-4o)
  --context-window N     the model's context window in tokens (default: agent.contextWindowTokens, else 65536)
  --max-output N         tokens reserved for the answer (default: agent.maxOutputTokens, else 8192)
  --sessions DIR | --sqlite PATH | --pg URL [--pg-schema NAME]
                         serve the sessions of this store instead of the workspace's
  --json                 print the address as JSON ({"url": …}) once the server listens
`;

/** `ctxloom serve`: the web inspector on 127.0.0.1. Resolves (exit code 0) after SIGINT or SIGTERM. */
export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'Serve the read-only web inspector on 127.0.0.1',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseCliArgs('serve', args, SERVE_FLAGS);
    const text = (name: string): string | undefined => {
      const value = values[name];
      return typeof value === 'string' ? value : undefined;
    };
    const port = parseNumber('--port', text('port'));
    const workspace = await existingWorkspace(values, io);
    const { config } = await loadConfig({ dir: workspace, optional: true });
    const budget = resolveAgentBudget(
      {
        contextWindowTokens: parseNumber('--context-window', text('context-window')),
        maxOutputTokens: parseNumber('--max-output', text('max-output')),
      },
      resolveAgentSettings(config, workspace),
    );
    const store = await openStore(values, io, 'read');
    try {
      // The inspector (and its HTTP server, Hono) loads only when serving.
      const { openWorkspaceInspector, startInspectorServer } = await import('../../inspector/index.js');
      const model = text('model');
      const inspector = await openWorkspaceInspector({
        workspace,
        store,
        contextWindowTokens: budget.contextWindowTokens,
        maxOutputTokens: budget.maxOutputTokens,
        ...(model === undefined ? {} : { model }),
      });
      const host = text('host');
      const server = await startInspectorServer({
        inspector,
        ...(host === undefined ? {} : { host }),
        ...(port === undefined ? {} : { port }),
      });
      io.stdout.write(
        values['json'] === true
          ? `${JSON.stringify({ url: server.url })}\n`
          : `ctxloom inspector: ${server.url} (read-only; Ctrl-C to stop)\n`,
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      await server.close();
    } finally {
      await store.close();
    }
    return EXIT_CODES.ok;
  },
};

const SERVE_FLAGS = {
  ...STORE_FLAGS,
  port: { type: 'string' },
  host: { type: 'string' },
  model: { type: 'string' },
  'context-window': { type: 'string' },
  'max-output': { type: 'string' },
  json: { type: 'boolean' },
} as const;

function parseNumber(flag: string, value: string | undefined): number | undefined {
  return parseIntegerFlag(flag, { text: value, min: 0 });
}
