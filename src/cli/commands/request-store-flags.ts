import path from 'node:path';
import { resolveAgentSettings } from '../../config/index.js';
import { loadConfig } from '../../index.js';
import {
  JsonlRequestStore,
  PostgresRequestStore,
  type RequestRecordStore,
  SqliteRequestStore,
} from '../../recorder/index.js';
import type { CliIo } from '../cli-io.js';
import { stringFlag, workspaceOf } from './session-store-flags.js';

type Values = Readonly<Record<string, string | boolean | readonly string[] | undefined>>;

/**
 * The request recorder's store beside the session store the flags name (see `STORE_FLAGS`): the
 * JSONL logs in `<sessions>/requests/` for `--workspace` (its sessions folder) and `--sessions DIR`,
 * the `ctxloom_requests` table of `--sqlite PATH` or `--pg URL`. `undefined` for `--nanobot-config`
 * (nanobot records no requests). Call it after `openStore`, which checks the flags.
 */
export async function openRequestStore(values: Values, io: CliIo): Promise<OpenedRequestStore | undefined> {
  const sqlite = stringFlag(values, 'sqlite');
  if (sqlite !== undefined) {
    const file = path.resolve(io.cwd, sqlite);
    return { store: new SqliteRequestStore({ path: file }), where: `${file} (table ctxloom_requests)` };
  }
  const pg = stringFlag(values, 'pg');
  if (pg !== undefined) {
    const schema = stringFlag(values, 'pg-schema');
    return {
      store: new PostgresRequestStore({ connectionString: pg, ...(schema === undefined ? {} : { schema }) }),
      where: `PostgreSQL (${schema ?? 'public'}.ctxloom_requests)`,
    };
  }
  if (typeof values['nanobot-config'] === 'string') return undefined;
  const sessions = stringFlag(values, 'sessions');
  const dir =
    sessions === undefined
      ? await workspaceSessionsDir(workspaceOf(values, io))
      : path.resolve(io.cwd, sessions);
  const store = JsonlRequestStore.besideSessions(dir);
  return { store, where: store.dir };
}

/** A request store and where it is, in words for messages. */
export type OpenedRequestStore = { readonly store: RequestRecordStore; readonly where: string };

async function workspaceSessionsDir(workspace: string): Promise<string> {
  const { config } = await loadConfig({ dir: workspace, optional: true });
  return resolveAgentSettings(config, workspace).sessionsDir;
}
