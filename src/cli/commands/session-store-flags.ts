import { stat } from 'node:fs/promises';
import path from 'node:path';
import { resolveAgentSettings } from '../../config/index.js';
import {
  ContextError,
  JsonlSessionStore,
  loadConfig,
  OpenAICompatibleChatModel,
  PostgresSessionStore,
  resolveNanobotSessionsDir,
  type SessionStore,
  SqliteSessionStore,
} from '../../index.js';
import type { CliIo } from '../cli-io.js';
import { didYouMean } from '../did-you-mean.js';
import { parseIntegerFlag } from '../integer-flag.js';
import { type CliOptions, parseCliArgs } from '../parse-cli-args.js';

/** The `parseArgs` option table shared by `session` and `memory`: where the sessions are. */
export const STORE_FLAGS = {
  workspace: { type: 'string' },
  sessions: { type: 'string' },
  sqlite: { type: 'string' },
  pg: { type: 'string' },
  'pg-schema': { type: 'string' },
  'nanobot-config': { type: 'string' },
} as const;

/** The `parseArgs` option table of the model endpoint (flags win over the environment). */
export const MODEL_FLAGS = {
  'model-url': { type: 'string' },
  model: { type: 'string' },
  'api-key': { type: 'string' },
  'timeout-ms': { type: 'string' },
  'max-retries': { type: 'string' },
  'retry-delay-ms': { type: 'string' },
} as const;

/** Usage lines for {@link STORE_FLAGS}. */
export const STORE_USAGE = `Where sessions are (default: --workspace .):
  --workspace DIR    the agent workspace; sessions in DIR/sessions (nanobot JSONL)
  --sessions DIR     a folder of nanobot JSONL session files
  --sqlite PATH      a SQLite database
  --pg URL           a PostgreSQL connection string (--pg-schema NAME, default public)
  --nanobot-config DIR  nanobot's config folder (e.g. ~/.nanobot): the sessions nanobot keeps for
                     --workspace, in <DIR>/sessions/<workspace id>/ and its older layouts
Commands that only read (list, show, status) need the file, folder or schema to exist; they create nothing.`;

/** Usage lines for {@link MODEL_FLAGS}. */
export const MODEL_USAGE = `Model endpoint (OpenAI-compatible; flags override the environment):
  --model-url URL    base URL, e.g. http://127.0.0.1:11434/v1   (env CTXLOOM_MODEL_URL)
  --model NAME       model name                                  (env CTXLOOM_MODEL)
  --api-key KEY      API key, if the endpoint needs one          (env CTXLOOM_API_KEY)
  --timeout-ms N     per-request timeout (default 60000)
  --max-retries N    retries after a transient failure: 5xx, 429, timeout, reset (default 2)
  --retry-delay-ms N first retry delay, doubled per retry unless Retry-After (default 500)`;

type Values = Readonly<Record<string, string | boolean | readonly string[] | undefined>>;

/** Parses a command's arguments against its option table (see {@link parseCliArgs}). */
export function parseFlags(
  command: string,
  args: readonly string[],
  options: CliOptions,
): { readonly values: Values; readonly positionals: readonly string[] } {
  return parseCliArgs(command, args, options);
}

/** What the store is opened for: `read` commands never create a file, a folder or a schema. */
export type StoreMode = 'read' | 'write';

/**
 * Opens the session store the flags name (exactly one of them, else the workspace's sessions). For
 * `read`, the SQLite file, the sessions folder or the PostgreSQL schema must already exist.
 * @throws ContextError `INVALID_OPTIONS` for two stores or a malformed `--pg` URL; `NOT_FOUND` for a
 * missing workspace, folder, file or schema (read); `STORE_UNAVAILABLE` when PostgreSQL does not answer.
 */
