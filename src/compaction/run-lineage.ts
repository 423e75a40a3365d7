import { viewId } from '../core/apply-compactions.js';
import { COMPACTION_DEPTH_KEY, COMPACTION_ID_KEY, type CompactionRecord } from '../core/compaction-record.js';
import type { Message } from '../core/message.js';
import type { PinnedUnit } from './pinned-context.js';

/**
 * The lineage fields of a record standing for `summarised` (view messages: raw ones and earlier
 * summaries) with `pins` kept verbatim: what it replaces, its pins, its depth (1 over raw messages,
 * else 1 + the deepest summary it replaces) and its parents (the records of those summaries).
 */
export function runLineage(
  summarised: readonly Message[],
  pins: readonly PinnedUnit[],
): Pick<CompactionRecord, 'replaces' | 'pinned' | 'depth' | 'parents'> {
  const pinned = pins.flatMap((pin) => pin.unit.messages.map(viewId));
  return {
    replaces: summarised.map(viewId),
    ...(pinned.length === 0 ? {} : { pinned }),
    depth: 1 + Math.max(0, ...summarised.map(depthOf)),
    parents: summarised.flatMap((message) => {
      const record = message.metadata?.[COMPACTION_ID_KEY];
      return typeof record === 'string' ? [record] : [];
    }),
  };
}

/** A summary's depth (carried on its message), 0 for a raw message. */
function depthOf(message: Message): number {
  if (typeof message.metadata?.[COMPACTION_ID_KEY] !== 'string') return 0;
  const depth = message.metadata[COMPACTION_DEPTH_KEY];
  return typeof depth === 'number' ? depth : 1;
}
