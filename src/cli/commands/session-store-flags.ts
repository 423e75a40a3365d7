import path from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { resolveAgentSettings } from '../../config/index.js';
import {
  ContextError,
  JsonlSessionStore,
  loadConfig,
  OpenAICompatibleChatModel,
  PostgresSessionStore,
  type SessionStore,
  SqliteSessionStore,
} from '../../index.js';
import type { CliIo } from '../cli-io.js';

/** The `parseArgs` option table shared by `session` and `memory`: where the sessions are. */
export const STORE_FLAGS = {
  workspace: { type: 'string' },
  sessions: { type: 'string' },
  sqlite: { type: 'string' },
  pg: { type: 'string' },
  'pg-schema': { type: 'string' },
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
  --pg URL           a PostgreSQL connection string (--pg-schema NAME, default public)`;

/** Usage lines for {@link MODEL_FLAGS}. */
export const MODEL_USAGE = `Model endpoint (OpenAI-compatible; flags override the environment):
  --model-url URL    base URL, e.g. http://127.0.0.1:11434/v1   (env CTXLOOM_MODEL_URL)
  --model NAME       model name                                  (env CTXLOOM_MODEL)
  --api-key KEY      API key, if the endpoint needs one          (env CTXLOOM_API_KEY)
  --timeout-ms N     per-request timeout (default 60000)
  --max-retries N    retries after a transient failure: 5xx, 429, timeout, reset (default 2)
  --retry-delay-ms N first retry delay, doubled per retry unless Retry-After (default 500)`;

type Values = Readonly<Record<string, string | boolean | undefined>>;

/** Runs `parseArgs` and turns its errors into `INVALID_OPTIONS` with the usage hint. */
export function parseFlags(
  args: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
): { readonly values: Values; readonly positionals: readonly string[] } {
  try {
    const parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
    // parseArgs types its values from the option table; read them as plain strings and booleans.
    return { values: parsed.values as Values, positionals: parsed.positionals };
  } catch (error) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `${error instanceof Error ? error.message : String(error)} Run with --help for the options.`,
      cause: error,
    });
  }
}

/** Opens the session store the flags name (exactly one of them, else the workspace's sessions). */
export async function openStore(values: Values, io: CliIo): Promise<SessionStore> {
  const chosen = ['sessions', 'sqlite', 'pg'].filter((name) => typeof values[name] === 'string');
  if (chosen.length > 1) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `Give only one of --sessions, --sqlite, --pg (got ${chosen.map((name) => `--${name}`).join(', ')}).`,
    });
  }
  const sqlite = stringFlag(values, 'sqlite');
  if (sqlite !== undefined) return new SqliteSessionStore({ path: path.resolve(io.cwd, sqlite) });
  const pg = stringFlag(values, 'pg');
  const schema = stringFlag(values, 'pg-schema');
  if (pg !== undefined)
    return new PostgresSessionStore({ connectionString: pg, ...(schema === undefined ? {} : { schema }) });
  const sessions = stringFlag(values, 'sessions');
  if (sessions !== undefined) return new JsonlSessionStore({ dir: path.resolve(io.cwd, sessions) });
  const workspace = workspaceOf(values, io);
  const { config } = await loadConfig({ dir: workspace, optional: true });
  return new JsonlSessionStore({ dir: resolveAgentSettings(config, workspace).sessionsDir });
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

/** A positive integer flag, or undefined; anything else is `INVALID_OPTIONS`. */
export function numberFlag(values: Values, name: string): number | undefined {
  const text = stringFlag(values, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `--${name} must be a whole number ≥ 0, got '${text}'.`,
    });
  }
  return value;
}
