import path from 'node:path';
import { resolveAgentSettings } from '../../config/index.js';
import {
  ContextError,
  createTokenCounter,
  loadConfig,
  MemorySessionStore,
  type SessionStore,
} from '../../index.js';
import { renderContextReport, type SessionInspection, SessionInspector } from '../../inspector/index.js';
import type { RequestRecordStore } from '../../recorder/index.js';
import { readMessagesFile } from '../../sessions/index.js';
import type { CliCommand, CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import { parseIntegerFlag } from '../integer-flag.js';
import { type ParsedCliArgs, parseCliArgs } from '../parse-cli-args.js';
import { sectionTotals } from '../section-tokens.js';
import {
  agentContext,
  DEFAULT_AGENT_MODEL,
  DEFAULT_SESSION_KEY,
  resolveAgentBudget,
} from './agent-context.js';
import { openRequestStore } from './request-store-flags.js';
import { existingWorkspace, mustExist, openStore, STORE_FLAGS, stringFlag } from './session-store-flags.js';

const USAGE = `Usage: ctxloom inspect [--workspace DIR] [--session KEY | --history FILE] [--model NAME]
                       [--context-window N] [--max-output N] [--max-tokens N] [--max-messages N]
                       [--warn-percent P] [--json] [MESSAGE]

Shows where the context window goes for a session's next model call: the model and used/total
tokens, a grid of cells coloured by category, one line per category (each system-prompt part and
bootstrap file, tool schemas, history, the current message, reserved output, free space), warnings
about the largest single items and about volatile bytes in the cached prefix (UUIDs, timestamps to
the second, temp paths; and, when the request recorder logged the session, what differs from the
last request sent), the decisions of the build (dropped, offloaded, compacted, …), and, when the
request recorder logged the session's tools, each tool's tokens (deferred tools, offered through tool
search and not sent, marked) with the deferred tools the model loaded.

Options:
  --workspace DIR        the agent workspace (default: the current folder)
  --session KEY          the stored session to inspect (default: the most recently updated one)
  --history FILE         read the history from a JSON or JSONL file of messages instead
  --sessions DIR | --sqlite PATH | --pg URL [--pg-schema NAME]
                         read the sessions from this store instead of the workspace's
  --model NAME           the model name shown; picks the counter (default: agent.model, else gpt-4o)
  --context-window N     the model's context window in tokens (default: agent.contextWindowTokens, else 65536)
  --max-output N         tokens reserved for the answer (default: agent.maxOutputTokens, else 8192)
  --max-tokens N         the input budget the history is snipped to, as 'build --max-tokens' (default: the window)
  --max-messages N       keep the system prompt plus the newest N messages, as 'build --max-messages'
  --warn-percent P       warn about any single item taking at least P% of the window (default: 10)
  --json                 print the analysis as JSON
  MESSAGE                the current user message (default: none)

The numbers are the ones 'ctxloom build --preset agent' reports for the same session, message and flags.
A context over the window is a warning here (exit 0); 'build' exits 3 for it.

Colours follow NO_COLOR (set to anything to turn them off) and FORCE_COLOR; terminals narrower than
60 columns get the list without the grid.
`;

/** `ctxloom inspect`: the token grid, categories, warnings and decisions of a session's context. */
export const inspectCommand: CliCommand = {
  name: 'inspect',
  summary: 'Show where the context window goes (token grid, categories, warnings, decisions)',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseCliArgs('inspect', args, INSPECT_FLAGS);
    const text = (name: string): string | undefined => stringFlag(values, name);
    const warnPercent = parsePercent(text('warn-percent'));
    const workspace = await existingWorkspace(values, io);
    const { config } = await loadConfig({ dir: workspace, optional: true });
    const settings = resolveAgentSettings(config, workspace);
    const model = text('model') ?? settings.model ?? DEFAULT_AGENT_MODEL;
    const tokenCounter = await createTokenCounter({ config: config.tokenCounter, model, workspace });
    const budget = resolveAgentBudget(
      {
        contextWindowTokens: parseTokens('--context-window', text('context-window')),
        maxOutputTokens: parseTokens('--max-output', text('max-output')),
        maxTokens: parseTokens('--max-tokens', text('max-tokens')),
        maxMessages: parseTokens('--max-messages', text('max-messages')),
      },
      settings,
    );
    const agent = agentContext({ workspace, agent: settings, budget, tokenCounter });
    const store = await inspectedStore(values, io);
    let requests: RequestRecordStore | undefined;
    try {
      requests = await recorderLog(values, io);
      const inspector = new SessionInspector({
        store,
        ...(requests === undefined ? {} : { requests }),
        createBuilder: agent.createBuilder,
        replay: agent.replay,
        contextWindowTokens: budget.contextWindowTokens,
        maxOutputTokens: budget.maxOutputTokens,
        model,
        ...(warnPercent === undefined ? {} : { largeItemShare: warnPercent / 100 }),
      });
      const key = text('session') ?? (await newestSession(inspector));
      const message = positionals.length === 0 ? undefined : positionals.join(' ');
      const messageOption = message === undefined ? {} : { message };
      const result =
        key === undefined
          ? // No session: the context build makes without --session (the CLI channel's default key,
            // whose channel shapes the prompt), so the two commands count the same tokens.
            await inspector.inspectHistory({
              key: DEFAULT_SESSION_KEY,
              replayed: { history: [] },
              ...messageOption,
            })
          : await inspector.inspectSession(key, messageOption);
      const shown = withStoreWarnings(result);
      io.stdout.write(
        values['json'] === true ? `${JSON.stringify(jsonReport(shown), null, 2)}\n` : textReport(shown, io),
      );
      for (const warning of shown.inspection.warnings)
        if (
          warning.type === 'over-window' ||
          warning.type === 'store-load' ||
          warning.type === 'context-loss'
        )
          io.stderr.write(`warning: ${warning.message}\n`);
      return EXIT_CODES.ok;
    } finally {
      await store.close();
      await requests?.close();
    }
  },
};

