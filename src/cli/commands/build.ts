import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { toAiSdkMessages } from '../../ai-sdk/index.js';
import {
  type AgentPresetOptions,
  type AgentSettings,
  agentOptionsFromSettings,
  type BuildInput,
  type BuildTrace,
  type ChatPresetOptions,
  ContextBuilder,
  ContextError,
  type CtxloomConfig,
  createSequentialIdGenerator,
  createTokenCounter,
  DEFAULT_AGENT_PRESET,
  JsonlSessionStore,
  loadConfig,
  type Message,
  readMessagesFile,
  replaySession,
  resolveAgentSettings,
  resolveInside,
  resolvePrompts,
  type TokenCounter,
  type TokenCounterConfig,
  textOf,
  toAnthropicMessages,
  tokenCounterConfigSchema,
  toOpenAIChatMessages,
  traceDecisions,
} from '../../index.js';
import type { CliCommand, CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import { renderSectionTable } from '../render-section-table.js';

/** What a preset row receives: the resolved preset options, the workspace and the agent settings. */
type PresetRequest = {
  readonly options: ChatPresetOptions;
  readonly workspace: string;
  readonly agent: AgentSettings;
  /** `--max-tokens` as given on the command line (the agent's window; it beats the config). */
  readonly maxTokensFlag?: number | undefined;
};

/** `--preset` values: one row per preset; add a row to add a preset. */
const PRESETS: Readonly<Record<string, (request: PresetRequest) => ContextBuilder>> = {
  chat: (request) => ContextBuilder.forChat(request.options),
  react: (request) => ContextBuilder.forReact(request.options),
  skill: (request) => ContextBuilder.forSkill({ ...request.options, cwd: request.workspace }),
  agent: (request) => ContextBuilder.forAgent(agentOptions(request)),
};

/**
 * The agent preset (nanobot): the workspace is the agent workspace; the `agent` section of
 * ctxloom.yaml sets the channel, limits, project folder and skills; --max-tokens is the context window.
 */
function agentOptions(request: PresetRequest): AgentPresetOptions {
  const { options, workspace, agent } = request;
  return {
    workspace,
    channel: 'cli',
    ...agentOptionsFromSettings(agent),
    ...(options.tokenCounter === undefined ? {} : { tokenCounter: options.tokenCounter }),
    // The config's top-level maxTokens is a chat budget: it never replaces agent.contextWindowTokens.
    ...(request.maxTokensFlag !== undefined
      ? { contextWindowTokens: request.maxTokensFlag }
      : options.maxTokens === undefined || agent.contextWindowTokens !== undefined
        ? {}
        : { contextWindowTokens: options.maxTokens }),
    ...(options.generateId === undefined ? {} : { generateId: options.generateId }),
  };
}

/** What a format row returns: the rendered text and what the format could not express. */
type Rendered = { readonly text: string; readonly warnings: readonly string[] };

/** `--format` values: one row per output format; each renders the built messages. */
const FORMATS: Readonly<Record<string, (messages: readonly Message[]) => Rendered>> = {
  json: (messages) => ({ text: `${JSON.stringify(messages, null, 2)}\n`, warnings: [] }),
  openai: (messages) => {
    const result = toOpenAIChatMessages(messages);
    const warnings = result.warnings.map((warning) => JSON.stringify(warning));
    return { text: `${JSON.stringify(result.messages, null, 2)}\n`, warnings };
  },
  anthropic: (messages) => {
    const result = toAnthropicMessages(messages);
    const warnings = result.warnings.map((warning) => JSON.stringify(warning));
    const request = {
      ...(result.system === undefined ? {} : { system: result.system }),
      messages: result.messages,
    };
    return { text: `${JSON.stringify(request, null, 2)}\n`, warnings };
  },
  'ai-sdk': (messages) => {
    const result = toAiSdkMessages(messages, { carryMetadata: false });
    const warnings = result.warnings.map((warning) => JSON.stringify(warning));
    return { text: `${JSON.stringify(result.messages, null, 2)}\n`, warnings };
  },
  text: (messages) => ({ text: renderText(messages), warnings: [] }),
};

const COUNTER_TYPES = tokenCounterConfigSchema.shape.type.options;

const USAGE = `Usage: ctxloom build --workspace DIR [options] MESSAGE

Builds the context for MESSAGE from the workspace (bootstrap files, ctxloom.yaml, history) and prints the
messages, then a token table per section. Flags win over ctxloom.yaml.

Options:
  --workspace DIR      the workspace folder (required)
  --history FILE       a JSON or JSONL file of messages (default: historyFile in ctxloom.yaml)
  --session KEY        replay a stored session (sessionsDir in ctxloom.yaml, default DIR/sessions) instead
  --preset NAME        ${Object.keys(PRESETS).join(' | ')} (default: preset in ctxloom.yaml, else chat)
  --max-tokens N       token budget of the whole request
  --max-messages N     keep the pinned prefix plus the newest N messages
  --counter NAME       ${COUNTER_TYPES.join(' | ')} (default: tokenCounter.type in ctxloom.yaml, else simple)
  --tokenizer FILE     the tokenizer.json for --counter hf (default: tokenCounter.tokenizerPath)
  --format NAME        ${Object.keys(FORMATS).join(' | ')} (default: json)
  --config FILE        the config file (default: DIR/ctxloom.yaml)
  --no-summary         print only the messages, without the token table
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
  const agent = resolveAgentSettings(config, workspace);
  const tokenCounter = await loadCounter(flags, { config, workspace, cwd: io.cwd, model: agent.model });
  const options = presetOptions(flags, { config, workspace, tokenCounter });
  const maxTokensFlag = positiveInteger('--max-tokens', flags['max-tokens']);
  const builder =
    PRESETS[presetName]?.({ options, workspace, agent, maxTokensFlag }) ?? ContextBuilder.forChat(options);
  const turn = await loadTurn(flags, { config, workspace, cwd: io.cwd, agent, tokenCounter });
  const { messages, trace } = await builder.build({
    ...turn,
    current: flags.message,
    runtimePrompt: options.runtimePrompt ?? {},
  });
  const rendered = FORMATS[formatName]?.(messages) ?? { text: '', warnings: [] };
  io.stdout.write(rendered.text);
  for (const warning of rendered.warnings) io.stderr.write(`warning (${formatName}): ${warning}\n`);
  if (flags['no-summary'] !== true) io.stdout.write(`\n${renderSummary(trace, presetName)}`);
  return EXIT_CODES.ok;
}

/**
 * The history of the turn: with --session, the stored session replayed as the agent loop would (the
 * replay budget, the archived summary); else --history or historyFile in ctxloom.yaml; else none.
 */
async function loadTurn(
  flags: Flags,
  sources: Sources & { readonly agent: AgentSettings; readonly tokenCounter: TokenCounter },
): Promise<Pick<BuildInput, 'history' | 'summary' | 'sessionKey'>> {
  if (flags.session === undefined) return { history: await loadHistory(flags.history, sources) };
  if (flags.history !== undefined) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: 'Pass either --session or --history, not both.',
    });
  }
  const store = new JsonlSessionStore({ dir: sources.agent.sessionsDir });
  try {
    const record = await store.load(flags.session);
    if (!record.exists) {
      throw new ContextError({
        code: 'NOT_FOUND',
        message: `No session ${JSON.stringify(flags.session)} in ${sources.agent.sessionsDir}; 'ctxloom session list' shows the stored ones.`,
      });
    }
    const { history, summary } = replaySession(record, {
      tokenCounter: sources.tokenCounter,
      contextWindowTokens: sources.agent.contextWindowTokens ?? DEFAULT_AGENT_PRESET.contextWindowTokens,
      maxOutputTokens: sources.agent.maxOutputTokens ?? DEFAULT_AGENT_PRESET.maxOutputTokens,
    });
    return { history, sessionKey: flags.session, ...(summary === undefined ? {} : { summary }) };
  } finally {
    await store.close();
  }
}

type Sources = { readonly config: CtxloomConfig; readonly workspace: string; readonly cwd: string };

async function loadCounter(
  flags: Flags,
  sources: Sources & { readonly model: string | undefined },
): Promise<TokenCounter> {
  const counterConfig: TokenCounterConfig = {
    ...sources.config.tokenCounter,
    type: counterType(flags.counter, sources.config),
    ...(flags.tokenizer === undefined ? {} : { tokenizerPath: path.resolve(sources.cwd, flags.tokenizer) }),
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
  const maxTokens = positiveInteger('--max-tokens', flags['max-tokens']) ?? config.maxTokens;
  const maxMessages = positiveInteger('--max-messages', flags['max-messages']) ?? config.maxMessages;
  return {
    workspace,
    runtimePrompt: { workspaceDir: workspace, includeBootstrapFiles: config.includeBootstrapFiles ?? true },
    prompts: resolvePrompts(config),
    annotateHistory: config.annotateHistory ?? false,
    sanitizeToolCalls: config.sanitizeToolCalls ?? true,
    generateId: createSequentialIdGenerator('ctx'),
    ...(tokenCounter === undefined ? {} : { tokenCounter }),
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(maxMessages === undefined ? {} : { maxMessages }),
  };
}

type Flags = {
  readonly workspace?: string;
  readonly history?: string;
  readonly session?: string;
  readonly preset?: string;
  readonly 'max-tokens'?: string;
  readonly 'max-messages'?: string;
  readonly counter?: string;
  readonly tokenizer?: string;
  readonly format?: string;
  readonly config?: string;
  readonly 'no-summary'?: boolean;
  readonly message: string;
};

function parseFlags(args: readonly string[]): Flags {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `${error instanceof Error ? error.message : String(error)}. Run 'ctxloom build --help'.`,
    });
  }
  const message = parsed.positionals.join(' ');
  if (message.trim() === '') {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message:
        'ctxloom build needs a MESSAGE, e.g. ctxloom build --workspace . "What should I work on next?"',
    });
  }
  return { ...parsed.values, message };
}

function parse(args: readonly string[]) {
  const text = { type: 'string' } as const;
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      workspace: text,
      history: text,
      session: text,
      preset: text,
      'max-tokens': text,
      'max-messages': text,
      counter: text,
      tokenizer: text,
      format: text,
      config: text,
      'no-summary': { type: 'boolean' },
    },
  });
}

async function workspaceDir(flag: string | undefined, cwd: string): Promise<string> {
  if (flag === undefined) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: 'ctxloom build needs --workspace DIR (the folder with AGENTS.md, ctxloom.yaml, …).',
    });
  }
  const dir = path.resolve(cwd, flag);
  const info = await stat(dir).catch(() => undefined);
  if (info?.isDirectory() !== true) {
    throw new ContextError({
      code: 'NOT_FOUND',
      message: `Workspace ${dir} is not a folder; check --workspace.`,
    });
  }
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

function counterType(flag: string | undefined, config: CtxloomConfig): TokenCounterConfig['type'] {
  const value = flag ?? config.tokenCounter?.type ?? 'simple';
  const parsed = tokenCounterConfigSchema.shape.type.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `--counter ${JSON.stringify(value)} is not supported; use one of: ${COUNTER_TYPES.join(', ')}.`,
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
