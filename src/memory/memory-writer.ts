import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { ContextError } from '../core/errors.js';
import { system, user } from '../core/factories.js';
import type { ChatModel } from '../llm/chat-model.js';
import { ChatModelError } from '../llm/chat-model-error.js';
import { toChatModelError } from '../llm/to-chat-model-error.js';
import { withFileLock } from '../sessions/file-lock.js';
import { readTextOrEmpty } from '../workspace/fs-helpers.js';
import { matchesWorkspaceTemplate } from '../workspace/workspace-templates.js';
import { formatLineDiff } from './format-line-diff.js';
import type { HistoryEntry } from './history-entry.js';
import { type HistoryCompaction, HistoryLog } from './history-log.js';
import { measureRetention } from './measure-retention.js';
import { MemoryFile } from './memory-file.js';
import { DEFAULT_MEMORY_WRITER_PROMPT } from './memory-writer-prompt.js';
import { usableReplyText } from './usable-reply-text.js';

/** Options for {@link MemoryWriter}. */
export type MemoryWriterOptions = {
  /** The agent workspace (memory/, SOUL.md, USER.md, prompts/dream.md). */
  readonly workspace: string;
  /** Writes the new MEMORY.md. */
  readonly model: ChatModel;
  /** History entries per request. @default 20 */
  readonly batchSize?: number;
  /** Cap on the reply. @default 4096 */
  readonly maxOutputTokens?: number;
  /** Embedded SOUL.md and USER.md are cut to this many characters (MEMORY.md is always whole). @default 8000 */
  readonly maxFileChars?: number;
  /** Instruction text; else `prompts/dream.md` in the workspace (capped 32,000 chars), else ours. */
  readonly prompt?: string;
  /**
   * Refuse a new MEMORY.md that keeps less than this share of the old one's words (a reply that lost
   * most of the file); 0 turns the check off. Not applied to a blank or untouched-template file.
   * @default 0.5
   */
  readonly minRetainedRatio?: number;
  /** Texts that count as an untouched MEMORY.md template besides ctxloom's own. @default [] */
  readonly extraTemplates?: readonly string[];
  /** Previous versions of MEMORY.md kept in `memory/.backups/`. @default 10 */
  readonly maxBackups?: number;
  /** The clock for history timestamps and backup names. @default the system clock */
  readonly now?: () => Date;
  /** After a successful run, history.jsonl keeps at most this many entries (never unprocessed ones). @default 1000 */
  readonly maxHistoryEntries?: number;
  /** How long a run waits for another writer's lock (`memory/.memory-writer.lock`). @default 30000 */
  readonly lockTimeoutMs?: number;
  /** Receives a line per batch (CLI progress). */
  readonly onProgress?: (line: string) => void;
};

/** The keys of {@link MemoryWriterOptions}, for `checkOptions`. @internal */
export const MEMORY_WRITER_OPTION_KEYS = {
  workspace: true,
  model: true,
  batchSize: true,
  maxOutputTokens: true,
  maxFileChars: true,
  prompt: true,
  minRetainedRatio: true,
  extraTemplates: true,
  maxBackups: true,
  now: true,
  maxHistoryEntries: true,
  lockTimeoutMs: true,
  onProgress: true,
} as const satisfies OptionKeys<MemoryWriterOptions>;

// A live writer's lock is broken only after this long (a run makes many slow model calls).
const WRITER_LOCK_STALE_MS = 3_600_000;

/** Defaults of {@link MemoryWriterOptions}. */
export const DEFAULT_MEMORY_WRITER = Object.freeze({
  batchSize: 20,
  maxOutputTokens: 4096,
  maxFileChars: 8000,
  minRetainedRatio: 0.5,
  maxHistoryEntries: 1000,
});

/** The result of {@link MemoryWriter.run}. */
export type MemoryWriterResult = {
  /** `up-to-date`: nothing unprocessed; `updated`: every batch written; `dry-run`: computed, nothing written. */
  readonly status: 'up-to-date' | 'updated' | 'dry-run';
  /** History entries processed in this run. */
  readonly processed: number;
  /** The Dream cursor after the run (unchanged by a dry run). */
  readonly cursor: number;
  /** The unified diff from the MEMORY.md before the run to the one after it (proposed, for a dry run). */
  readonly diff: string;
  /** What compacting history.jsonl did after the run (not for a dry run). */
  readonly compaction?: HistoryCompaction;
};

