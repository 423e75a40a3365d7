// Over 300 lines: one file per CLI command until the CLI is restructured (#14); most of it is the import.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { textOf } from '../../core/index.js';
import {
  ContextError,
  describeCompactions,
  getHistory,
  JsonlSessionStore,
  type SessionStore,
  type SessionSummary,
} from '../../index.js';
import {
  LenientMessageCoercer,
  MessageStore,
  readSessionFile,
  StrictMessageCoercer,
} from '../../sessions/index.js';
import type { CliCommand, CliIo } from '../cli-io.js';
import { didYouMean } from '../did-you-mean.js';
import { EXIT_CODES } from '../exit-codes.js';
import { renderCompactions } from './render-compactions.js';
import {
  numberFlag,
  openNanobotStore,
  openStore,
  parseFlags,
  rejectIgnoredFlags,
  STORE_FLAGS,
  STORE_USAGE,
  stringFlag,
  unknownAction,
} from './session-store-flags.js';

const FLAGS = {
  ...STORE_FLAGS,
  json: { type: 'boolean' },
  replay: { type: 'boolean' },
  expand: { type: 'boolean' },
  public: { type: 'boolean' },
  'max-tokens': { type: 'string' },
  role: { type: 'string' },
  file: { type: 'string' },
  strict: { type: 'boolean' },
  replace: { type: 'boolean' },
  'skip-unreadable': { type: 'boolean' },
} as const;

const USAGE = `Usage:
  ctxloom session list [--json]
  ctxloom session show KEY [--json] [--expand] [--replay [--public] [--max-tokens N]]
      lists the session's compaction records (what each replaced, pinned and saved; --expand prints
      the replaced messages raw with their ids; --json includes them under "compactions")
  (--json on every action prints the result as one JSON value)
  ctxloom session append KEY [--role user|assistant|system] TEXT
  ctxloom session append KEY --file MESSAGES.json|.jsonl|- [--strict]   (- reads standard input)
  ctxloom session repair KEY      move a JSONL session's unreadable lines to <file>.corrupt (bytes kept)
  ctxloom session import [SOURCE] [--replace] [--skip-unreadable]
      SOURCE: a nanobot sessions folder or one .jsonl file (default with --nanobot-config: nanobot's
      sessions of --workspace). A session with unreadable lines is not imported (exit 4) unless
      --skip-unreadable; 'session repair' moves them aside first.

${STORE_USAGE}`;

type Values = ReturnType<typeof parseFlags>['values'];
type Action = (request: {
  readonly store: SessionStore;
  readonly values: Values;
  readonly args: readonly string[];
  readonly io: CliIo;
}) => Promise<number>;

