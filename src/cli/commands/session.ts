import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  ContextError,
  getHistory,
  JsonlSessionStore,
  LenientMessageCoercer,
  MessageStore,
  type SessionStore,
  type SessionSummary,
  StrictMessageCoercer,
  textOf,
} from '../../index.js';
import type { CliCommand, CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import {
  numberFlag,
  openStore,
  parseFlags,
  STORE_FLAGS,
  STORE_USAGE,
  stringFlag,
} from './session-store-flags.js';

const FLAGS = {
  ...STORE_FLAGS,
  json: { type: 'boolean' },
  replay: { type: 'boolean' },
  public: { type: 'boolean' },
  'max-tokens': { type: 'string' },
  role: { type: 'string' },
  file: { type: 'string' },
  strict: { type: 'boolean' },
  replace: { type: 'boolean' },
} as const;

const USAGE = `Usage:
  ctxloom session list [--json]
  ctxloom session show KEY [--json] [--replay [--public] [--max-tokens N]]
  ctxloom session append KEY [--role user|assistant|system] TEXT
  ctxloom session append KEY --file MESSAGES.json|.jsonl|- [--strict]   (- reads standard input)
  ctxloom session import SOURCE [--replace]     SOURCE: a nanobot sessions folder or one .jsonl file

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
    if (values['json'] === true) {
      io.stdout.write(`${JSON.stringify({ ...record, messages }, null, 2)}\n`);
      return EXIT_CODES.ok;
    }
    io.stdout.write(
      `${key}: ${record.messages.length} messages, lastConsolidated ${record.lastConsolidated}, updated ${record.updatedAt ?? '?'}\n`,
    );
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
    const appended = await new MessageStore({ store, sessionKey: key, coercer }).append(input);
    io.stdout.write(`Appended ${appended.length} message${appended.length === 1 ? '' : 's'} to ${key}.\n`);
    return EXIT_CODES.ok;
  },
  import: async ({ store, values, args, io }) =>
    importSessions({ store, source: requireKey(args, 'import'), replace: values['replace'] === true, io }),
};

/** `ctxloom session`: list, show, append to and import sessions in any store. */
export const sessionCommand: CliCommand = {
  name: 'session',
  summary: 'List, show, append to and import sessions (JSONL, SQLite, PostgreSQL)',
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
    const [action, ...rest] = positionals;
    const run = action === undefined ? undefined : ACTIONS[action];
    if (run === undefined) {
      io.stderr.write(`INVALID_OPTIONS: expected list, show, append or import.\n${USAGE}\n`);
      return EXIT_CODES.invalid;
    }
    const store = await openStore(values, io);
    try {
      return await run({ store, values, args: rest, io });
    } finally {
      await store.close();
    }
  },
};

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
  return key;
}

function textInput(values: Values, args: readonly string[]): unknown {
  const text = args.slice(1).join(' ');
  if (text === '')
    throw new ContextError({ code: 'INVALID_OPTIONS', message: 'session append needs TEXT or --file.' });
  return { role: stringFlag(values, 'role') ?? 'user', content: text };
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

async function importSessions(request: {
  readonly store: SessionStore;
  readonly source: string;
  readonly replace: boolean;
  readonly io: CliIo;
}): Promise<number> {
  const { store, io } = request;
  const source = path.resolve(io.cwd, request.source);
  const isFile = (await stat(source)).isFile();
  const from = new JsonlSessionStore({ dir: isFile ? path.dirname(source) : source });
  const keys = (await from.list())
    .map((entry) => entry.key)
    .filter((key) => !isFile || from.filePath(key) === source);
  let imported = 0;
  for (const [index, key] of keys.entries()) {
    const existing = await store.load(key);
    if (existing.exists && existing.messages.length > 0 && !request.replace) {
      io.stderr.write(
        `[${index + 1}/${keys.length}] skipped ${key}: already in the target (use --replace)\n`,
      );
      continue;
    }
    const record = await from.load(key);
    for (const warning of record.warnings) io.stderr.write(`warning: ${warning}\n`);
    await store.rewrite(key, { messages: record.messages, lastConsolidated: record.lastConsolidated });
    await store.setMetadata(key, record.metadata);
    imported += 1;
    io.stderr.write(`[${index + 1}/${keys.length}] imported ${key} (${record.messages.length} messages)\n`);
  }
  io.stdout.write(`Imported ${imported} of ${keys.length} session${keys.length === 1 ? '' : 's'}.\n`);
  return EXIT_CODES.ok;
}
