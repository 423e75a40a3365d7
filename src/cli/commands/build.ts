import path from 'node:path';
import { resolveAgentSettings, resolvePrompts } from '../../config/index.js';
import { createSequentialIdGenerator } from '../../core/index.js';
import {
  type AutoCompactionOptions,
  type ChatPresetOptions,
  ContextBuilder,
  ContextError,
  type CtxloomConfig,
  JsonlSessionStore,
  loadConfig,
  type SessionStore,
  type TokenCounter,
} from '../../index.js';
import type { CliCommand, CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import { alignedSections } from '../section-tokens.js';
import {
  agentContext,
  budgetProblems,
  DEFAULT_AGENT_MODEL,
  DEFAULT_SESSION_KEY,
  overBudgetError,
  resolveAgentBudget,
} from './agent-context.js';
import { type BuildFlags, parseBuildFlags, positiveInteger, wholeNumber } from './build-flags.js';
import { BUILD_FORMATS, renderBuildFormat } from './build-formats.js';
import { BUILD_PRESETS } from './build-presets.js';
import { COUNTER_TYPES, loadBuildCounter } from './load-build-counter.js';
import { loadBuildTurn } from './load-build-turn.js';
import { mustExist, openModel, openStore } from './session-store-flags.js';
import { writeBuildResult } from './write-build-result.js';

const USAGE = `Usage: ctxloom build --workspace DIR [options] MESSAGE

Builds the context for MESSAGE from the workspace (bootstrap files, ctxloom.yaml, history) and prints
the messages on stdout; the token table per section goes to stderr.

Which setting wins: a flag you pass overrides the same setting in ctxloom.yaml (DIR/ctxloom.yaml, or
--config FILE), and ctxloom.yaml overrides the built-in defaults shown below. E.g. --max-tokens 4000
wins over maxInputTokens in ctxloom.yaml; without either, the preset's own budget applies.

Options:
  --workspace DIR        the workspace folder (required)
  --history FILE         a JSON or JSONL file of messages (default: historyFile in ctxloom.yaml)
  --session KEY          replay a stored session instead (from the workspace's sessions, or the store below)
  --preset NAME          ${Object.keys(BUILD_PRESETS).join(' | ')} (default: preset in ctxloom.yaml, else chat)
  --max-tokens N         token budget of the prompt (agent: the input budget the history is snipped to)
  --max-messages N       keep the pinned prefix plus the newest N messages
  --context-window N     agent: the model's window (default: agent.contextWindowTokens, else 65536)
  --max-output N         agent: tokens reserved for the answer (default: agent.maxOutputTokens, else 8192)
  --allow-over-budget    agent: print a context over the window or --max-tokens (a warning) instead of exit 3
  --write-offloads       agent: save oversized tool results to DIR/.ctxloom/tool-results/ as the agent does,
                         so the references printed point at real files (default: a dry run that writes
                         nothing; its references say the output "would be saved to" a path)
  --counter NAME         ${COUNTER_TYPES.join(' | ')} (default: tokenCounter.type in ctxloom.yaml, else
                         tiktoken for a known OpenAI agent.model, else an estimate)
  --tokenizer FILE       the tokenizer.json for --counter hf (default: tokenCounter.tokenizerPath)
  --format NAME          ${Object.keys(BUILD_FORMATS).join(' | ')} (default: json)
  --strict-format        exit 5 instead of warning when --format cannot carry part of the context
  --config FILE          the config file (default: DIR/ctxloom.yaml)
  --json                 print one JSON object: the messages in --format, the sections, totals, decisions
  --no-summary           leave out the token table on stderr
  --compact              agent, with --session: compact the session automatically when the request
                         reaches the trigger (the compaction section of ctxloom.yaml), storing the record;
                         the summariser is the model endpoint: --model-url URL --model NAME [--api-key KEY]
                         [--timeout-ms N] [--max-retries N] [--retry-delay-ms N] (or CTXLOOM_MODEL_URL,
                         CTXLOOM_MODEL, CTXLOOM_API_KEY)

Where --session is read from (default: sessionsDir in ctxloom.yaml, else DIR/sessions):
  --sessions DIR | --sqlite PATH | --pg URL [--pg-schema NAME]
`;

/** `ctxloom build`: builds and prints the context for a message in a workspace. */
export const buildCommand: CliCommand = {
  name: 'build',
  summary: 'Build the context for a message in a workspace and show where the tokens go',
  usage: USAGE,
  run: runBuild,
};

async function runBuild(args: readonly string[], io: CliIo): Promise<number> {
  const flags = parseBuildFlags(args);
  const workspace = await workspaceDir(flags.workspace, io.cwd);
  const { config } = await loadConfig(
    flags.config === undefined ? { dir: workspace } : { path: path.resolve(io.cwd, flags.config) },
  );
  const presetName = pick('--preset', flags.preset ?? config.preset ?? 'chat', BUILD_PRESETS);
  const formatName = pick('--format', flags.format ?? 'json', BUILD_FORMATS);
  rejectAgentOnlyFlags(flags, presetName);
  const settings = resolveAgentSettings(config, workspace);
  const tokenCounter = await loadBuildCounter(flags, {
    config,
    workspace,
    cwd: io.cwd,
    model: settings.model ?? DEFAULT_AGENT_MODEL,
  });
  const options = presetOptions(flags, { config, workspace, tokenCounter });
  const compaction = await buildCompaction(flags, {
    config,
    io,
    presetName,
    sessionsDir: settings.sessionsDir,
  });
  const agent = agentContext({
    workspace,
    agent: settings,
    tokenCounter,
    compaction: compaction?.options,
    writeOffloads: flags['write-offloads'] === true,
    budget: resolveAgentBudget(
      {
        contextWindowTokens: positiveInteger('--context-window', flags['context-window']),
        maxOutputTokens: wholeNumber('--max-output', flags['max-output']),
        maxTokens: positiveInteger('--max-tokens', flags['max-tokens']),
        maxMessages: positiveInteger('--max-messages', flags['max-messages']),
      },
      settings,
    ),
  });
  const turn = await loadBuildTurn(flags, {
    config,
    workspace,
    cwd: io.cwd,
    agent,
    io,
    sessionsDir: settings.sessionsDir,
  });
  const { loadWarnings, ...input } = turn;
  const sessionKey = turn.sessionKey ?? DEFAULT_SESSION_KEY;
  const builder =
    BUILD_PRESETS[presetName]?.({ options, workspace, agent, sessionKey }) ?? ContextBuilder.forChat(options);
  const { messages, trace } = await builder
    .build({
      ...input,
      current: flags.message,
      runtimePrompt: options.runtimePrompt ?? {},
    })
    .finally(() => compaction?.store.close());
  // The sections as `inspect` splits them (a joined system prompt by its parts' token counts).
  const shown = { ...trace, sections: alignedSections(trace, messages, tokenCounter) };
  const problems = presetName === 'agent' ? budgetProblems(trace, agent.budget) : [];
  if (problems.length > 0 && flags['allow-over-budget'] !== true)
    throw overBudgetError(problems, agent.budget, trace.totalTokens);
  const rendered = renderBuildFormat(formatName, messages, flags['strict-format'] === true);
  writeBuildResult(io, {
    flags,
    presetName,
    formatName,
    rendered,
    shown,
    problems: [...loadWarnings, ...problems],
    budget: agent.budget,
  });
  return EXIT_CODES.ok;
}

/**
 * `--compact`: the agent preset compacts the session automatically (the `compaction` section of
 * ctxloom.yaml, the summariser from the model flags), appending the record to the session's store.
 * @throws ContextError `INVALID_OPTIONS` without `--session`, with another preset, or without a model endpoint.
 */
async function buildCompaction(
  flags: BuildFlags,
  sources: {
    readonly config: CtxloomConfig;
    readonly io: CliIo;
    readonly presetName: string;
    readonly sessionsDir: string;
  },
): Promise<
  | { readonly options: AutoCompactionOptions; readonly store: SessionStore & { close(): Promise<void> } }
  | undefined
> {
  if (flags.compact !== true) return undefined;
  if (sources.presetName !== 'agent' || flags.session === undefined)
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `--compact compacts a stored session with the agent preset; add --preset agent and --session KEY (the preset is ${sources.presetName}${flags.session === undefined ? ', no --session' : ''}).`,
    });
  const settings = sources.config.compaction ?? {};
  const summarizer = openModel(flags, sources.io);
  const usesFlags = (['sessions', 'sqlite', 'pg', 'pg-schema', 'nanobot-config'] as const).some(
    (name) => flags[name] !== undefined,
  );
  const store = usesFlags
    ? await openStore(flags, sources.io, 'write')
    : new JsonlSessionStore({ dir: sources.sessionsDir });
  return {
    store,
    options: {
      summarizer,
      store,
      ...(settings.trigger === undefined ? {} : { trigger: settings.trigger }),
      ...(settings.target === undefined ? {} : { target: settings.target }),
      ...(settings.minGain === undefined ? {} : { minGain: settings.minGain }),
      ...(settings.keepRecent === undefined ? {} : { keepRecent: settings.keepRecent }),
      ...(settings.instructions === undefined ? {} : { instructions: settings.instructions }),
      ...(settings.maxOutputTokens === undefined ? {} : { maxOutputTokens: settings.maxOutputTokens }),
      ...(settings.pinTools === undefined ? {} : { pinned: { tools: settings.pinTools } }),
    },
  };
}