const ACTIONS: Readonly<Record<string, Action>> = {
  list: async ({ store, values, io }) => {
    const sessions = await store.list();
    if (values['json'] === true) io.stdout.write(`${JSON.stringify(sessions, null, 2)}\n`);
    else if (sessions.length === 0) io.stdout.write('No sessions.\n');
    else
      for (const entry of sessions) {
        io.stdout.write(`${entry.key}\t${sizeOf(entry)}\tupdated ${entry.updatedAt ?? '?'}\n`);
        for (const warning of entry.warnings ?? []) io.stderr.write(`warning: ${warning}\n`);
      }
    return EXIT_CODES.ok;
  },
  show: async ({ store, values, args, io }) => {
    const key = requireKey(args, 'show');
    const record = await store.load(key);
    if (!record.exists)
      throw new ContextError({
        code: 'NOT_FOUND',
        message: `No session ${JSON.stringify(key)} in this store; see 'ctxloom session list'.`,
      });
    for (const warning of record.warnings) io.stderr.write(`warning: ${warning}\n`);
    const maxTokens = numberFlag(values, 'max-tokens');
    const messages =
      values['replay'] === true
        ? getHistory(record, {
            includeRuntimeContext: values['public'] !== true,
            ...(maxTokens === undefined ? {} : { maxTokens }),
          })
        : record.messages;
    const compactions = describeCompactions(record);
    if (values['json'] === true) {
      io.stdout.write(`${JSON.stringify({ ...record, messages, compactions }, null, 2)}\n`);
      return EXIT_CODES.ok;
    }
    io.stdout.write(
      `${key}: ${record.messages.length} messages, lastConsolidated ${record.lastConsolidated}, updated ${record.updatedAt ?? '?'}\n`,
    );
    io.stdout.write(renderCompactions(compactions, { isExpanded: values['expand'] === true }));
    for (const message of messages) {
      const calls = (message.toolCalls ?? []).map((call) => ` → ${call.name}(${call.arguments})`).join('');
      io.stdout.write(`[${message.role}]${calls} ${textOf(message.content)}\n`);
    }
    return EXIT_CODES.ok;
  },
  append: async ({ store, values, args, io }) => {
    const key = requireKey(args, 'append');
    const coercer = values['strict'] === true ? new StrictMessageCoercer() : new LenientMessageCoercer();
    const file = stringFlag(values, 'file');
    const input =
      file === undefined
        ? textInput(values, args)
        : file === '-'
          ? parseMessages(await readStdin(io), 'stdin')
          : parseMessages(await readFile(path.resolve(io.cwd, file), 'utf8'), path.resolve(io.cwd, file));
    const appended = await new MessageStore({ store, sessionKey: key, coercer })
      .append(input)
      .catch((error: unknown) => {
        throw values['strict'] === true ? strictError(error) : error;
      });
    if (values['json'] === true)
      io.stdout.write(`${JSON.stringify({ session: key, appended: appended.length }, null, 2)}\n`);
    else
      io.stdout.write(`Appended ${appended.length} message${appended.length === 1 ? '' : 's'} to ${key}.\n`);
    return EXIT_CODES.ok;
  },
  repair: async ({ store, values, args, io }) => {
    const key = requireKey(args, 'repair');
    if (!(store instanceof JsonlSessionStore))
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `session repair works on JSONL session folders (--workspace, --sessions, --nanobot-config); ${store.id} rows have no lines to repair.`,
      });
    if ((await store.locate(key)) === undefined)
      throw new ContextError({
        code: 'NOT_FOUND',
        message: `No session ${JSON.stringify(key)} in ${store.dir}.`,
      });
    const { movedLines, corruptFile } = await store.repair(key);
    if (values['json'] === true) {
      io.stdout.write(`${JSON.stringify({ session: key, movedLines, corruptFile }, null, 2)}\n`);
      return EXIT_CODES.ok;
    }
    io.stdout.write(
      movedLines === 0
        ? `Nothing to repair in ${key}.\n`
        : `Moved ${movedLines} unreadable line${movedLines === 1 ? '' : 's'} of ${key} to ${corruptFile}.\n`,
    );
    return EXIT_CODES.ok;
  },
  import: async ({ store, values, args, io }) =>
    importSessions({
      store,
      source: await importSource(values, args, io),
      replace: values['replace'] === true,
      skipUnreadable: values['skip-unreadable'] === true,
      json: values['json'] === true,
      io,
    }),
};

/** `ctxloom session`: list, show, append to, repair and import sessions in any store. */
export const sessionCommand: CliCommand = {
  name: 'session',
  summary: 'List, show, append to, repair and import sessions (JSONL, SQLite, PostgreSQL)',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseFlags('session', args, FLAGS);
    const [action, ...rest] = positionals;
    const run = action === undefined ? undefined : ACTIONS[action];
    if (run === undefined) throw unknownAction('session', action, Object.keys(ACTIONS));
    rejectIgnoredFlags('session', action ?? '', values, {
      replay: ['show'],
      expand: ['show'],
      public: ['show'],
      'max-tokens': ['show'],
      role: ['append'],
      file: ['append'],
      strict: ['append'],
      replace: ['import'],
      'skip-unreadable': ['import'],
    });
    if (values['replay'] !== true && (values['public'] === true || values['max-tokens'] !== undefined))
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `${values['public'] === true ? '--public' : '--max-tokens'} shapes the replayed history: add --replay, or drop it.`,
      });
    const mode = action === 'list' || action === 'show' ? 'read' : 'write';
    // For import, --nanobot-config names the source; the other store flags name where it goes.
    const target = action === 'import' ? { ...values, 'nanobot-config': undefined } : values;
    const store = await openStore(target, io, mode);
    try {
      return await run({ store, values, args: rest, io });
    } finally {
      await store.close();
    }
  },
};

