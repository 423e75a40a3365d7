import type { SessionStore } from '../sessions/session-store.js';
import { LOADED_TOOLS_KEY, readLoadedTools, withLoadedTools } from './loaded-tools.js';

/**
 * Adds `names` to the loaded tools of a session (its metadata, {@link LOADED_TOOLS_KEY}), so a later
 * request, a compaction and a new process all see them loaded. Runs under the store's session lock
 * when it has one (two agents loading tools at once both keep theirs); reads only the metadata (no
 * message) and writes nothing when nothing is new. Returns the session's loaded tools after the change.
 */
export async function saveLoadedTools(
  store: SessionStore,
  sessionKey: string,
  names: readonly string[],
): Promise<readonly string[]> {
  const task = async (): Promise<readonly string[]> => {
    const session = await store.load(sessionKey, { lastMessages: 0 });
    const before = readLoadedTools(session.metadata);
    const after = withLoadedTools(before, names);
    if (after !== before) await store.setMetadata(sessionKey, { [LOADED_TOOLS_KEY]: after });
    return after;
  };
  return store.withSessionLock === undefined ? task() : store.withSessionLock(sessionKey, task);
}
