import path from 'node:path';
import { toAiSdkMessages } from '../../ai-sdk/index.js';
import {
  resolveAgentSettings,
  resolvePrompts,
  type TokenCounterConfig,
  tokenCounterConfigSchema,
} from '../../config/index.js';
import { createSequentialIdGenerator, textOf } from '../../core/index.js';
import {
  AdapterError,
  type BuildInput,
  type BuildTrace,
  type ChatPresetOptions,
  ContextBuilder,
  ContextError,
  type CtxloomConfig,
  createTokenCounter,
  JsonlSessionStore,
  loadConfig,
  type Message,
  type SessionRecord,
  type TokenCounter,
  toAnthropicMessages,
  toOpenAIChatMessages,
  traceDecisions,
} from '../../index.js';
import { readMessagesFile } from '../../sessions/index.js';
import { resolveInside } from '../../workspace/index.js';
import type { CliCommand, CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import { parseCliArgs } from '../parse-cli-args.js';
import { renderSectionTable } from '../render-section-table.js';
import { alignedSections } from '../section-tokens.js';
import {
  type AgentContext,
  agentContext,
  budgetProblems,
  DEFAULT_AGENT_MODEL,
  DEFAULT_SESSION_KEY,
  overBudgetError,
  resolveAgentBudget,
} from './agent-context.js';
import { mustExist, openStore, STORE_FLAGS } from './session-store-flags.js';

/** What a preset row receives: the resolved preset options, the workspace and the agent context. */
type PresetRequest = {
  readonly options: ChatPresetOptions;
  readonly workspace: string;
  readonly agent: AgentContext;
  readonly sessionKey: string;
};

/** `--preset` values: one row per preset; add a row to add a preset. */
const PRESETS: Readonly<Record<string, (request: PresetRequest) => ContextBuilder>> = {
  chat: (request) => ContextBuilder.forChat(request.options),
  react: (request) => ContextBuilder.forReact(request.options),
  skill: (request) => ContextBuilder.forSkill({ ...request.options, cwd: request.workspace }),
  // The workspace agent (nanobot), exactly as `inspect` and `serve` build it: the agent section of
  // ctxloom.yaml, the window, --max-tokens as the input budget, --max-messages.
  agent: (request) => request.agent.createBuilder(request.sessionKey),
};

/** What a format row returns: the value (`--json`), its text and what the format could not express. */
type Rendered = { readonly value: unknown; readonly text: string; readonly warnings: readonly string[] };

function asJson(value: unknown, warnings: readonly unknown[] = []): Rendered {
  return {
    value,
    text: `${JSON.stringify(value, null, 2)}\n`,
    warnings: warnings.map((warning) => JSON.stringify(warning)),
  };
}

/** `--format` values: one row per output format; each renders the built messages. */
const FORMATS: Readonly<Record<string, (messages: readonly Message[]) => Rendered>> = {
  json: (messages) => asJson(messages),
  openai: (messages) => {
    const result = toOpenAIChatMessages(messages);
    return asJson(result.messages, result.warnings);
  },
  anthropic: (messages) => {
    const result = toAnthropicMessages(messages);
    const request = {
      ...(result.system === undefined ? {} : { system: result.system }),
      messages: result.messages,
    };
    return asJson(request, result.warnings);
  },
  'ai-sdk': (messages) => {
    const result = toAiSdkMessages(messages, { carryMetadata: false });
    return asJson(result.messages, result.warnings);
  },
  text: (messages) => {
    const text = renderText(messages);
    return { value: text, text, warnings: [] };
  },
};

const COUNTER_TYPES = tokenCounterConfigSchema.shape.type.options;

const USAGE = `Usage: ctxloom build --workspace DIR [options] MESSAGE

Builds the context for MESSAGE from the workspace (bootstrap files, ctxloom.yaml, history) and prints
the messages on stdout; the token table per section goes to stderr. Flags win over ctxloom.yaml.

Options:
  --workspace DIR        the workspace folder (required)
  --history FILE         a JSON or JSONL file of messages (default: historyFile in ctxloom.yaml)
  --session KEY          replay a stored session instead (from the workspace's sessions, or the store below)
  --preset NAME          ${Object.keys(PRESETS).join(' | ')} (default: preset in ctxloom.yaml, else chat)
  --max-tokens N         token budget of the prompt (agent: the input budget the history is snipped to)
  --max-messages N       keep the pinned prefix plus the newest N messages
  --context-window N     agent: the model's window (default: agent.contextWindowTokens, else 65536)
  --max-output N         agent: tokens reserved for the answer (default: agent.maxOutputTokens, else 8192)
  --allow-over-budget    agent: print a context over the window or --max-tokens (a warning) instead of exit 3
  --counter NAME         ${COUNTER_TYPES.join(' | ')} (default: tokenCounter.type in ctxloom.yaml, else
                         tiktoken for a known OpenAI agent.model, else an estimate)
  --tokenizer FILE       the tokenizer.json for --counter hf (default: tokenCounter.tokenizerPath)
  --format NAME          ${Object.keys(FORMATS).join(' | ')} (default: json)
  --strict-format        exit 5 instead of warning when --format cannot carry part of the context
  --config FILE          the config file (default: DIR/ctxloom.yaml)
  --json                 print one JSON object: the messages in --format, the sections, totals, decisions
  --no-summary           leave out the token table on stderr

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
  const flags = parseFlags(args);
  const workspace = await workspaceDir(flags.workspace, io.cwd);
  const { config } = await loadConfig(
    flags.config === undefined ? { dir: workspace } : { path: path.resolve(io.cwd, flags.config) },
  );
  const presetName = pick('--preset', flags.preset ?? config.preset ?? 'chat', PRESETS);
  const formatName = pick('--format', flags.format ?? 'json', FORMATS);
  rejectAgentOnlyFlags(flags, presetName);
  const settings = resolveAgentSettings(config, workspace);
  const tokenCounter = await loadCounter(flags, {
    config,
    workspace,
    cwd: io.cwd,
    model: settings.model ?? DEFAULT_AGENT_MODEL,
  });
  const options = presetOptions(flags, { config, workspace, tokenCounter });
  const agent = agentContext({
    workspace,
    agent: settings,
    tokenCounter,
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
  const turn = await loadTurn(flags, {
    config,
    workspace,
    cwd: io.cwd,
    agent,
    io,
    sessionsDir: settings.sessionsDir,
  });
  const sessionKey = turn.sessionKey ?? DEFAULT_SESSION_KEY;
  const builder =
    PRESETS[presetName]?.({ options, workspace, agent, sessionKey }) ?? ContextBuilder.forChat(options);
  const { messages, trace } = await builder.build({
    ...turn,
    current: flags.message,
    runtimePrompt: options.runtimePrompt ?? {},
  });
  // The sections as `inspect` splits them (a joined system prompt by its parts' token counts).
  const shown = { ...trace, sections: alignedSections(trace, messages, tokenCounter) };
  const problems = presetName === 'agent' ? budgetProblems(trace, agent.budget) : [];
  if (problems.length > 0 && flags['allow-over-budget'] !== true)
    throw overBudgetError(problems, agent.budget, trace.totalTokens);
  const rendered = render(formatName, messages, flags['strict-format'] === true);
  writeResult(io, { flags, presetName, formatName, rendered, shown, problems, budget: agent.budget });
  return EXIT_CODES.ok;
}

/** What `build` prints: the result on stdout, the warnings and the token table on stderr. */
function writeResult(
  io: CliIo,
  result: {
    readonly flags: Flags;
    readonly presetName: string;
    readonly formatName: string;
    readonly rendered: Rendered;
    readonly shown: BuildTrace;
    readonly problems: readonly string[];
    readonly budget: AgentContext['budget'];
  },
): void {
  const { flags, presetName, formatName, rendered, shown, problems } = result;
  if (flags.json === true) {
    const report = {
      preset: presetName,
      format: formatName,
      messages: rendered.value,
      sections: shown.sections,
      toolTokens: shown.toolTokens,
      totalTokens: shown.totalTokens,
      tokenCounter: shown.tokenCounter,
      ...(presetName === 'agent' ? { budget: result.budget } : {}),
      decisions: traceDecisions(shown),
      warnings: [...problems, ...rendered.warnings],
    };
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else io.stdout.write(rendered.text);
  for (const warning of rendered.warnings) io.stderr.write(`warning (${formatName}): ${warning}\n`);
  for (const problem of problems) io.stderr.write(`warning: ${problem}\n`);
  if (flags['no-summary'] !== true && flags.json !== true) io.stderr.write(renderSummary(shown, presetName));
}

/** @throws ContextError `INVALID_OPTIONS` for a window flag of the agent preset with another preset. */
function rejectAgentOnlyFlags(flags: Flags, presetName: string): void {
  const agentOnly = (['context-window', 'max-output', 'allow-over-budget'] as const).find(
    (name) => flags[name] !== undefined,
  );
  if (presetName === 'agent' || agentOnly === undefined) return;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `--${agentOnly} sets the window of the agent preset, but the preset is ${presetName}; add --preset agent, or use --max-tokens for the ${presetName} preset's budget.`,
  });
}

