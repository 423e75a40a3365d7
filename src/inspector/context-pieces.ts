import { apportionTokens, sectionOf } from '../core/index.js';
import type { Message, TokenCounter } from '../index.js';
import { messageText } from '../tokens/index.js';
import { type CategoryKey, fileCategory, sectionCategory } from './section-category.js';

/** One attributable piece of the final context: a whole message, or a part of a joined one. */
export type ContextPiece = {
  readonly category: CategoryKey;
  /** What the piece is, for warnings: `AGENTS.md`, `tool result of read_file (call_1)`, … */
  readonly label: string;
  readonly tokens: number;
  /** The message the piece belongs to. */
  readonly messageId: string;
  readonly role: Message['role'];
  /** The section (provider id) that made the piece. */
  readonly section?: string;
  /** True for a tool result or a bootstrap file: the items warnings look at first. */
  readonly isItem: boolean;
  /** The piece's text, when it could be cut out of its message. */
  readonly text?: string;
};

/** The metadata key where the system-message join filter lists the joined parts. */
const PARTS_KEY = 'parts';

type Fragment = {
  readonly section: string | undefined;
  readonly text: string | undefined;
  readonly weight: number;
  /** The bootstrap file this fragment is, when it is one. */
  readonly file?: string;
};

/**
 * Splits the final messages into pieces whose tokens add up to `counter.countMessages(messages)`
 * exactly: each message is counted once, then a joined system message (`metadata.parts`) is split
 * among its parts, and a bootstrap block among its `## FILE` blocks, in proportion to each piece's own
 * token count, with largest-remainder rounding (the message overhead and rounding go with the shares).
 */
export function contextPieces(messages: readonly Message[], counter: TokenCounter): readonly ContextPiece[] {
  return messages.flatMap((message) => messagePieces(message, counter));
}

function messagePieces(message: Message, counter: TokenCounter): readonly ContextPiece[] {
  const total = counter.countMessage(message);
  const section = sectionOf(message);
  if (message.role !== 'system') {
    return [
      {
        category: sectionCategory(section, message.role),
        label: describeMessage(message),
        tokens: total,
        messageId: message.id,
        role: message.role,
        ...(section === undefined ? {} : { section }),
        isItem: message.role === 'tool',
        text: messageText(message),
      },
    ];
  }
  const fragments = splitParts(message, counter).flatMap((fragment) => splitFiles(fragment, counter));
  const shares = apportionTokens(
    total,
    fragments.map((fragment) => fragment.weight),
  );
  return fragments.map((fragment, index) => {
    const { file } = fragment;
    const category = file === undefined ? sectionCategory(fragment.section, 'system') : fileCategory(file);
    return {
      category,
      label: file ?? category.name,
      tokens: shares[index] ?? 0,
      messageId: message.id,
      role: message.role,
      ...(fragment.section === undefined ? {} : { section: fragment.section }),
      isItem: file !== undefined,
      ...(fragment.text === undefined ? {} : { text: fragment.text }),
    };
  });
}

/** The parts of a joined system message, sliced out of its text when the lengths allow it. */
function splitParts(message: Message, counter: TokenCounter): readonly Fragment[] {
  const text = messageText(message);
  const parts = readParts(message.metadata?.[PARTS_KEY]);
  const section = sectionOf(message);
  if (parts.length === 0) return [{ section, text, weight: Math.max(1, counter.countText(text)) }];
  const slices = sliceParts(text, parts);
  return parts.map((part, index) => {
    const slice = slices?.[index];
    return slice === undefined
      ? { section: part.section, text: undefined, weight: part.chars }
      : { section: part.section, text: slice, weight: counter.countText(slice) };
  });
}

function readParts(value: unknown): readonly { readonly section: string; readonly chars: number }[] {
  if (!Array.isArray(value)) return [];
  const parts: { section: string; chars: number }[] = [];
  for (const entry of value) {
    if (typeof entry !== 'object' || entry === null) return [];
    const section: unknown = Reflect.get(entry, 'section');
    const chars: unknown = Reflect.get(entry, 'chars');
    if (typeof section !== 'string' || typeof chars !== 'number' || !(chars >= 0)) return [];
    parts.push({ section, chars });
  }
  return parts;
}

/** Slices `text` into the parts when they were joined with one fixed separator; else undefined. */
function sliceParts(
  text: string,
  parts: readonly { readonly chars: number }[],
): readonly string[] | undefined {
  const partChars = parts.reduce((sum, part) => sum + part.chars, 0);
  const gaps = parts.length - 1;
  const separator = gaps === 0 ? 0 : (text.length - partChars) / gaps;
  if (!Number.isInteger(separator) || separator < 0 || (gaps === 0 && text.length !== partChars)) return;
  const slices: string[] = [];
  let offset = 0;
  for (const part of parts) {
    slices.push(text.slice(offset, offset + part.chars));
    offset += part.chars + separator;
  }
  return slices;
}

const FILE_HEADING = /(?:^|\n\n)## (\S+\.[A-Za-z0-9]+)[ \t]*\n\n/g;

/** Splits a bootstrap block (`## NAME\n\ncontent` blocks) into one fragment per file. */
function splitFiles(fragment: Fragment, counter: TokenCounter): readonly Fragment[] {
  const { text } = fragment;
  if (text === undefined || sectionCategory(fragment.section, 'system').id !== 'bootstrap') return [fragment];
  const starts = [...text.matchAll(FILE_HEADING)].map((match) =>
    match[0].startsWith('\n') ? match.index + 2 : match.index,
  );
  if (starts.length === 0) return [fragment];
  const bounds = starts[0] === 0 ? starts : [0, ...starts];
  return bounds.map((start, index) => {
    const block = text.slice(start, bounds[index + 1] ?? text.length);
    const file = fileName(block);
    return {
      section: fragment.section,
      text: block,
      weight: counter.countText(block),
      ...(file === undefined ? {} : { file }),
    };
  });
}

function fileName(block: string): string | undefined {
  return /^## (\S+\.[A-Za-z0-9]+)[ \t]*\n/.exec(block)?.[1];
}

function describeMessage(message: Message): string {
  if (message.role === 'tool') {
    const name = message.name === undefined ? '' : ` of ${message.name}`;
    return `tool result${name} (${message.toolCallId ?? message.id})`;
  }
  return `${message.role} message ${message.id}`;
}
