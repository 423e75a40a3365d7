import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type AgentSettings, resolveAgentSettings } from '../../config/index.js';
import { textOf } from '../../core/index.js';
import {
  type ConsolidationResult,
  ContextBuilder,
  ContextError,
  HistoryLog,
  loadConfig,
  MemoryConsolidator,
  MemoryWriter,
  type SessionStore,
} from '../../index.js';
import {
  type ConsolidationRound,
  LegacyHistoryFile,
  MemoryFile,
  migrateLegacyHistory,
  type SystemPromptSource,
} from '../../memory/index.js';
import { agentOptionsFromSettings, DEFAULT_AGENT_PRESET } from '../../presets/index.js';
import type { CliCommand, CliIo } from '../cli-io.js';
import { didYouMean } from '../did-you-mean.js';
import { EXIT_CODES } from '../exit-codes.js';
import { progressLine } from '../progress-line.js';
import {
  existingWorkspace,
  MODEL_FLAGS,
  MODEL_USAGE,
  numberFlag,
  openModel,
  openStore,
  parseFlags,
  rejectIgnoredFlags,
  STORE_FLAGS,
  STORE_USAGE,
  type StoreMode,
  unknownAction,
} from './session-store-flags.js';

const FLAGS = {
  ...STORE_FLAGS,
  ...MODEL_FLAGS,
  'context-window': { type: 'string' },
  'max-output': { type: 'string' },
  'max-rounds': { type: 'string' },
  'idle-minutes': { type: 'string' },
  'legacy-history': { type: 'boolean' },
  'plain-prompt': { type: 'boolean' },
  'raw-archive-unusable': { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'min-retained': { type: 'string' },
  json: { type: 'boolean' },
} as const;

const USAGE = `Usage:
  ctxloom memory status [--json]
  ctxloom memory consolidate [KEY...] [--context-window N] [--max-output N] [--max-rounds N] [--idle-minutes N]
                             [--legacy-history] [--plain-prompt] [--raw-archive-unusable]
  ctxloom memory write [--dry-run] [--min-retained PERCENT] [--max-output N]
  (--json prints each action's result as one JSON value on stdout; progress goes to stderr, one live line
  on a terminal)

consolidate: archives old turns of the given sessions (default: all) into memory/history.jsonl once a
session's prompt reaches the budget (context window − max output − 1024; defaults: the agent section of
ctxloom.yaml, else 65536 and 8192), one model request per chunk of turns, until the prompt is back under
half the budget (--max-rounds N caps the requests per session).
With --idle-minutes N it instead archives the whole unarchived tail of sessions quiet for N minutes
(0 = off).
Archive requests reuse the agent's system prompt (the agent preset) unless --plain-prompt.
A reply that is cut, filtered, empty or only reasoning stops the run and changes nothing, unless
--raw-archive-unusable (then those turns are archived raw, as nanobot does).
A legacy memory/HISTORY.md is moved into history.jsonl first (unless --legacy-history), when
history.jsonl is still empty.
write: updates memory/MEMORY.md from unprocessed history entries (20 per request), keeping the previous
version in memory/.backups/. --dry-run prints the diff and writes nothing. A new MEMORY.md that keeps
less than half of the old one's words is refused; --min-retained PERCENT sets that threshold (0 = off).

Exit codes: 0 done, 2 invalid options, 6 the model endpoint is misconfigured or unreachable (nothing
changed), 7 the model's reply was not usable (nothing changed), 8 the model failed transiently
(consolidate archived the turns raw instead; write wrote nothing).

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
  status: (request) => withStore(request, 'read', (store) => status(request, store)),
  consolidate: (request) => withStore(request, 'write', (store) => consolidate(request, store)),
  write: (request) => write(request),
};

/** `ctxloom memory`: memory status, consolidation and the memory writer against a model endpoint. */
export const memoryCommand: CliCommand = {
  name: 'memory',
  summary: 'Show memory status, consolidate old turns, update MEMORY.md with a model',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseFlags('memory', args, FLAGS);
    const [action, ...keys] = positionals;
    const run = action === undefined ? undefined : ACTIONS[action];
    if (run === undefined) throw unknownAction('memory', action, Object.keys(ACTIONS));
    const model = Object.keys(MODEL_FLAGS).map((flag) => [flag, ['consolidate', 'write']] as const);
    rejectIgnoredFlags('memory', action ?? '', values, {
      ...Object.fromEntries(model),
      'context-window': ['consolidate'],
      'max-output': ['consolidate', 'write'],
      'max-rounds': ['consolidate'],
      'idle-minutes': ['consolidate'],
      'legacy-history': ['consolidate'],
      'plain-prompt': ['consolidate'],
      'raw-archive-unusable': ['consolidate'],
      'dry-run': ['write'],
      'min-retained': ['write'],
      sessions: ['status', 'consolidate'],
      sqlite: ['status', 'consolidate'],
      pg: ['status', 'consolidate'],
      'pg-schema': ['status', 'consolidate'],
    });
    if (action !== 'consolidate' && keys.length > 0)
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `memory ${action} takes no arguments (got ${keys.map((key) => `'${key}'`).join(' ')}); only 'memory consolidate' takes session keys.`,
      });
    return run({ values, keys, io, workspace: await existingWorkspace(values, io) });
  },
};

async function withStore(
  request: Request,
  mode: StoreMode,
  task: (store: SessionStore) => Promise<number>,
): Promise<number> {
  const store = await openStore(request.values, request.io, mode);
  try {
    return await task(store);
  } finally {
    await store.close();
  }
}

async function status(request: Request, store: SessionStore): Promise<number> {
  const { io, workspace } = request;
  const memoryFile = new MemoryFile({ workspace });
  const memory = await memoryFile.read();
  const backups = (await memoryFile.backups()).length;
  const log = new HistoryLog({ workspace });
  const { entries, warnings } = await log.readWithWarnings();
  const dream = await log.readDreamCursor();
  const setAside = (await readFile(log.corruptPath, 'utf8').catch(emptyIfMissing))
    .split('\n')
    .filter((line) => line !== '').length;
  const legacy = await new LegacyHistoryFile({ workspace }).read();
  const sessions = [];
  for (const entry of await store.list()) {
    const record = await store.load(entry.key);
    sessions.push({
      key: entry.key,
      lastConsolidated: record.lastConsolidated,
      messages: record.messages.length,
    });
  }
  const report = {
    workspace,
    memory: { characters: memory.length, backups },
    history: {
      entries: entries.length,
      latestCursor: await log.latestCursor(),
      dreamCursor: dream,
      unprocessed: entries.filter((entry) => entry.cursor > dream).length,
      unreadableLines: warnings.length,
      setAsideLines: setAside,
    },
    legacyHistoryCharacters: legacy.length,
    store: store.id,
    sessions,
  };
  if (request.values['json'] === true) {
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return EXIT_CODES.ok;
  }
  const { history } = report;
  io.stdout.write(`Workspace: ${workspace}\n`);
  io.stdout.write(
    `MEMORY.md: ${memory === '' ? 'missing or empty' : `${memory.length} characters`}${backups > 0 ? `, ${backups} previous versions in memory/.backups` : ''}\n`,
  );
  io.stdout.write(
    `history.jsonl: ${history.entries} entries, latest cursor ${history.latestCursor}, Dream cursor ${dream}, ${history.unprocessed} unprocessed${warnings.length > 0 ? `, ${warnings.length} unreadable lines` : ''}\n`,
  );
  if (setAside > 0) {
    io.stdout.write(`memory/history.jsonl.corrupt: ${setAside} unreadable lines set aside by compaction\n`);
  }
  if (legacy !== '') {
    io.stdout.write(
      `memory/HISTORY.md (legacy): ${legacy.length} characters; 'memory consolidate' moves it into history.jsonl\n`,
    );
  }
  io.stdout.write(`Sessions (${store.id}): ${sessions.length}\n`);
  for (const entry of sessions) {
    io.stdout.write(`  ${entry.key}: ${entry.lastConsolidated}/${entry.messages} messages archived\n`);
  }
  return EXIT_CODES.ok;
}

async function consolidate(request: Request, store: SessionStore): Promise<number> {
  const { values, io, workspace } = request;
  const progress = progressLine(io);
  const stored = await storedKeys(store, request.keys);
  const consolidator = await consolidatorFor(request, store, progress);
  if (values['legacy-history'] !== true) await migrate(workspace, progress);
  const idleMinutes = numberFlag(values, 'idle-minutes');
  if (idleMinutes !== undefined) {
    progress.done();
    return consolidateIdle({ io, consolidator, idleMinutes, json: values['json'] === true });
  }
  const keys = request.keys.length > 0 ? request.keys : stored;
  const json = values['json'] === true;
  const results: Record<string, unknown>[] = [];
  const finish = (code: number): number => {
    progress.done();
    if (json) io.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return code;
  };
  for (const [index, key] of keys.entries()) {
    progress(`[${index + 1}/${keys.length}] ${key}`);
    const result = await consolidator.maybeConsolidate(key);
    results.push({ session: key, ...result });
    if (!json) io.stdout.write(`${key}: ${describe(result)}\n`);
    progress.done();
    if (result.status === 'degraded')
      return finish(degraded(io, { key, rounds: result.rounds, left: keys.length - index - 1 }));
  }
  return finish(EXIT_CODES.ok);
}

async function consolidateIdle(run: {
  readonly io: CliIo;
  readonly consolidator: MemoryConsolidator;
  readonly idleMinutes: number;
  readonly json: boolean;
}): Promise<number> {
  const { io, idleMinutes } = run;
  if (idleMinutes === 0) {
    io.stdout.write(run.json ? '[]\n' : 'Idle compaction is off (--idle-minutes 0); nothing archived.\n');
    return EXIT_CODES.ok;
  }
  const results = await run.consolidator.consolidateIdle({ idleAfterMs: idleMinutes * 60_000 });
  if (run.json) io.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  else {
    for (const result of results)
      io.stdout.write(`${result.sessionKey}: ${describeRounds(result.status, result.rounds)}\n`);
    io.stdout.write(`Archived ${results.length} idle session${results.length === 1 ? '' : 's'}.\n`);
  }
  const last = results.at(-1);
  return last?.status === 'degraded'
    ? degraded(io, { key: last.sessionKey, rounds: last.rounds, left: undefined })
    : EXIT_CODES.ok;
}

/**
 * The keys of the store.
 * @throws ContextError `NOT_FOUND` naming the requested keys the store does not hold (nothing is consolidated).
 */
async function storedKeys(store: SessionStore, requested: readonly string[]): Promise<readonly string[]> {
  const stored = (await store.list()).map((entry) => entry.key);
  const missing = requested.filter((key) => !stored.includes(key));
  if (missing.length === 0) return stored;
  const listed =
    stored.length === 0
      ? 'The store has no sessions.'
      : `Stored: ${stored.slice(0, 10).join(', ')}${stored.length > 10 ? ', …' : ''}.`;
  throw new ContextError({
    code: 'NOT_FOUND',
    message: `No session ${missing.map((key) => JSON.stringify(key)).join(', ')} in the ${store.id} store.${didYouMean(missing[0] ?? '', stored)} ${listed} Nothing was consolidated.`,
  });
}

/** The consolidator the flags describe, with the agent section of ctxloom.yaml as the fallback. */
async function consolidatorFor(
  request: Request,
  store: SessionStore,
  progress: (line: string) => void,
): Promise<MemoryConsolidator> {
  const { values, io, workspace } = request;
  const { config } = await loadConfig({ dir: workspace, optional: true });
  const agent = resolveAgentSettings(config, workspace);
  const maxRounds = numberFlag(values, 'max-rounds');
  return new MemoryConsolidator({
    workspace,
    store,
    model: openModel(values, io),
    maxRounds: maxRounds === undefined || maxRounds === 0 ? Number.POSITIVE_INFINITY : maxRounds,
    ...(values['raw-archive-unusable'] === true ? { unusableReply: 'raw-archive' as const } : {}),
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
}

/** Reports nanobot's raw-archive fallback after a transient model failure; exit code 8. */
function degraded(
  io: CliIo,
  report: {
    readonly key: string;
    readonly rounds: readonly ConsolidationRound[];
    readonly left: number | undefined;
  },
): number {
  const round = report.rounds.at(-1);
  const outcome = round?.outcome;
  if (round === undefined || outcome?.kind !== 'raw' || outcome.failure === undefined) return EXIT_CODES.ok;
  const failure = outcome.failure;
  const rest =
    report.left === undefined
      ? ' The remaining sessions were not processed.'
      : report.left === 0
        ? ''
        : ` ${report.left} more session${report.left === 1 ? ' was' : 's were'} not processed.`;
  io.stderr.write(
    `${failure.code} (${failure.kind}): ${failure.message}\nDegraded: archived messages ${round.start}–${round.end} of ${report.key} raw (${outcome.entries} [RAW] entr${outcome.entries === 1 ? 'y' : 'ies'} in memory/history.jsonl, nanobot's fallback) instead of summarising them.${rest} Run again when the model is back.\n`,
  );
  return EXIT_CODES.modelTransient;
}

