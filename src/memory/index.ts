/**
 * @module ctxloom/memory
 * Long-term memory files: `memory/MEMORY.md`, `memory/history.jsonl` with its cursors, consolidation
 * of old turns and the memory writer.
 */
export { DEFAULT_ARCHIVE_INSTRUCTION, renderArchiveInstruction } from './archive-instruction.js';
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
export { type HistorySink, LegacyHistoryFile, type LegacyHistoryFileOptions } from './history-sink.js';
export {
  type ArchiveOutcome,
  type ConsolidationResult,
  DEFAULT_MEMORY_CONSOLIDATOR,
  MemoryConsolidator,
  type MemoryConsolidatorOptions,
  type SystemPromptSource,
} from './memory-consolidator.js';
export { MemoryFile, type MemoryFileOptions } from './memory-file.js';
export { MemoryWriter, type MemoryWriterOptions, type MemoryWriterResult } from './memory-writer.js';
export { DEFAULT_MEMORY_WRITER_PROMPT } from './memory-writer-prompt.js';
export { type MigrateLegacyHistoryOptions, migrateLegacyHistory } from './migrate-legacy-history.js';
export { pickConsolidationBoundary } from './pick-consolidation-boundary.js';
export { DEFAULT_RAW_ARCHIVE_MAX_CHARS, formatRawArchive } from './raw-archive.js';
export { stripReasoningLeaks } from './strip-reasoning-leaks.js';