/** The strict coercer's refusal in the CLI's words (what was wrong, and that dropping --strict accepts it). */
function strictError(error: unknown): unknown {
  if (!ContextError.isInstance(error) || error.code !== 'INVALID_INPUT') return error;
  const where = error.message.split('. Pass a Message')[0] ?? error.message;
  return new ContextError({
    code: 'INVALID_INPUT',
    message: `${where}. With --strict every entry must already be a ctxloom message ({ "role": …, "content": … }); drop --strict to accept OpenAI-style and loose entries. Nothing was appended.`,
    cause: error,
  });
}

/** `N messages` where the store counts them, else the file size (JSONL lists read no messages). */
function sizeOf(entry: SessionSummary): string {
  if (entry.messageCount !== undefined) return `${entry.messageCount} messages`;
  const bytes = 'sizeBytes' in entry && typeof entry.sizeBytes === 'number' ? entry.sizeBytes : undefined;
  if (bytes === undefined) return '? messages';
  return bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 ** 2
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

function requireKey(args: readonly string[], action: string): string {
  const [key] = args;
  if (key === undefined)
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `session ${action} needs an argument; see 'ctxloom session --help'.`,
    });
  if (key === '')
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `session ${action} needs a session KEY, got an empty one (""); give the session's name, e.g. cli:direct.`,
    });
  return key;
}

/** The roles `session append --role` writes (a tool result needs the call it answers: use --file). */
const TEXT_ROLES = ['user', 'assistant', 'system'] as const;

function textInput(values: Values, args: readonly string[]): unknown {
  const text = args.slice(1).join(' ');
  if (text === '')
    throw new ContextError({ code: 'INVALID_OPTIONS', message: 'session append needs TEXT or --file.' });
  const role = stringFlag(values, 'role') ?? 'user';
  if (!TEXT_ROLES.some((allowed) => allowed === role))
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `--role ${JSON.stringify(role)} is not a role session append writes; use one of: ${TEXT_ROLES.join(', ')} (a tool result needs the call it answers: append it with --file).${didYouMean(role, TEXT_ROLES)}`,
    });
  return { role, content: text };
}

/** Parses a JSON array/object, or JSON lines when the source ends in `.jsonl` or the text is not one JSON value. */
function parseMessages(text: string, source: string): unknown {
  try {
    if (!source.endsWith('.jsonl')) return JSON.parse(text);
  } catch {
    // not a single JSON value: try JSON lines below
  }
  try {
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line));
  } catch (error) {
    throw new ContextError({
      code: 'INVALID_INPUT',
      message: `${source} is neither JSON nor JSON lines: ${String(error)}`,
      cause: error,
    });
  }
}

async function readStdin(io: CliIo): Promise<string> {
  if (io.stdin === undefined) {
    throw new ContextError({ code: 'INVALID_OPTIONS', message: 'No standard input available for --file -.' });
  }
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of io.stdin)
    text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  return text;
}

/** A source to import from: one session file, or a store whose `list()` names its files. */
type ImportSource = { readonly file: string } | { readonly store: JsonlSessionStore };

async function importSource(values: Values, args: readonly string[], io: CliIo): Promise<ImportSource> {
  const [given] = args;
  if (given === undefined) {
    if (typeof values['nanobot-config'] !== 'string')
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: 'session import needs a SOURCE folder or file, or --nanobot-config DIR with --workspace.',
      });
    return { store: await openNanobotStore(values, io) };
  }
  const source = path.resolve(io.cwd, given);
  const info = await stat(source).catch(() => undefined);
  if (info === undefined)
    throw new ContextError({
      code: 'NOT_FOUND',
      message: `The import source ${source} does not exist; give a nanobot sessions folder or one .jsonl file.`,
    });
  return info.isFile() ? { file: source } : { store: new JsonlSessionStore({ dir: source }) };
}

/**
 * Copies every session of the source into the store, whole or not at all: a session with unreadable
 * lines is refused (unless `skipUnreadable`), and each copy is checked by loading it back.
 * @throws ContextError `STORE_CORRUPT` naming every session that was not imported, after the others are.
 */