export async function openStore(values: Values, io: CliIo, mode: StoreMode = 'read'): Promise<SessionStore> {
  const chosen = ['sessions', 'sqlite', 'pg', 'nanobot-config'].filter(
    (name) => typeof values[name] === 'string',
  );
  if (chosen.length > 1) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `Give only one of --sessions, --sqlite, --pg, --nanobot-config (got ${chosen.map((name) => `--${name}`).join(', ')}).`,
    });
  }
  const schema = stringFlag(values, 'pg-schema');
  if (schema !== undefined && chosen[0] !== 'pg') {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: '--pg-schema names a schema of the PostgreSQL store: add --pg URL, or drop --pg-schema.',
    });
  }
  const sqlite = stringFlag(values, 'sqlite');
  if (sqlite !== undefined) {
    const file = path.resolve(io.cwd, sqlite);
    if (mode === 'read')
      await mustExist(
        file,
        'file',
        '--sqlite',
        'Import sessions into it first (ctxloom session import SOURCE --sqlite PATH).',
      );
    return new SqliteSessionStore({ path: file });
  }
  const pg = stringFlag(values, 'pg');
  if (pg !== undefined) {
    checkPostgresUrl(pg);
    await checkPostgres(pg, mode === 'read' ? (schema ?? 'public') : undefined);
    return new PostgresSessionStore({ connectionString: pg, ...(schema === undefined ? {} : { schema }) });
  }
  const sessions = stringFlag(values, 'sessions');
  if (sessions !== undefined) {
    const dir = path.resolve(io.cwd, sessions);
    await mustExist(dir, 'folder', '--sessions', 'Point it at a folder of *.jsonl session files.');
    return new JsonlSessionStore({ dir });
  }
  if (typeof values['nanobot-config'] === 'string') return openNanobotStore(values, io);
  const workspace = await existingWorkspace(values, io);
  const { config } = await loadConfig({ dir: workspace, optional: true });
  return new JsonlSessionStore({ dir: resolveAgentSettings(config, workspace).sessionsDir });
}

/**
 * The JSONL store on nanobot's own session folder for `--workspace` (found by nanobot's rules under
 * `--nanobot-config`); nothing is created.
 * @throws ContextError `NOT_FOUND` when nanobot keeps no session folder for the workspace.
 */
export async function openNanobotStore(values: Values, io: CliIo): Promise<JsonlSessionStore> {
  const configDir = path.resolve(io.cwd, stringFlag(values, 'nanobot-config') ?? '.');
  const found = await resolveNanobotSessionsDir({ workspace: workspaceOf(values, io), configDir });
  if (!found.found) {
    const older =
      found.legacyDirs.length === 0
        ? ''
        : ` Older sessions are in ${found.legacyDirs.join(', ')} (use --sessions).`;
    throw new ContextError({ code: 'NOT_FOUND', message: `${found.reason}${older}` });
  }
  return new JsonlSessionStore({ dir: found.dir, legacyDirs: found.legacyDirs });
}

/**
 * The `--workspace` folder (default the current folder), which must exist.
 * @throws ContextError `NOT_FOUND` when it is missing or not a folder.
 */
export async function existingWorkspace(values: Values, io: CliIo): Promise<string> {
  const dir = workspaceOf(values, io);
  await mustExist(dir, 'folder', '--workspace', "Create one with 'ctxloom init DIR'.");
  return dir;
}

/** @throws ContextError `NOT_FOUND` unless `target` is an existing file or folder, as asked. */
export async function mustExist(
  target: string,
  kind: 'file' | 'folder',
  flag: string,
  fix: string,
): Promise<void> {
  const info = await stat(target).catch(() => undefined);
  const ok = kind === 'file' ? info?.isFile() : info?.isDirectory();
  if (ok === true) return;
  throw new ContextError({
    code: 'NOT_FOUND',
    message: `${flag} ${target} ${info === undefined ? 'does not exist' : `is not a ${kind}`}. ${fix}`,
  });
}

/** @throws ContextError `INVALID_OPTIONS` unless `url` is a `postgres://` or `postgresql://` URL. */
function checkPostgresUrl(url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed !== undefined && (parsed.protocol === 'postgres:' || parsed.protocol === 'postgresql:')) return;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `--pg ${JSON.stringify(url)} is not a PostgreSQL connection URL; use postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, e.g. postgres://postgres@127.0.0.1:5432/agent.`,
  });
}

/** How long the CLI waits for PostgreSQL to accept a connection. */
const PG_CONNECT_TIMEOUT_MS = 5_000;

/**
 * Checks, without creating anything, that the server answers within a few seconds and, given a
 * schema (read commands), that it holds ctxloom's session tables.
 * @throws ContextError `NOT_FOUND` when the schema does not; `STORE_UNAVAILABLE` when the server does not answer.
 */
