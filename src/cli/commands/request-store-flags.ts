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
export async function openRequestStore(values: Values, io: CliIo): Promise<RequestRecordStore | undefined> {
  const sqlite = stringFlag(values, 'sqlite');
  if (sqlite !== undefined) return new SqliteRequestStore({ path: path.resolve(io.cwd, sqlite) });
  const pg = stringFlag(values, 'pg');
  if (pg !== undefined) {
    const schema = stringFlag(values, 'pg-schema');
    return new PostgresRequestStore({ connectionString: pg, ...(schema === undefined ? {} : { schema }) });
  }
  if (typeof values['nanobot-config'] === 'string') return undefined;
  const sessions = stringFlag(values, 'sessions');
  if (sessions !== undefined) return JsonlRequestStore.besideSessions(path.resolve(io.cwd, sessions));
  const workspace = workspaceOf(values, io);
  const { config } = await loadConfig({ dir: workspace, optional: true });
  return JsonlRequestStore.besideSessions(resolveAgentSettings(config, workspace).sessionsDir);
}
