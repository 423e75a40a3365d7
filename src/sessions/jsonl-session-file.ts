import { isRecord } from '../core/is-record.js';
import type { Message, Metadata } from '../core/message.js';
import { derivedMessageId, fromNanobotDict, toNanobotDict } from './nanobot-message.js';
import { clampLastConsolidated } from './stamp-message.js';

/** One session file parsed: the metadata record, the optional provider state and the messages. */
export type ParsedSessionFile = {
  readonly key?: string;
  readonly createdAt?: string;
  readonly updatedAt?: string;
  readonly metadata: Metadata;
  readonly lastConsolidated: number;
  readonly providerState?: unknown;
  readonly messages: readonly Message[];
  /** Lines that could not be read: 1-based line number, the raw text and why. */
  readonly corrupt: readonly { readonly line: number; readonly text: string; readonly reason: string }[];
};

/**
 * Parses nanobot's session JSONL (§3.2/§3.3): the `_type: 'metadata'` record, an optional
 * `_type: 'provider_state'` record, then one message dict per line. Blank lines are ignored;
 * undecodable, non-object and unreadable message lines are reported in `corrupt` and skipped.
 * A `metadata` that is not an object becomes `{}`; a `last_consolidated` that is not a non-negative
 * integer (or exceeds the message count) becomes 0.
 */
export function parseSessionFile(text: string): ParsedSessionFile {
  const messages: Message[] = [];
  const corrupt: { line: number; text: string; reason: string }[] = [];
  let header: Record<string, unknown> | undefined;
  let providerState: unknown;
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const parsed = parseLine(line, messages.length);
    if (parsed.kind === 'corrupt') corrupt.push({ line: index + 1, text: line, reason: parsed.reason });
    else if (parsed.kind === 'metadata') header ??= parsed.value;
    else if (parsed.kind === 'provider_state') providerState = parsed.value['state'];
    else messages.push(parsed.message);
  }
  return { ...headerFields(header, messages.length), providerState, messages, corrupt };
}

type ParsedLine =
  | { readonly kind: 'corrupt'; readonly reason: string }
  | { readonly kind: 'metadata'; readonly value: Record<string, unknown> }
  | { readonly kind: 'provider_state'; readonly value: Record<string, unknown> }
  | { readonly kind: 'message'; readonly message: Message };

function parseLine(line: string, ordinal: number): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'corrupt', reason: 'not valid JSON (a torn or corrupted line)' };
  }
  if (isRecord(value) && value['_type'] === 'metadata') return { kind: 'metadata', value };
  if (isRecord(value) && value['_type'] === 'provider_state') return { kind: 'provider_state', value };
  const message = fromNanobotDict(value, derivedMessageId(ordinal, line));
  return typeof message === 'string' ? { kind: 'corrupt', reason: message } : { kind: 'message', message };
}

/** Options for {@link formatSessionFile}. */
export type SessionFileContent = {
  readonly key: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly metadata: Metadata;
  readonly lastConsolidated: number;
  readonly providerState?: unknown;
  readonly messages: readonly Message[];
};

/** Renders a whole session file (metadata record, provider state if any, messages), ending in `\n`. */
export function formatSessionFile(content: SessionFileContent): string {
  const lines = [
    formatHeader(content),
    ...(content.providerState === undefined
      ? []
      : [JSON.stringify({ _type: 'provider_state', state: content.providerState })]),
    ...content.messages.map(formatMessageLine),
  ];
  return `${lines.join('\n')}\n`;
}

/** Renders the metadata record line (nanobot field names). */
function formatHeader(content: Omit<SessionFileContent, 'messages'>): string {
  return JSON.stringify({
    _type: 'metadata',
    key: content.key,
    created_at: content.createdAt,
    updated_at: content.updatedAt,
    metadata: content.metadata,
    last_consolidated: content.lastConsolidated,
  });
}

/** Renders one message line (nanobot dict, UTF-8, no escaping of non-ASCII). */
export function formatMessageLine(message: Message): string {
  return JSON.stringify(toNanobotDict(message));
}

function headerFields(
  header: Record<string, unknown> | undefined,
  count: number,
): Pick<ParsedSessionFile, 'key' | 'createdAt' | 'updatedAt' | 'metadata' | 'lastConsolidated'> {
  if (header === undefined) return { metadata: {}, lastConsolidated: 0 };
  const last = header['last_consolidated'];
  const lastConsolidated =
    typeof last === 'number' && Number.isInteger(last) && last >= 0 && last <= count
      ? clampLastConsolidated(last, count)
      : 0;
  return {
    ...(typeof header['key'] === 'string' ? { key: header['key'] } : {}),
    ...(typeof header['created_at'] === 'string' ? { createdAt: header['created_at'] } : {}),
    ...(typeof header['updated_at'] === 'string' ? { updatedAt: header['updated_at'] } : {}),
    metadata: isRecord(header['metadata']) ? header['metadata'] : {},
    lastConsolidated,
  };
}
