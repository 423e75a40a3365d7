/**
 * @module ctxloom/memory
 * Long-term memory files: `memory/MEMORY.md`, `memory/history.jsonl` with its cursors, consolidation
 * of old turns and the memory writer.
 */
export { formatHistoryTimestamp } from './format-timestamp.js';
export {
  formatHistoryLine,
  type HistoryEntry,
  type HistoryWarning,
  isInternalSessionKey,
  parseHistoryLine,
} from './history-entry.js';
export {
  DEFAULT_HISTORY_MAX_CHARS,
  type HistoryAppendOptions,
  HistoryLog,
  type HistoryLogOptions,
  type ReadRecentOptions,
} from './history-log.js';
export { MemoryFile, type MemoryFileOptions } from './memory-file.js';
export { stripReasoningLeaks } from './strip-reasoning-leaks.js';