/**
 * The messages in the format; with `strict`, a format that cannot carry everything is an error.
 * @throws AdapterError `ADAPTER_UNSUPPORTED` (exit 5) with `strict` and any warning.
 */
function render(formatName: string, messages: readonly Message[], strict: boolean): Rendered {
  const rendered = FORMATS[formatName]?.(messages) ?? { value: [], text: '', warnings: [] };
  if (!strict || rendered.warnings.length === 0) return rendered;
  throw new AdapterError({
    format: formatName,
    feature: 'lossless',
    message: `--format ${formatName} cannot carry everything in this context (${rendered.warnings.join('; ')}); drop --strict-format to print it anyway with these warnings on stderr, or pick another --format.`,
  });
}

/**
 * The history of the turn: with --session, the stored session replayed as the agent loop would (the
 * replay budget, the archived summary); else --history or historyFile in ctxloom.yaml (for the agent
 * preset replayed the same way, as `inspect` does); else none.
 */
async function loadTurn(
  flags: Flags,
  sources: Sources & { readonly agent: AgentContext; readonly io: CliIo; readonly sessionsDir: string },
): Promise<Pick<BuildInput, 'history' | 'summary' | 'sessionKey'>> {
  const storeFlag = (['sessions', 'sqlite', 'pg', 'pg-schema', 'nanobot-config'] as const).find(
    (name) => flags[name] !== undefined,
  );
  if (flags.session === undefined) {
    if (storeFlag !== undefined)
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `--${storeFlag} names the store --session is read from; add --session KEY, or drop --${storeFlag}.`,
      });
    const history = await loadHistory(flags.history, sources);
    if ((flags.preset ?? sources.config.preset) !== 'agent') return { history };
    return replayed(sources.agent, {
      key: DEFAULT_SESSION_KEY,
      messages: history,
      metadata: {},
      lastConsolidated: 0,
      exists: true,
      warnings: [],
    });
  }
  if (flags.history !== undefined) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: 'Pass either --session or --history, not both.',
    });
  }
  const store =
    storeFlag === undefined
      ? new JsonlSessionStore({ dir: sources.sessionsDir })
      : await openStore(flags, sources.io, 'read');
  try {
    const record = await store.load(flags.session);
    if (!record.exists) {
      throw new ContextError({
        code: 'NOT_FOUND',
        message: `No session ${JSON.stringify(flags.session)} in the ${store.id} store; 'ctxloom session list' shows the stored ones.`,
      });
    }
    return replayed(sources.agent, record);
  } finally {
    await store.close();
  }
}

