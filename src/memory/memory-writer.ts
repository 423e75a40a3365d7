import path from 'node:path';
import { ContextError } from '../core/errors.js';
import { system, user } from '../core/factories.js';
import type { ChatModel } from '../llm/chat-model.js';
import { readTextOrEmpty } from '../workspace/fs-helpers.js';
import type { HistoryEntry } from './history-entry.js';
import { HistoryLog } from './history-log.js';
import { MemoryFile } from './memory-file.js';
import { DEFAULT_MEMORY_WRITER_PROMPT } from './memory-writer-prompt.js';

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
  /** Embedded memory files are cut to this many characters. @default 8000 */
  readonly maxFileChars?: number;
  /** Instruction text; else `prompts/dream.md` in the workspace (capped 32,000 chars), else ours. */
  readonly prompt?: string;
  /** The clock for history timestamps. @default the system clock */
  readonly now?: () => Date;
  /** After a successful run, history.jsonl keeps at most this many entries (never unprocessed ones). @default 1000 */
  readonly maxHistoryEntries?: number;
  /** Receives a line per batch (CLI progress). */
  readonly onProgress?: (line: string) => void;
};

/** The result of {@link MemoryWriter.run}. */
export type MemoryWriterResult = {
  /** `up-to-date`: nothing unprocessed; `updated`: every batch written; `failed`: a batch failed (kept for retry). */
  readonly status: 'up-to-date' | 'updated' | 'failed';
  /** History entries processed in this run. */
  readonly processed: number;
  /** The Dream cursor after the run. */
  readonly cursor: number;
  /** Why the failed batch was not written. */
  readonly reason?: string;
};

/**
 * The memory writer: nanobot's Dream simplified so it needs no tool calling. Takes the history
 * entries after the Dream cursor in batches of 20 (oldest first), asks the model for the complete
 * updated MEMORY.md (current SOUL.md, USER.md and MEMORY.md embedded), checks the reply (finished,
 * not truncated, no tool calls, not blank), writes it atomically, and only then advances the Dream
 * cursor. A failed batch leaves MEMORY.md and the cursor as they were, so it is retried next run.
 */
export class MemoryWriter {
  readonly #options: MemoryWriterOptions;
  readonly #history: HistoryLog;
  readonly #memory: MemoryFile;

  constructor(options: MemoryWriterOptions) {
    this.#options = options;
    this.#history = new HistoryLog({
      workspace: options.workspace,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
    this.#memory = new MemoryFile({ workspace: options.workspace });
  }

  /** Processes every unprocessed batch; stops at the first failure. */
  async run(options: { readonly signal?: AbortSignal } = {}): Promise<MemoryWriterResult> {
    let cursor = await this.#history.readDreamCursor();
    let processed = 0;
    // Read the log once per run; entries appended meanwhile are picked up by the next run.
    const unprocessed = (await this.#history.read()).filter((entry) => entry.cursor > cursor);
    const batchSize = this.#options.batchSize ?? 20;
    for (;;) {
      const batch = unprocessed.slice(processed, processed + batchSize);
      const last = batch.at(-1);
      if (last === undefined) {
        if (processed > 0)
          await this.#history.compact({ maxEntries: this.#options.maxHistoryEntries ?? 1000 });
        return { status: processed === 0 ? 'up-to-date' : 'updated', processed, cursor };
      }
      const failure = await this.#writeBatch(batch, options.signal);
      if (failure !== undefined) {
        this.#options.onProgress?.(
          `memory writer: batch up to cursor ${last.cursor} not written (${failure})`,
        );
        return { status: 'failed', processed, cursor, reason: failure };
      }
      await this.#history.writeDreamCursor(last.cursor);
      cursor = last.cursor;
      processed += batch.length;
      this.#options.onProgress?.(
        `memory writer: wrote MEMORY.md from ${batch.length} entries (cursor ${cursor})`,
      );
    }
  }

  /** Marks every history entry as processed without writing (for agents that run no memory writer). */
  async fastForward(): Promise<number> {
    const latest = await this.#history.latestCursor();
    await this.#history.writeDreamCursor(latest);
    return latest;
  }

  async #writeBatch(
    batch: readonly HistoryEntry[],
    signal: AbortSignal | undefined,
  ): Promise<string | undefined> {
    const prompt = await this.#buildPrompt(batch);
    let reply: Awaited<ReturnType<ChatModel['generate']>>;
    try {
      reply = await this.#options.model.generate({
        messages: [
          system(prompt.instruction, { id: 'memory-writer' }),
          user(prompt.body, { id: 'memory-writer-input' }),
        ],
        maxOutputTokens: this.#options.maxOutputTokens ?? 4096,
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      if (ContextError.isInstance(error) && error.code === 'ABORTED') throw error;
      return `model call failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (reply.finishReason === 'length') return 'the reply was truncated (finish reason length)';
    if (reply.finishReason === 'error') return 'the model reported an error';
    if (reply.toolCalls.length > 0) return 'the reply made tool calls';
    const content = unfence(reply.text).trim();
    if (content === '' || content === '(nothing)') return 'the reply was empty';
    await this.#memory.write(`${content}\n`);
    return undefined;
  }

  async #buildPrompt(batch: readonly HistoryEntry[]): Promise<{ instruction: string; body: string }> {
    const { workspace } = this.#options;
    const override = (await readTextOrEmpty(path.join(workspace, 'prompts', 'dream.md'))).trim();
    const instruction =
      this.#options.prompt ?? (override === '' ? DEFAULT_MEMORY_WRITER_PROMPT : cap(override, 32_000));
    const files = await Promise.all(
      ['SOUL.md', 'USER.md', 'memory/MEMORY.md'].map(async (name) => {
        const text = (await readTextOrEmpty(path.join(workspace, name))).trim();
        return `### ${name}\n${text === '' ? '(empty)' : cap(text, this.#options.maxFileChars ?? 8000)}`;
      }),
    );
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
