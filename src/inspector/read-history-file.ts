import { readFile } from 'node:fs/promises';
import { ContextError, type Message, safeParseMessage } from '../index.js';

/**
 * Reads a conversation history from a JSON file (an array of messages) or a JSONL file (one message
 * per line), validating every message.
 * @throws ContextError `NOT_FOUND` when the file is missing, `INVALID_INPUT` naming the message index
 * and field when a message is malformed.
 */
export async function readHistoryFile(
  file: string,
  options: { readonly signal?: AbortSignal } = {},
): Promise<readonly Message[]> {
  let text: string;
  try {
    text = await readFile(file, {
      encoding: 'utf8',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    throw new ContextError({
      code: 'NOT_FOUND',
      message: `Cannot read the history file ${file}; pass an existing JSON or JSONL file of messages.`,
      cause: error,
    });
  }
  const values = parseValues(text, file);
  return values.map((value, index) => {
    const result = safeParseMessage(value);
    if (result.success) return result.value;
    const issue = result.issues[0];
    throw new ContextError({
      code: 'INVALID_INPUT',
      message: `Message ${index} of ${file} is not a valid message: ${issue?.path ?? '(root)'}: ${issue?.message ?? 'invalid'}.`,
    });
  });
}

function parseValues(text: string, file: string): readonly unknown[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  try {
    if (trimmed.startsWith('[')) {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return parsed;
    }
    return trimmed
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line): unknown => JSON.parse(line));
  } catch (error) {
    throw new ContextError({
      code: 'INVALID_INPUT',
      message: `${file} is neither a JSON array of messages nor JSONL (one message per line): ${error instanceof Error ? error.message : String(error)}.`,
      cause: error,
    });
  }
}