function replayed(
  agent: AgentContext,
  record: SessionRecord,
): Pick<BuildInput, 'history' | 'summary' | 'sessionKey'> {
  const { history, input } = agent.replay(record);
  return {
    history,
    sessionKey: record.key,
    ...(input?.summary === undefined ? {} : { summary: input.summary }),
  };
}

type Sources = { readonly config: CtxloomConfig; readonly workspace: string; readonly cwd: string };

async function loadCounter(
  flags: Flags,
  sources: Sources & { readonly model: string | undefined },
): Promise<TokenCounter> {
  const type = counterType(flags.counter, sources.config);
  if (flags.tokenizer !== undefined && type !== 'hf') {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `--tokenizer is the tokenizer.json of the hf counter, but the counter is ${type ?? 'chosen by model'}; add --counter hf, or drop --tokenizer.`,
    });
  }
  const configured = sources.config.tokenCounter;
  const counterConfig: TokenCounterConfig | undefined =
    type === undefined
      ? undefined
      : {
          ...(configured?.type === type ? configured : {}),
          type,
          ...(flags.tokenizer === undefined
            ? {}
            : { tokenizerPath: path.resolve(sources.cwd, flags.tokenizer) }),
        };
  return createTokenCounter({
    config: counterConfig,
    workspace: sources.workspace,
    ...(sources.model === undefined ? {} : { model: sources.model }),
  });
}

