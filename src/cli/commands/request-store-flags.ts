import path from 'node:path';
import { resolveAgentSettings } from '../../config/index.js';
import { loadConfig } from '../../index.js';
import { JsonlRequestStore, type RequestRecordStore } from '../../recorder/index.js';
import type { CliIo } from '../cli-io.js';
import { stringFlag, workspaceOf } from './session-store-flags.js';

type Values = Readonly<Record<string, string | boolean | readonly string[] | undefined>>;

/**
 * The request recorder's JSONL log beside the JSONL sessions the flags name (see `STORE_FLAGS`):
 * `<sessions>/requests/` for `--workspace` (its sessions folder) or `--sessions DIR`. `undefined`
 * for the other stores: `--sqlite` and `--pg`, whose request table a command that reads must not
 * create, and `--nanobot-config` (nanobot records no requests). Call it after `openStore`, which
 * checks the flags.
 */
export async function openRequestStore(values: Values, io: CliIo): Promise<OpenedRequestStore | undefined> {
  if (['sqlite', 'pg', 'nanobot-config'].some((name) => typeof values[name] === 'string')) return undefined;
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
