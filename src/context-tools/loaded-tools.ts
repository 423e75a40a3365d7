import type { Metadata } from '../core/message.js';

/** The session metadata key holding the names of the deferred tools the model loaded, in load order. */
export const LOADED_TOOLS_KEY = 'ctxloom_loaded_tools';

/** The metadata key on a message that loaded deferred tools: the names it loaded. */
export const LOADED_TOOLS_MESSAGE_KEY = 'loadedTools';

/** `loaded` followed by the names of `names` it lacks, in their order (the same array when none). */
export function withLoadedTools(loaded: readonly string[], names: readonly string[]): readonly string[] {
  const known = new Set(loaded);
  const added = names.filter((name) => {
    if (known.has(name)) return false;
    known.add(name);
    return true;
  });
  return added.length === 0 ? loaded : [...loaded, ...added];
}

/** The loaded tools stored in session metadata (`[]` when none, or when the value is not a list of names). */
export function readLoadedTools(metadata: Metadata): readonly string[] {
  const value = metadata[LOADED_TOOLS_KEY];
  return Array.isArray(value) && value.every((name) => typeof name === 'string') ? value : [];
}