/** The preset options: flags first, then ctxloom.yaml, then the defaults. */
function presetOptions(
  flags: Flags,
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

const BUILD_FLAGS = {
  ...STORE_FLAGS,
  history: { type: 'string' },
  session: { type: 'string' },
  preset: { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-messages': { type: 'string' },
  'context-window': { type: 'string' },
  'max-output': { type: 'string' },
  'allow-over-budget': { type: 'boolean' },
  'strict-format': { type: 'boolean' },
  counter: { type: 'string' },
  tokenizer: { type: 'string' },
  format: { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean' },
  'no-summary': { type: 'boolean' },
} as const;

type Flags = {
  readonly [name in keyof typeof BUILD_FLAGS]?: (typeof BUILD_FLAGS)[name]['type'] extends 'boolean'
    ? boolean
    : string;
} & { readonly message: string };

function parseFlags(args: readonly string[]): Flags {
  const parsed = parseCliArgs('build', args, BUILD_FLAGS);
  const message = parsed.positionals.join(' ');
  if (message.trim() === '') {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message:
        'ctxloom build needs a MESSAGE, e.g. ctxloom build --workspace . "What should I work on next?"',
    });
  }
  // parseCliArgs checked every value against BUILD_FLAGS: strings for string flags, booleans for switches.
  return { ...(parsed.values as Omit<Flags, 'message'>), message };
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

function counterType(
  flag: string | undefined,
  config: CtxloomConfig,
): TokenCounterConfig['type'] | undefined {
  const value = flag ?? config.tokenCounter?.type;
  if (value === undefined) return undefined;
  const parsed = tokenCounterConfigSchema.shape.type.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `--counter ${JSON.stringify(value)} is not supported; use one of: ${COUNTER_TYPES.join(', ')}.`,
  });
}

function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (Number.isInteger(number) && number >= 0) return number;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `${flag} must be a whole number ≥ 0, got ${JSON.stringify(value)}.`,
  });
}

function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (Number.isInteger(number) && number > 0) return number;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `${flag} must be a positive integer, got ${JSON.stringify(value)}.`,
  });
}

async function loadHistory(flag: string | undefined, sources: Sources): Promise<readonly Message[]> {
  if (flag !== undefined) return readMessagesFile(path.resolve(sources.cwd, flag));
  const { historyFile } = sources.config;
  return historyFile === undefined ? [] : readMessagesFile(resolveInside(sources.workspace, historyFile));
}

function renderSummary(trace: BuildTrace, preset: string): string {
  const decisions = traceDecisions(trace).map(
    (decision) =>
      `  ${decision.stage}: ${decision.type} (${decision.messageIds.length} messages): ${decision.reason}`,
  );
  const errors = trace.stages.flatMap((stage) =>
    stage.error === undefined ? [] : [`  ${stage.id}: ${stage.error.code}: ${stage.error.message}`],
  );
  return [
    `preset: ${preset}`,
    renderSectionTable(trace),
    ...(decisions.length === 0 ? [] : ['decisions:', ...decisions, '']),
    ...(errors.length === 0 ? [] : ['stage errors (skipped):', ...errors, '']),
  ].join('\n');
}

function renderText(messages: readonly Message[]): string {
  return messages
    .map((message) => {
      const section = message.metadata?.['section'];
      const calls = (message.toolCalls ?? []).map(
        (call) => `\n  -> ${call.name}(${call.arguments}) [${call.id}]`,
      );
      const reply = message.toolCallId === undefined ? '' : ` (result of ${message.toolCallId})`;
      return `--- ${message.role} [${String(section ?? 'unknown')}]${reply}\n${textOf(message.content)}${calls.join('')}\n`;
    })
    .join('\n');
}