/** @throws ContextError `INVALID_OPTIONS` for a flag of the agent preset (window, offloads) with another preset. */
function rejectAgentOnlyFlags(flags: BuildFlags, presetName: string): void {
  const agentOnly = (['context-window', 'max-output', 'allow-over-budget', 'write-offloads'] as const).find(
    (name) => flags[name] !== undefined,
  );
  if (presetName === 'agent' || agentOnly === undefined) return;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message:
      agentOnly === 'write-offloads'
        ? `--write-offloads saves the agent preset's offloaded tool results, but the preset is ${presetName} (it offloads nothing); add --preset agent, or drop --write-offloads.`
        : `--${agentOnly} sets the window of the agent preset, but the preset is ${presetName}; add --preset agent, or use --max-tokens for the ${presetName} preset's budget.`,
  });
}

/** The preset options: flags first, then ctxloom.yaml, then the defaults. */
function presetOptions(
  flags: BuildFlags,
  sources: {
    readonly config: CtxloomConfig;
    readonly workspace: string;
    readonly tokenCounter?: TokenCounter | undefined;
  },
): ChatPresetOptions {
  const { config, workspace, tokenCounter } = sources;
  const maxTokens = positiveInteger('--max-tokens', flags['max-tokens']) ?? config.maxInputTokens;
  const maxMessages = positiveInteger('--max-messages', flags['max-messages']) ?? config.maxMessages;
  return {
    workspace,
    runtimePrompt: { workspaceDir: workspace, includeBootstrapFiles: config.includeBootstrapFiles ?? true },
    prompts: resolvePrompts(config),
    annotateHistory: config.annotateHistory ?? false,
    sanitizeToolCalls: config.sanitizeToolCalls ?? true,
    generateId: createSequentialIdGenerator('ctx'),
    ...(tokenCounter === undefined ? {} : { tokenCounter }),
    ...(maxTokens === undefined ? {} : { maxInputTokens: maxTokens }),
    ...(maxMessages === undefined ? {} : { maxMessages }),
  };
}

async function workspaceDir(flag: string | undefined, cwd: string): Promise<string> {
  if (flag === undefined) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: 'ctxloom build needs --workspace DIR (the folder with AGENTS.md, ctxloom.yaml, …).',
    });
  }
  const dir = path.resolve(cwd, flag);
  await mustExist(dir, 'folder', '--workspace', "Create one with 'ctxloom init DIR'.");
  return dir;
}

function pick<TTable extends Readonly<Record<string, unknown>>>(
  flag: string,
  value: string,
  table: TTable,
): string {
  if (Object.hasOwn(table, value)) return value;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `${flag} ${JSON.stringify(value)} is not supported; use one of: ${Object.keys(table).join(', ')}.`,
  });
}
