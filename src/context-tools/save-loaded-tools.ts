import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { SessionStore } from '../sessions/session-store.js';
import { LOADED_TOOLS_KEY, readLoadedTools, withLoadedTools } from './loaded-tools.js';

/** Options of {@link saveLoadedTools}. */
export type SaveLoadedToolsOptions = {
  readonly sessionKey: string;
  /** The names to add (those already stored are kept once, in their first place). */
  readonly names: readonly string[];
};

/** The known keys of {@link SaveLoadedToolsOptions}. */
export const SAVE_LOADED_TOOLS_OPTION_KEYS = {
  sessionKey: true,
  names: true,
} as const satisfies OptionKeys<SaveLoadedToolsOptions>;

/**
 * Adds `names` to the loaded tools of a session (its metadata, {@link LOADED_TOOLS_KEY}), so a later
 * request, a compaction and a new process all see them loaded. Runs under the store's session lock
 * when it has one (two agents loading tools at once both keep theirs); reads only the metadata (no
 * message) and writes nothing when nothing is new. Returns the session's loaded tools after the change.
 */
export async function saveLoadedTools(
  store: SessionStore,
  options: SaveLoadedToolsOptions,
): Promise<readonly string[]> {
  checkOptions(options, { where: 'saveLoadedTools options', known: SAVE_LOADED_TOOLS_OPTION_KEYS });
  const { sessionKey, names } = options;
  const task = async (): Promise<readonly string[]> => {
    const session = await store.load(sessionKey, { lastMessages: 0 });
    const before = readLoadedTools(session.metadata);
    const after = withLoadedTools(before, names);
    if (after !== before) await store.setMetadata(sessionKey, { [LOADED_TOOLS_KEY]: after });
    return after;
  };
  return store.withSessionLock === undefined ? task() : store.withSessionLock(sessionKey, task);
}