async function importSessions(request: {
  readonly store: SessionStore;
  readonly source: ImportSource;
  readonly replace: boolean;
  readonly skipUnreadable: boolean;
  readonly json: boolean;
  readonly io: CliIo;
}): Promise<number> {
  const { source, io } = request;
  const files = 'file' in source ? [source.file] : (await source.store.list()).map((entry) => entry.file);
  if (files.length === 0)
    throw new ContextError({
      code: 'NOT_FOUND',
      message: `No session files (*.jsonl) in ${'store' in source ? source.store.dir : source.file}.`,
    });
  const failures: string[] = [];
  let imported = 0;
  for (const [index, file] of files.entries()) {
    const outcome = await importStep({ ...request, file }, `[${index + 1}/${files.length}]`);
    if ('failure' in outcome) failures.push(outcome.failure);
    else if (!('skipped' in outcome)) imported += 1;
  }
  if (request.json)
    io.stdout.write(`${JSON.stringify({ imported, total: files.length, failures }, null, 2)}\n`);
  else io.stdout.write(`Imported ${imported} of ${files.length} session${files.length === 1 ? '' : 's'}.\n`);
  if (failures.length === 0) return EXIT_CODES.ok;
  throw notImported(failures);
}

function notImported(failures: readonly string[]): ContextError {
  const one = failures.length === 1;
  return new ContextError({
    code: 'STORE_CORRUPT',
    message: `${failures.length} session${one ? ' was' : 's were'} not imported: ${failures.join('; ')}. Nothing of ${one ? 'it' : 'them'} was written: fix the file, move its unreadable lines aside with 'ctxloom session repair KEY --sessions DIR', or pass --skip-unreadable, and run the import again.`,
  });
}

/**
 * Imports one file and reports it on stderr: on a terminal a live line while a (large) session is
 * copied, then one line per outcome everywhere.
 */
async function importStep(
  request: Parameters<typeof importOne>[0],
  progress: string,
): Promise<ImportOutcome> {
  const { io, file } = request;
  const live = io.stderr.isTTY === true;
  if (live) io.stderr.write(`\r\u001b[K${progress} importing ${path.basename(file)}…`);
  const outcome = await importOne(request);
  io.stderr.write(`${live ? '\r\u001b[K' : ''}${progress} ${describeOutcome(outcome)}\n`);
  return outcome;
}

function describeOutcome(outcome: ImportOutcome): string {
  if ('failure' in outcome) return `not imported: ${outcome.failure}`;
  if ('skipped' in outcome) return `skipped ${outcome.skipped}: already in the target (use --replace)`;
  return `imported ${outcome.key} (${outcome.messages} messages)`;
}

type ImportOutcome =
  | { readonly key: string; readonly messages: number }
  | { readonly skipped: string }
  | { readonly failure: string };

async function importOne(request: {
  readonly store: SessionStore;
  readonly file: string;
  readonly replace: boolean;
  readonly skipUnreadable: boolean;
  readonly io: CliIo;
}): Promise<ImportOutcome> {
  const { store, file, io } = request;
  // A source file that cannot be read is this session's failure; a target store that fails is the
  // import's, and ends it with the store's own error.
  let record: Awaited<ReturnType<typeof readSessionFile>>;
  try {
    record = await readSessionFile(file);
  } catch (error) {
    return { failure: `${file}: ${error instanceof Error ? error.message : String(error)}` };
  }
  const { key, unreadableLines } = record;
  if (unreadableLines.length > 0 && !request.skipUnreadable) {
    const lines = unreadableLines.map((line) => `line ${line.line}: ${line.reason}`).join(', ');
    return {
      failure: `${key} (${file}) has ${unreadableLines.length} unreadable line${unreadableLines.length === 1 ? '' : 's'} (${lines})`,
    };
  }
  for (const warning of record.warnings) io.stderr.write(`warning: ${warning}\n`);
  const existing = await store.load(key);
  if (existing.exists && existing.messages.length > 0 && !request.replace) return { skipped: key };
  // The copy keeps the source's times, so "most recently updated" follows the sessions, not the import.
  await store.rewrite(key, {
    messages: record.messages,
    lastConsolidated: record.lastConsolidated,
    ...(record.createdAt === undefined ? {} : { createdAt: record.createdAt }),
    ...(record.updatedAt === undefined ? {} : { updatedAt: record.updatedAt }),
  });
  await store.setMetadata(key, record.metadata, { preserveUpdatedAt: true });
  const copied = (await store.load(key)).messages.length;
  if (copied !== record.messages.length)
    return {
      failure: `${key}: the target holds ${copied} messages after the import, not ${record.messages.length}`,
    };
  return { key, messages: copied };
}
