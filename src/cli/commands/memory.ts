import {
  type AgentSettings,
  agentOptionsFromSettings,
  type ConsolidationResult,
  ContextBuilder,
  DEFAULT_AGENT_PRESET,
  HistoryLog,
  LegacyHistoryFile,
  loadConfig,
  MemoryConsolidator,
  MemoryFile,
  MemoryWriter,
  migrateLegacyHistory,
  resolveAgentSettings,
  type SessionStore,
  type SystemPromptSource,
  textOf,
} from '../../index.js';
import type { CliCommand, CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import {
  MODEL_FLAGS,
  MODEL_USAGE,
  numberFlag,
  openModel,
  openStore,
  parseFlags,
  STORE_FLAGS,
  STORE_USAGE,
  workspaceOf,
} from './session-store-flags.js';

const FLAGS = {
  ...STORE_FLAGS,
  ...MODEL_FLAGS,
  'context-window': { type: 'string' },
  'max-output': { type: 'string' },
  'idle-minutes': { type: 'string' },
  'legacy-history': { type: 'boolean' },
  'plain-prompt': { type: 'boolean' },
} as const;

const USAGE = `Usage:
  ctxloom memory status
  ctxloom memory consolidate [KEY...] [--context-window N] [--max-output N] [--idle-minutes N] [--legacy-history] [--plain-prompt]
  ctxloom memory write

consolidate: archives old turns of the given sessions (default: all) into memory/history.jsonl once a
session's prompt reaches the budget (context window − max output − 1024; defaults: the agent section of
ctxloom.yaml, else 65536 and 8192).
With --idle-minutes N it instead archives the whole unarchived tail of sessions quiet for N minutes.
Archive requests reuse the agent's system prompt (the agent preset) unless --plain-prompt.
A legacy memory/HISTORY.md is moved into history.jsonl first (unless --legacy-history).
write: updates memory/MEMORY.md from unprocessed history entries (20 per request).

${STORE_USAGE}

${MODEL_USAGE}`;

type Values = ReturnType<typeof parseFlags>['values'];
type Request = {
  readonly values: Values;
  readonly keys: readonly string[];
  readonly io: CliIo;
  readonly workspace: string;
};

const ACTIONS: Readonly<Record<string, (request: Request) => Promise<number>>> = {
  status: (request) => withStore(request, (store) => status(request, store)),
  consolidate: (request) => withStore(request, (store) => consolidate(request, store)),
  write: async ({ values, io, workspace }) => {
    const writer = new MemoryWriter({
      workspace,
      model: openModel(values, io),
      onProgress: (line) => io.stderr.write(`${line}\n`),
    });
    const result = await writer.run();
    io.stdout.write(
      `Memory writer: ${result.status}, ${result.processed} entries processed, Dream cursor ${result.cursor}.\n`,
    );
    if (result.reason !== undefined) io.stdout.write(`Not written: ${result.reason}\n`);
    return result.status === 'failed' ? EXIT_CODES.unexpected : EXIT_CODES.ok;
  },
};

/** `ctxloom memory`: memory status, consolidation and the memory writer against a model endpoint. */
export const memoryCommand: CliCommand = {
  name: 'memory',
  summary: 'Show memory status, consolidate old turns, update MEMORY.md with a model',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
    const [action, ...keys] = positionals;
    const run = action === undefined ? undefined : ACTIONS[action];
    if (run === undefined) {
      io.stderr.write(`INVALID_OPTIONS: expected status, consolidate or write.\n${USAGE}\n`);
      return EXIT_CODES.invalid;
    }
    return run({ values, keys, io, workspace: workspaceOf(values, io) });
  },
};

async function withStore(request: Request, task: (store: SessionStore) => Promise<number>): Promise<number> {
  const store = await openStore(request.values, request.io);
  try {
    return await task(store);
  } finally {
    await store.close();
  }
}