const INSPECT_FLAGS = {
  ...STORE_FLAGS,
  session: { type: 'string' },
  history: { type: 'string' },
  model: { type: 'string' },
  'context-window': { type: 'string' },
  'max-output': { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-messages': { type: 'string' },
  'warn-percent': { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** The session store the flags name, or a history file as a one-session store. */
async function inspectedStore(values: ParsedCliArgs['values'], io: CliIo): Promise<SessionStore> {
  const history = stringFlag(values, 'history');
  if (history === undefined) return openStore(values, io, 'read');
  if (['sessions', 'sqlite', 'pg'].some((name) => values[name] !== undefined))
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: 'Pass either --history FILE or a session store (--sessions, --sqlite, --pg), not both.',
    });
  return historyStore(path.resolve(io.cwd, history), stringFlag(values, 'session') ?? DEFAULT_SESSION_KEY);
}

/**
 * The request recorder's JSONL log beside the sessions (the build is compared with the last request
 * sent); none for a history file, nor for a store without such a log (see `openRequestStore`).
 */
async function recorderLog(
  values: ParsedCliArgs['values'],
  io: CliIo,
): Promise<RequestRecordStore | undefined> {
  if (values['history'] !== undefined) return undefined;
  return (await openRequestStore(values, io))?.store;
}

/** A history file as a one-session store, replayed like a stored session. */
async function historyStore(file: string, key: string): Promise<SessionStore> {
  await mustExist(file, 'file', '--history', 'Give a JSON or JSONL file of messages.');
  const store = new MemorySessionStore();
  await store.append(key, await readMessagesFile(file));
  return store;
}

/** The inspection with the store's load warnings (corrupt lines skipped) first among its warnings. */
function withStoreWarnings(result: SessionInspection): SessionInspection {
  if (result.storeWarnings.length === 0) return result;
  const store = result.storeWarnings.map((message) => ({ type: 'store-load' as const, message }));
  return {
    ...result,
    inspection: { ...result.inspection, warnings: [...store, ...result.inspection.warnings] },
  };
}

async function newestSession(inspector: SessionInspector): Promise<string | undefined> {
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
  const report = renderContextReport(result.inspection, {
    title: `Context of session ${result.key}`,
    columns: io.stdout.columns ?? 80,
    color: !noColor && (forceColor || io.stdout.isTTY === true),
  });
  const tools = renderToolCosts(result);
  return tools === '' ? report : `${report}\n${tools}`;
}

function jsonReport(result: SessionInspection): Readonly<Record<string, unknown>> {
  const { inspection } = result;
  return {
    session: result.key,
    model: inspection.model,
    contextWindowTokens: inspection.contextWindowTokens,
    maxOutputTokens: inspection.maxOutputTokens,
    usedTokens: inspection.usedTokens,
    tokenCounter: result.trace.tokenCounter,
    sections: sectionTotals(inspection.pieces),
    categories: inspection.categories.map(({ id, name, kind, tokens, percent }) => ({
      id,
      name,
      kind,
      tokens,
      percent,
    })),
    warnings: inspection.warnings,
    decisions: inspection.decisions,
    tools: result.toolCosts,
    loadedTools: result.loadedTools,
  };
}

const numberFormat = new Intl.NumberFormat('en-US');

/**
 * The tools part of the text report: each tool's tokens (the sent ones, then the deferred ones the
 * model loaded, then the other deferred ones, the largest first in each; at most `limit` rows), and
 * the deferred tools the model loaded; empty when there is nothing to show.
 */
function renderToolCosts(result: Pick<SessionInspection, 'toolCosts' | 'loadedTools'>, limit = 15): string {
  const { toolCosts, loadedTools } = result;
  if (toolCosts.length === 0 && loadedTools.length === 0) return '';
  const loaded = new Set(loadedTools);
  const sent = toolCosts.filter((tool) => tool.deferred !== true);
  const deferred = toolCosts.filter((tool) => tool.deferred === true);
  const sum = (tools: typeof toolCosts): number => tools.reduce((total, tool) => total + tool.tokens, 0);
  const lines = [
    `Tools: ${sent.length} sent (${numberFormat.format(sum(sent))} tokens)${
      deferred.length === 0
        ? ''
        : `, ${deferred.length} deferred (${numberFormat.format(sum(deferred))} tokens not sent)`
    }`,
  ];
  // The sent tools first, then the loaded deferred ones, then the rest; the largest first in each.
  const rank = (tool: (typeof toolCosts)[number]): number =>
    tool.deferred !== true ? 0 : loaded.has(tool.name) ? 1 : 2;
  const shown = [...toolCosts]
    .sort((left, right) => rank(left) - rank(right) || right.tokens - left.tokens)
    .slice(0, limit);
  const width = Math.max(...shown.map((tool) => tool.name.length), 4);
  for (const tool of shown) {
    const state = tool.deferred !== true ? '' : loaded.has(tool.name) ? '  deferred, loaded' : '  deferred';
    lines.push(`  ${tool.name.padEnd(width)}  ${numberFormat.format(tool.tokens).padStart(7)}${state}`);
  }
  if (toolCosts.length > shown.length) lines.push(`  … ${toolCosts.length - shown.length} more`);
  if (loadedTools.length > 0)
    lines.push(`Loaded deferred tools (${loadedTools.length}): ${loadedTools.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

function parseTokens(flag: string, value: string | undefined): number | undefined {
  return parseIntegerFlag(flag, { text: value, min: 0 });
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
