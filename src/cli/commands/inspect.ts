import { parseArgs } from 'node:util';
import { ContextError } from '../../index.js';
import {
  openWorkspaceInspector,
  renderContextReport,
  type SessionInspection,
} from '../../inspector/index.js';
import type { CliCommand, CliIo } from '../cli-io.js';

const USAGE = `Usage: ctxloom inspect [--workspace DIR] [--session KEY | --history FILE] [--model NAME]
                       [--context-window N] [--max-output N] [--warn-percent P] [--json] [MESSAGE]

Shows where the context window goes for a session's next model call: the model and used/total
tokens, a grid of cells coloured by category, one line per category (each system-prompt part and
bootstrap file, tool schemas, history, the current message, reserved output, free space), warnings
about the largest single items, and the decisions of the build (dropped, offloaded, compacted, …).

Options:
  --workspace DIR        the agent workspace (default: the current folder)
  --session KEY          the stored session to inspect (default: the most recently updated one)
  --history FILE         read the history from a JSON or JSONL file of messages instead
  --model NAME           the model name shown (default: gpt-4o)
  --context-window N     the model's context window in tokens (default: 128000)
  --max-output N         tokens reserved for the answer (default: 8192)
  --warn-percent P       warn about any single item taking at least P% of the window (default: 10)
  --json                 print the analysis as JSON
  MESSAGE                the current user message (default: none)

Colours follow NO_COLOR (set to anything to turn them off) and FORCE_COLOR; terminals narrower than
60 columns get the list without the grid.
`;

/** `ctxloom inspect`: the token grid, categories, warnings and decisions of a session's context. */
export const inspectCommand: CliCommand = {
  name: 'inspect',
  summary: 'Show where the context window goes (token grid, categories, warnings, decisions)',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseInspectArgs(args);
    const contextWindowTokens = parseTokens('--context-window', values['context-window']);
    const maxOutputTokens = parseTokens('--max-output', values['max-output']);
    const warnPercent = parsePercent(values['warn-percent']);
    const inspector = await openWorkspaceInspector({
      workspace: values.workspace ?? io.cwd,
      ...(values.model === undefined ? {} : { model: values.model }),
      ...(contextWindowTokens === undefined ? {} : { contextWindowTokens }),
      ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
      ...(values.history === undefined ? {} : { historyFile: values.history }),
      ...(warnPercent === undefined ? {} : { largeItemShare: warnPercent / 100 }),
      ...(values.session === undefined ? {} : { sessionKey: values.session }),
    });
    const key = values.session ?? (await newestSession(inspector));
    const message = positionals.length === 0 ? undefined : positionals.join(' ');
    const messageOption = message === undefined ? {} : { message };
    const result =
      key === undefined
        ? await inspector.inspectHistory({ key: '(no session)', replayed: { history: [] }, ...messageOption })
        : await inspector.inspectSession(key, messageOption);
    io.stdout.write(
      values.json ? `${JSON.stringify(jsonReport(result), null, 2)}\n` : textReport(result, io),
    );
    return 0;
  },
};

function parseInspectArgs(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        workspace: { type: 'string' },
        session: { type: 'string' },
        history: { type: 'string' },
        model: { type: 'string' },
        'context-window': { type: 'string' },
        'max-output': { type: 'string' },
        'warn-percent': { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `${error instanceof Error ? error.message : String(error)} Run 'ctxloom inspect --help' for the options.`,
      cause: error,
    });
  }
}

async function newestSession(
  inspector: Awaited<ReturnType<typeof openWorkspaceInspector>>,
): Promise<string | undefined> {
  const sessions = await inspector.listSessions();
  const sorted = [...sessions].sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
  return sorted[0]?.key;
}

const FORCE_COLOR = 'FORCE_COLOR';

/** True when the environment variable is set to a non-empty value (the NO_COLOR convention). */
function isSet(io: CliIo, name: string): boolean {
  return (io.env[name] ?? '') !== '';
}

function textReport(result: SessionInspection, io: CliIo): string {
  const noColor = isSet(io, 'NO_COLOR');
  const forceColor = isSet(io, 'FORCE_COLOR') && io.env[FORCE_COLOR] !== '0';
  return renderContextReport(result.inspection, {
    title: `Context of session ${result.key}`,
    columns: io.stdout.columns ?? 80,
    color: !noColor && (forceColor || io.stdout.isTTY === true),
  });
}

function jsonReport(result: SessionInspection): Readonly<Record<string, unknown>> {
  const { inspection } = result;
  return {
    session: result.key,
    model: inspection.model,
    contextWindowTokens: inspection.contextWindowTokens,
    maxOutputTokens: inspection.maxOutputTokens,
    usedTokens: inspection.usedTokens,
    categories: inspection.categories.map(({ id, name, kind, tokens, percent }) => ({
      id,
      name,
      kind,
      tokens,
      percent,
    })),
    warnings: inspection.warnings,
    decisions: inspection.decisions,
  };
}

function parseTokens(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value.replaceAll('_', ''));
  if (Number.isInteger(parsed) && parsed >= 0) return parsed;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `${flag} must be a whole number of tokens, got ${JSON.stringify(value)}; e.g. ${flag} 128000.`,
  });
}

function parsePercent(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value.replace(/%$/, ''));
  if (Number.isFinite(parsed) && parsed > 0 && parsed <= 100) return parsed;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `--warn-percent must be a number above 0 and at most 100, got ${JSON.stringify(value)}; e.g. --warn-percent 5.`,
  });
}
