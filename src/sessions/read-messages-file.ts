import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ContextError, toContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import { safeParseMessage } from '../core/message-schema.js';
import { fromNanobotDict } from './nanobot-message.js';

/**
 * Reads a conversation history from a JSON file (an array of messages, or `{ "messages": [...] }`) or
 * a JSONL file (one message per line; `.jsonl` or `.ndjson`). Each entry is validated as a ctxloom
 * `Message`; entries without an `id` or written in OpenAI / nanobot style (`tool_calls`,
 * `tool_call_id`) are converted leniently, with ids `h-<n>`. JSONL metadata lines (`_type: metadata`)
 * are skipped.
 * @throws ContextError `NOT_FOUND` for a missing file, `INVALID_INPUT` naming the file, the line or
 * index, and the bad field.
 */
export async function readMessagesFile(
  file: string,
  options: { readonly signal?: AbortSignal } = {},
): Promise<readonly Message[]> {
  const text = await readHistoryText(file, options);
  const entries = isJsonl(file, text) ? jsonlEntries(text, file) : jsonEntries(text, file);
  const messages: Message[] = [];
  for (const entry of entries) {
    if (isMetadataLine(entry.value)) continue;
    messages.push(toMessage(entry, { file, ordinal: messages.length + 1 }));
  }
  return messages;
}

/** The file's text. @throws ContextError `NOT_FOUND`, `INVALID_INPUT` or `ABORTED`. */
async function readHistoryText(file: string, options: { readonly signal?: AbortSignal }): Promise<string> {
  try {
    return await readFile(file, {
      encoding: 'utf8',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    if (error instanceof Error && error.name === 'AbortError') throw toContextError(error);
    const missing = typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';
    throw new ContextError({
      code: missing ? 'NOT_FOUND' : 'INVALID_INPUT',
      message: missing
        ? `History file ${file} does not exist; pass a JSON or JSONL file of messages.`
        : `Cannot read history file ${file}: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
}

type Entry = { readonly value: unknown; readonly where: string };

function isJsonl(file: string, text: string): boolean {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.jsonl' || extension === '.ndjson') return true;
  if (extension === '.json') return false;
  return !text.trimStart().startsWith('[');
}

function jsonlEntries(text: string, file: string): readonly Entry[] {
  const entries: Entry[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    entries.push({ value: parseJson(line, `${file}:${index + 1}`), where: `${file}:${index + 1}` });
  });
  return entries;
}

function jsonEntries(text: string, file: string): readonly Entry[] {
  const value = parseJson(text, file);
  const list = Array.isArray(value) ? value : messagesField(value);
  if (list === undefined) {
    throw new ContextError({
      code: 'INVALID_INPUT',
      message: `${file}: expected a JSON array of messages or an object with a "messages" array.`,
    });
  }
  return list.map((item, index) => ({ value: item, where: `${file}: messages[${index}]` }));
}

function messagesField(value: unknown): readonly unknown[] | undefined {
  if (typeof value !== 'object' || value === null || !('messages' in value)) return undefined;
  return Array.isArray(value.messages) ? value.messages : undefined;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ContextError({
      code: 'INVALID_INPUT',
      message: `${where}: not valid JSON (${error instanceof Error ? error.message : String(error)}).`,
      cause: error,
    });
  }
}

function isMetadataLine(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '_type' in value && value._type === 'metadata';
}

function isLooseShape(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return !('id' in value) || 'tool_calls' in value || 'tool_call_id' in value;
}

function toMessage(
  entry: Entry,
  { file, ordinal }: { readonly file: string; readonly ordinal: number },
): Message {
  const strict = safeParseMessage(entry.value);
  if (strict.success) return strict.value;
  if (isLooseShape(entry.value)) {
    const converted = fromNanobotDict(entry.value, `h-${ordinal}`);
    if (typeof converted !== 'string') return converted;
    throw invalid(entry.where, { problem: converted, file });
  }
  const problems = strict.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  throw invalid(entry.where, { problem: problems, file });
}

function invalid(
  where: string,
  { problem, file }: { readonly problem: string; readonly file: string },
): ContextError {
  return new ContextError({
    code: 'INVALID_INPUT',
    message: `${where}: not a valid message (${problem}). Fix that entry in ${path.basename(file)}.`,
  });
}