/**
 * The memory writer: nanobot's Dream simplified so it needs no tool calling. Takes the history
 * entries after the Dream cursor in batches of 20 (oldest first), asks the model for the complete
 * updated MEMORY.md (current SOUL.md, USER.md and MEMORY.md embedded), and accepts the reply only when
 * it is usable (finished normally, not filtered, not cut, not reasoning only, no tool calls, not
 * blank) and keeps at least `minRetainedRatio` of the old file's words. Then it writes MEMORY.md (a
 * backup of the previous version kept, its mode kept) and only then advances the Dream cursor. A
 * failed batch throws and leaves MEMORY.md and the cursor as they were, so it is retried next run.
 */
export class MemoryWriter {
  readonly #options: MemoryWriterOptions;
  readonly #history: HistoryLog;
  readonly #memory: MemoryFile;
  readonly #lockPath: string;

  constructor(options: MemoryWriterOptions) {
    checkOptions(options, { where: 'new MemoryWriter options', known: MEMORY_WRITER_OPTION_KEYS });
    const ratio = options.minRetainedRatio ?? DEFAULT_MEMORY_WRITER.minRetainedRatio;
    if (!(ratio >= 0 && ratio <= 1)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `minRetainedRatio must be between 0 and 1 (0 turns the check off), got ${ratio}.`,
      });
    }
    this.#options = options;
    this.#lockPath = path.join(options.workspace, 'memory', '.memory-writer.lock');
    const clock = options.now === undefined ? {} : { now: options.now };
    this.#history = new HistoryLog({ workspace: options.workspace, ...clock });
    this.#memory = new MemoryFile({
      workspace: options.workspace,
      ...clock,
      ...(options.maxBackups === undefined ? {} : { maxBackups: options.maxBackups }),
    });
  }

  /**
   * Processes every unprocessed batch; with `dryRun`, computes the new MEMORY.md batch by batch the
   * same way but writes nothing and returns the diff.
   * @throws ChatModelError when a batch fails (a model failure of any kind, an unusable reply, or a
   * reply that would lose most of MEMORY.md); earlier batches stay written.
   */
  async run(
    options: { readonly signal?: AbortSignal; readonly dryRun?: boolean } = {},
  ): Promise<MemoryWriterResult> {
    if (options.dryRun === true) return this.#run(options);
    await mkdir(path.dirname(this.#lockPath), { recursive: true });
    // One writer at a time (across processes): a second run waits, then finds the batches done.
    return withFileLock(
      {
        path: this.#lockPath,
        timeoutMs: this.#options.lockTimeoutMs ?? 30_000,
        staleMs: WRITER_LOCK_STALE_MS,
      },
      () => this.#run(options),
    );
  }

  async #run(options: {
    readonly signal?: AbortSignal;
    readonly dryRun?: boolean;
  }): Promise<MemoryWriterResult> {
    const dryRun = options.dryRun ?? false;
    const start = await this.#history.readDreamCursor();
    // Read the log once per run; entries appended meanwhile are picked up by the next run.
    const unprocessed = (await this.#history.read()).filter((entry) => entry.cursor > start);
    const before = await this.#memory.read();
    const batchSize = this.#options.batchSize ?? DEFAULT_MEMORY_WRITER.batchSize;
    let current = before;
    let cursor = start;
    let processed = 0;
    for (let index = 0; index < unprocessed.length; index += batchSize) {
      const batch = unprocessed.slice(index, index + batchSize);
      const last = batch.at(-1)?.cursor ?? cursor;
      current = await this.#nextMemory(batch, { current, signal: options.signal });
      processed += batch.length;
      if (dryRun) continue;
      const written = await this.#memory.write(current);
      await this.#history.writeDreamCursor(last);
      cursor = last;
      const backup = written.backupPath === undefined ? '' : `, previous version in ${written.backupPath}`;
      this.#options.onProgress?.(
        `memory writer: wrote MEMORY.md from ${batch.length} entries (cursor ${cursor}${backup})`,
      );
    }
    const diff = formatLineDiff({
      oldText: before,
      newText: current,
      oldLabel: 'memory/MEMORY.md',
      newLabel: 'memory/MEMORY.md (new)',
    });
    if (dryRun) return { status: processed === 0 ? 'up-to-date' : 'dry-run', processed, cursor, diff };
    if (processed === 0) return { status: 'up-to-date', processed, cursor, diff };
    const compaction = await this.#history.compact({
      maxEntries: this.#options.maxHistoryEntries ?? DEFAULT_MEMORY_WRITER.maxHistoryEntries,
    });
    return { status: 'updated', processed, cursor, diff, compaction };
  }

  /** Marks every history entry as processed without writing (for agents that run no memory writer). */
  async fastForward(): Promise<number> {
    const latest = await this.#history.latestCursor();
    await this.#history.writeDreamCursor(latest);
    return latest;
  }

  /** The MEMORY.md the model proposes after `batch`, checked; throws when it cannot be used. */
  async #nextMemory(
    batch: readonly HistoryEntry[],
    { current, signal }: { readonly current: string; readonly signal: AbortSignal | undefined },
  ): Promise<string> {
    const first = batch[0]?.cursor;
    const last = batch.at(-1)?.cursor;
    const range = first === last ? `history entry ${first}` : `history entries ${first}–${last}`;
    const unchanged = `MEMORY.md and the Dream cursor are unchanged; ${range} ${first === last ? 'is' : 'are'} retried next run.`;
    const prompt = await this.#buildPrompt(batch, current);
    const maxOutputTokens = this.#options.maxOutputTokens ?? DEFAULT_MEMORY_WRITER.maxOutputTokens;
    let content: string;
    try {
      const reply = await this.#options.model.generate({
        messages: [
          system(prompt.instruction, { id: 'memory-writer' }),
          user(prompt.body, { id: 'memory-writer-input' }),
        ],
        maxOutputTokens,
        ...(signal === undefined ? {} : { signal }),
      });
      content = unfence(
        usableReplyText(reply, { purpose: `MEMORY.md from ${range}`, maxOutputTokens }),
      ).trim();
    } catch (error) {
      const failure = toChatModelError(error);
      if (failure === undefined) throw error;
      throw failure.withNote(unchanged);
    }
    if (content === '' || content === '(nothing)') {
      throw new ChatModelError({
        kind: 'unusable-reply',
        reason: 'empty',
        message: `The model's reply for MEMORY.md from ${range} is not usable: it holds no file content ('${content}'). ${unchanged}`,
      });
    }
    const next = `${content}\n`;
    this.#checkRetention({ current, next }, unchanged);
    return next;
  }

  #checkRetention(
    { current, next }: { readonly current: string; readonly next: string },
    unchanged: string,
  ): void {
    const threshold = this.#options.minRetainedRatio ?? DEFAULT_MEMORY_WRITER.minRetainedRatio;
    const isTemplate = matchesWorkspaceTemplate({
      file: 'memory/MEMORY.md',
      content: current,
      extraTemplates: this.#options.extraTemplates ?? [],
    });
    if (threshold === 0 || current.trim() === '' || isTemplate) return;
    const retention = measureRetention(current, next);
    if (retention.ratio >= threshold) return;
    const percent = (ratio: number): string => `${Math.round(ratio * 100)}%`;
    throw new ChatModelError({
      kind: 'unusable-reply',
      reason: 'loses-memory',
      message: `The new MEMORY.md would keep only ${percent(retention.ratio)} of the current one's words (${retention.keptWords} of ${retention.oldWords}; ${current.length} → ${next.length} characters), below the ${percent(threshold)} threshold, so it was not written. ${unchanged} If the loss is intended, run again with minRetainedRatio: 0 (CLI --min-retained 0); a dry run (CLI --dry-run) shows the diff.`,
    });
  }

  async #buildPrompt(
    batch: readonly HistoryEntry[],
    memory: string,
  ): Promise<{ instruction: string; body: string }> {
    const { workspace } = this.#options;
    const maxFileChars = this.#options.maxFileChars ?? DEFAULT_MEMORY_WRITER.maxFileChars;
    const override = (await readTextOrEmpty(path.join(workspace, 'prompts', 'dream.md'))).trim();
    const instruction =
      this.#options.prompt ?? (override === '' ? DEFAULT_MEMORY_WRITER_PROMPT : cap(override, 32_000));
    const texts = {
      'SOUL.md': await readTextOrEmpty(path.join(workspace, 'SOUL.md')),
      'USER.md': await readTextOrEmpty(path.join(workspace, 'USER.md')),
      'memory/MEMORY.md': memory,
    };
    // MEMORY.md is embedded whole: the reply replaces it, so the model must see all of it.
    const files = Object.entries(texts).map(([name, text]) => {
      const trimmed = text.trim();
      const shown = name === 'memory/MEMORY.md' ? trimmed : cap(trimmed, maxFileChars);
      return `### ${name}\n${trimmed === '' ? '(empty)' : shown}`;
    });
    const lines = batch.map((entry) => `[${entry.timestamp}] ${cap(entry.content, 1000)}`);
    return {
      instruction,
      body: `## Current Memory Files\n${files.join('\n\n')}\n\n## Conversation History\n${lines.join('\n')}`,
    };
  }
}

function cap(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars)}\n...[truncated]` : text;
}

function unfence(text: string): string {
  const match = /^\s*```(?:markdown|md)?\s*\n([\s\S]*?)\n```\s*$/.exec(text);
  return match?.[1] ?? text;
}