async function status(request: Request, store: SessionStore): Promise<number> {
  const { io, workspace } = request;
  const memory = await new MemoryFile({ workspace }).read();
  const log = new HistoryLog({ workspace });
  const { entries, warnings } = await log.readWithWarnings();
  const dream = await log.readDreamCursor();
  const unprocessed = entries.filter((entry) => entry.cursor > dream).length;
  io.stdout.write(`Workspace: ${workspace}\n`);
  io.stdout.write(`MEMORY.md: ${memory === '' ? 'missing or empty' : `${memory.length} characters`}\n`);
  io.stdout.write(
    `history.jsonl: ${entries.length} entries, latest cursor ${await log.latestCursor()}, Dream cursor ${dream}, ${unprocessed} unprocessed${warnings.length > 0 ? `, ${warnings.length} unreadable lines` : ''}\n`,
  );
  const legacy = await new LegacyHistoryFile({ workspace }).read();
  if (legacy !== '') {
    io.stdout.write(
      `memory/HISTORY.md (legacy): ${legacy.length} characters; 'memory consolidate' moves it into history.jsonl\n`,
    );
  }
  const sessions = await store.list();
  io.stdout.write(`Sessions (${store.id}): ${sessions.length}\n`);
  for (const entry of sessions) {
    const record = await store.load(entry.key);
    io.stdout.write(
      `  ${entry.key}: ${record.lastConsolidated}/${record.messages.length} messages archived\n`,
    );
  }
  return EXIT_CODES.ok;
}

async function consolidate(request: Request, store: SessionStore): Promise<number> {
  const { values, io, workspace } = request;
  const progress = (line: string): void => {
    io.stderr.write(`${line}\n`);
  };
  const { config } = await loadConfig({ dir: workspace, optional: true });
  const agent = resolveAgentSettings(config, workspace);
  const consolidator = new MemoryConsolidator({
    workspace,
    store,
    model: openModel(values, io),
    contextWindowTokens:
      numberFlag(values, 'context-window') ??
      agent.contextWindowTokens ??
      DEFAULT_AGENT_PRESET.contextWindowTokens,
    maxOutputTokens:
      numberFlag(values, 'max-output') ?? agent.maxOutputTokens ?? DEFAULT_AGENT_PRESET.maxOutputTokens,
    historyFormat: values['legacy-history'] === true ? 'legacy-markdown' : 'jsonl',
    onProgress: progress,
    ...(values['plain-prompt'] === true ? {} : { systemPrompt: agentSystemPrompt(workspace, agent) }),
  });
  if (values['legacy-history'] !== true) {
    const migrated = await migrateLegacyHistory({ workspace });
    if (migrated > 0)
      progress(
        `moved ${migrated} entries from memory/HISTORY.md into memory/history.jsonl (kept HISTORY.md.bak)`,
      );
  }
  const idleMinutes = numberFlag(values, 'idle-minutes');
  if (idleMinutes !== undefined) {
    const results = await consolidator.consolidateIdle({ idleAfterMs: idleMinutes * 60_000 });
    for (const result of results) io.stdout.write(`${result.sessionKey}: ${result.outcome.kind}\n`);
    io.stdout.write(`Archived ${results.length} idle session${results.length === 1 ? '' : 's'}.\n`);
    return EXIT_CODES.ok;
  }
  const keys = request.keys.length > 0 ? request.keys : (await store.list()).map((entry) => entry.key);
  for (const [index, key] of keys.entries()) {
    progress(`[${index + 1}/${keys.length}] ${key}`);
    io.stdout.write(`${key}: ${describe(await consolidator.maybeConsolidate(key))}\n`);
  }
  return EXIT_CODES.ok;
}

function describe(result: ConsolidationResult): string {
  const estimate = `estimate ${result.estimateBefore} → ${result.estimateAfter} tokens (budget ${result.budget}, target ${result.target})`;
  if (result.rounds.length === 0) return `${result.status}, ${estimate}`;
  const kinds = result.rounds.map((round) => `${round.outcome.kind}@${round.boundary}`).join(', ');
  return `${result.status} in ${result.rounds.length} round${result.rounds.length === 1 ? '' : 's'} (${kinds}), ${estimate}`;
}

/** The agent preset's system prompt for a session, so archive requests share the ordinary prefix. */
function agentSystemPrompt(workspace: string, agent: AgentSettings): SystemPromptSource {
  return async ({ sessionKey, summary }) => {
    // The same system prompt as an ordinary turn (Recent History included), so archive requests
    // share the turn's prompt-cache prefix and the model sees what is already recorded.
    const builder = ContextBuilder.forAgent({
      workspace,
      ...agentOptionsFromSettings(agent),
      channel: agent.channel ?? sessionKey.split(':')[0] ?? 'cli',
    });
    const { messages } = await builder.build({
      history: [],
      current: '[token-probe]',
      sessionKey,
      ...(summary === undefined ? {} : { summary }),
    });
    return messages
      .filter((message) => message.role === 'system')
      .map((message) => textOf(message.content))
      .join('\n\n');
  };
}