async function migrate(workspace: string, progress: (line: string) => void): Promise<void> {
  const migration = await migrateLegacyHistory({ workspace });
  if (migration.status === 'migrated') {
    progress(
      `moved ${migration.entries} entries from memory/HISTORY.md into memory/history.jsonl (marked processed; the file is kept as ${path.basename(migration.backupPath)})`,
    );
  } else if (migration.status === 'skipped') {
    progress(
      'memory/HISTORY.md was not migrated: memory/history.jsonl already has entries (nanobot refuses too)',
    );
  }
}

async function write(request: Request): Promise<number> {
  const { values, io, workspace } = request;
  // A percentage: numberFlag refuses anything above 100.
  const percent = numberFlag(values, 'min-retained');
  const maxOutput = numberFlag(values, 'max-output');
  const writer = new MemoryWriter({
    workspace,
    model: openModel(values, io),
    ...(maxOutput === undefined ? {} : { maxOutputTokens: maxOutput }),
    onProgress: (line) => io.stderr.write(`${line}\n`),
    ...(percent === undefined ? {} : { minRetainedRatio: percent / 100 }),
  });
  const dryRun = values['dry-run'] === true;
  const result = await writer.run({ dryRun });
  const compaction = result.compaction;
  if (compaction !== undefined && compaction.setAside > 0) {
    io.stderr.write(
      `history.jsonl: ${compaction.setAside} unreadable lines moved to memory/history.jsonl.corrupt\n`,
    );
  }
  if (values['json'] === true) {
    io.stdout.write(`${JSON.stringify({ dryRun, ...result }, null, 2)}\n`);
    return EXIT_CODES.ok;
  }
  if (dryRun) {
    io.stdout.write(result.diff === '' ? 'No change to memory/MEMORY.md.\n' : result.diff);
    io.stdout.write(
      `Dry run: ${result.processed} entries processed; nothing written, Dream cursor stays ${result.cursor}.\n`,
    );
    return EXIT_CODES.ok;
  }
  io.stdout.write(
    `Memory writer: ${result.status}, ${result.processed} entries processed, Dream cursor ${result.cursor}.\n`,
  );
  return EXIT_CODES.ok;
}

function emptyIfMissing(error: unknown): string {
  if (typeof error === 'object' && error !== null && Reflect.get(error, 'code') === 'ENOENT') return '';
  throw error;
}

function describe(result: ConsolidationResult): string {
  const estimate = `estimate ${result.estimateBefore} → ${result.estimateAfter} tokens (budget ${result.budget}, target ${result.target})`;
  return `${describeRounds(result.status, result.rounds)}, ${estimate}`;
}

function describeRounds(status: string, rounds: readonly ConsolidationRound[]): string {
  if (rounds.length === 0) return status;
  const kinds = rounds.map((round) => `${round.outcome.kind}@${round.start}–${round.end}`);
  const shown = kinds.length > 6 ? [...kinds.slice(0, 3), '…', ...kinds.slice(-2)] : kinds;
  return `${status} in ${rounds.length} round${rounds.length === 1 ? '' : 's'} (${shown.join(', ')})`;
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
