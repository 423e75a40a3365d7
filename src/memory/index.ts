/**
 * @module ctxloom/memory
 * Long-term memory files: `memory/MEMORY.md`, `memory/history.jsonl` with its cursors, consolidation
 * of old turns and the memory writer.
 */
export { DEFAULT_ARCHIVE_INSTRUCTION, renderArchiveInstruction } from './archive-instruction.js';
export type {
  ArchiveOutcome,
  ConsolidationResult,
  ConsolidationRound,
  TailArchiveResult,
} from './consolidation-result.js';
export { formatLineDiff, type LineDiffOptions } from './format-line-diff.js';
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
  type HistoryCompaction,
  HistoryLog,
  type HistoryLogOptions,
  type HistoryRead,
  type ReadRecentOptions,
} from './history-log.js';
export { type HistorySink, LegacyHistoryFile, type LegacyHistoryFileOptions } from './history-sink.js';
export { measureRetention, type Retention } from './measure-retention.js';
export { MemoryConsolidator } from './memory-consolidator.js';
export {
  DEFAULT_MEMORY_CONSOLIDATOR,
  type MemoryConsolidatorOptions,
  type SystemPromptSource,
} from './memory-consolidator-options.js';
export {
  DEFAULT_MEMORY_BACKUPS,
  MemoryFile,
  type MemoryFileOptions,
  type MemoryFileWrite,
} from './memory-file.js';
export {
  DEFAULT_MEMORY_WRITER,
  MemoryWriter,
  type MemoryWriterOptions,
  type MemoryWriterResult,
} from './memory-writer.js';
export { DEFAULT_MEMORY_WRITER_PROMPT } from './memory-writer-prompt.js';
export {
  type LegacyHistoryMigration,
  type MigrateLegacyHistoryOptions,
  migrateLegacyHistory,
} from './migrate-legacy-history.js';
export { pickConsolidationBoundary } from './pick-consolidation-boundary.js';
export { DEFAULT_RAW_ARCHIVE_MAX_CHARS, formatRawArchiveEntries } from './raw-archive.js';
export { stripReasoningLeaks } from './strip-reasoning-leaks.js';
export { type UsableReplyOptions, usableReplyText } from './usable-reply-text.js';