async function checkPostgres(url: string, schema: string | undefined): Promise<void> {
  const { default: pg } = await import('pg').catch((error: unknown) => {
    throw new ContextError({
      code: 'DEPENDENCY_MISSING',
      message: "--pg needs the 'pg' package: npm install pg.",
      cause: error,
    });
  });
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw new ContextError({
      code: 'STORE_UNAVAILABLE',
      message: `Cannot reach PostgreSQL at ${redact(url)}: ${connectProblem(error)}. Check --pg and that the server is running.`,
      cause: error,
    });
  }
  try {
    if (schema === undefined) return;
    const found = await client.query<{ table: string | null }>('SELECT to_regclass($1) AS table', [
      `"${schema.replaceAll('"', '""')}".ctxloom_sessions`,
    ]);
    if (found.rows[0]?.table !== null && found.rows[0]?.table !== undefined) return;
    const schemas = await client.query<{ name: string }>(
      `SELECT table_schema AS name FROM information_schema.tables WHERE table_name = 'ctxloom_sessions' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
    );
    const names = schemas.rows.map((row) => row.name);
    throw new ContextError({
      code: 'NOT_FOUND',
      message: `No ctxloom sessions in schema ${JSON.stringify(schema)} of ${redact(url)} (read commands create nothing).${names.length === 0 ? ' No schema there holds sessions yet: import some first (ctxloom session import SOURCE --pg URL).' : `${didYouMean(schema, names)} Schemas with sessions: ${names.join(', ')}; pick one with --pg-schema.`}`,
    });
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The connection error in a few words (the error code and the address, or the message). */
function connectProblem(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const code = Reflect.get(error, 'code');
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'unknown host';
  const message = error instanceof Error ? error.message : String(error);
  return message.includes('timeout') ? `no answer within ${PG_CONNECT_TIMEOUT_MS / 1000} s` : message;
}

/** The URL without its password. */
function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.toString();
}

/** The workspace folder (`--workspace`, default the current folder). */
export function workspaceOf(values: Values, io: CliIo): string {
  return path.resolve(io.cwd, stringFlag(values, 'workspace') ?? '.');
}

/** Makes the model client from flags or `CTXLOOM_MODEL_URL` / `CTXLOOM_MODEL` / `CTXLOOM_API_KEY`. */
export function openModel(values: Values, io: CliIo): OpenAICompatibleChatModel {
  const baseURL = stringFlag(values, 'model-url') ?? io.env['CTXLOOM_MODEL_URL'];
  const model = stringFlag(values, 'model') ?? io.env['CTXLOOM_MODEL'];
  const apiKey = stringFlag(values, 'api-key') ?? io.env['CTXLOOM_API_KEY'];
  if (baseURL === undefined || baseURL === '' || model === undefined || model === '') {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message:
        'No model endpoint: pass --model-url and --model (or set CTXLOOM_MODEL_URL and CTXLOOM_MODEL).',
    });
  }
  const timeout = numberFlag(values, 'timeout-ms');
  const retries = numberFlag(values, 'max-retries');
  const delay = numberFlag(values, 'retry-delay-ms');
  return new OpenAICompatibleChatModel({
    baseURL,
    model,
    ...(apiKey === undefined || apiKey === '' ? {} : { apiKey }),
    ...(timeout === undefined ? {} : { timeoutMs: timeout }),
    ...(retries === undefined ? {} : { maxRetries: retries }),
    ...(delay === undefined ? {} : { retryBaseDelayMs: delay }),
  });
}

/** A string flag, or undefined. */
export function stringFlag(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A whole-number flag (≥ 0, in the flag's range), or undefined; anything else is `INVALID_OPTIONS`. */
export function numberFlag(values: Values, name: string): number | undefined {
  return parseIntegerFlag(`--${name}`, { text: stringFlag(values, name), min: 0 });
}

/** `INVALID_OPTIONS` for a missing or unknown action of `ctxloom COMMAND ACTION`, with the closest one. */
export function unknownAction(
  command: string,
  action: string | undefined,
  actions: readonly string[],
): ContextError {
  const list = actions.join(', ');
  return new ContextError({
    code: 'INVALID_OPTIONS',
    message:
      action === undefined
        ? `ctxloom ${command} needs an action: ${list}. Run 'ctxloom ${command} --help' for details.`
        : `Unknown action '${action}' for 'ctxloom ${command}'.${didYouMean(action, actions)} The actions are: ${list}; run 'ctxloom ${command} --help' for details.`,
  });
}

/**
 * Rejects a flag the action would ignore (`memory status --max-rounds 3`), naming the actions that
 * take it. `onlyFor` lists, per flag, the actions that read it; flags not listed are read by all.
 * @throws ContextError `INVALID_OPTIONS`.
 */
export function rejectIgnoredFlags(
  command: string,
  action: string,
  values: Values,
  onlyFor: Readonly<Record<string, readonly string[]>>,
): void {
  for (const [flag, actions] of Object.entries(onlyFor)) {
    if (values[flag] === undefined || actions.includes(action)) continue;
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `--${flag} does nothing for 'ctxloom ${command} ${action}' (it is read by ${actions.map((name) => `'${command} ${name}'`).join(', ')}); drop it.`,
    });
  }
}
