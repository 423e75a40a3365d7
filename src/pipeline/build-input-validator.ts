import { ContextError } from '../core/errors.js';
import { isRecord } from '../core/is-record.js';
import { keepsMarkedItems, type ListMark, markList } from '../core/list-mark.js';
import type { Message } from '../core/message.js';
import {
  checkContentShape,
  checkMessageShape,
  describeValue,
  type ShapeIssue,
} from '../core/message-schema-check.js';

/** Sessions whose last checked list a validator keeps (the least recently checked is forgotten). */
const KEPT_LISTS = 8;

/**
 * Checks what `build`, `transform` and `prepareForModel` are given before any stage sees it, and
 * names the path of the first bad field and what was received. Messages are immutable, so a message
 * checked once needs no second look: for each session (`sessionKey`; the last {@link KEPT_LISTS}) the
 * validator keeps the last list it checked, and of a new list it checks only what is outside the
 * part it shares with that one by identity (`sharedRun`): a list that only grew (the same array
 * pushed to, or a copy), one cut at the front and grown (a replayed session's tail), or one with a new
 * first message. Finding that part compares pointers and reads no message, so a history replayed
 * every turn is checked in full on its first build only.
 */
export class BuildInputValidator {
  /**
   * The last list checked per session, as it was then. A mark, not the bare array: a caller may push
   * to the same array and pass it again (the messages past its length are new), or splice it (then
   * it is checked in full).
   */
  readonly #lists = new Map<string, ListMark<Message>>();
  /** The last list checked, whatever its session (what `growthOf` relates a list to). */
  #last: ListMark<Message> = markList([]);
  /** How the last list checked relates to the one before it. */
  #growth:
    | { readonly list: readonly Message[]; readonly previous: readonly Message[]; readonly shared: number }
    | undefined;

  /**
   * For the list this validator checked last (`list` itself, by identity): the list checked before
   * it and how many of its leading messages `list` shares with it by identity (0 when it did not
   * only grow). `undefined` for any other list.
   */
  growthOf(list: unknown): { readonly previous: readonly Message[]; readonly shared: number } | undefined {
    const growth = this.#growth;
    return growth !== undefined && growth.list === list ? growth : undefined;
  }

  /**
   * Checks a `BuildInput`.
   * @throws ContextError `INVALID_INPUT` naming the path (`history[3].role`) and what was received.
   */
  checkInput(input: unknown, operation: string): void {
    if (input === undefined) return;
    if (!isRecord(input))
      fail(operation, { path: 'input', expected: 'an object', received: describeValue(input) });
    const session = typeof input['sessionKey'] === 'string' ? input['sessionKey'] : '';
    const found = inputIssue(input, (messages) =>
      this.#messagesIssue(messages, { path: 'history', session }),
    );
    if (found !== undefined) fail(operation, found);
  }

  /**
   * Checks a message list given to `transform` (or `prepareForModel`).
   * @throws ContextError `INVALID_INPUT` naming the path (`messages[3].content`) and what was received.
   */
  checkMessages(messages: unknown, operation: string): void {
    const found = this.#messagesIssue(messages, { path: 'messages', session: '' });
    if (found !== undefined) fail(operation, found);
  }

  #messagesIssue(
    messages: unknown,
    { path, session }: { readonly path: string; readonly session: string },
  ): ShapeIssue | undefined {
    if (!Array.isArray(messages))
      return { path, expected: 'an array of messages', received: describeValue(messages) };
    const last = this.#last;
    const known = this.#lists.get(session) ?? last;
    const shared = sharedRun(known, messages);
    const found =
      shapeIssueIn(messages, { from: 0, to: shared.start, path }) ??
      shapeIssueIn(messages, { from: shared.end, to: messages.length, path });
    if (found !== undefined) return found;
    // Every item passed the shape check, here or in an earlier list: the list is a message list.
    const checked = messages as readonly Message[];
    this.#last = markList(checked);
    this.#lists.delete(session);
    this.#lists.set(session, this.#last);
    if (this.#lists.size > KEPT_LISTS) this.#lists.delete(this.#lists.keys().next().value as string);
    const grown = known === last && shared.start === 0 && shared.markStart === 0;
    this.#growth = { list: checked, previous: last.list, shared: grown ? shared.end : 0 };
    return undefined;
  }
}

/** The first shape problem of `messages[from, to)`; the path is only written for a problem. */
function shapeIssueIn(
  messages: readonly unknown[],
  { from, to, path }: { readonly from: number; readonly to: number; readonly path: string },
): ShapeIssue | undefined {
  for (let index = from; index < to; index += 1) {
    const found = checkMessageShape(messages[index], '');
    if (found !== undefined) return { ...found, path: `${path}[${index}]${found.path}` };
  }
  return undefined;
}

/**
 * Where `next` holds the marked items by identity: the longest run of its items that ends with the
 * marked list's last item and matches the marked items before it, one for one. That is the whole
 * mark when `next` only grew from it, its tail when `next` was cut at the front, and the mark after a
 * new first message (a system prompt made again). Only pointers are compared, from the end, so a
 * list grown by a few messages costs a few comparisons plus the run. A marked array changed since
 * (see `keepsMarkedItems`) shares nothing.
 */
function sharedRun<TItem>(
  mark: ListMark<TItem>,
  next: readonly TItem[],
): { readonly start: number; readonly end: number; readonly markStart: number } {
  const none = { start: 0, end: 0, markStart: 0 };
  if (mark.length === 0 || !keepsMarkedItems(mark)) return none;
  if (next === mark.list) return { start: 0, end: mark.length, markStart: 0 };
  const end = next.lastIndexOf(mark.last as TItem) + 1;
  if (end === 0) return none;
  let start = end - 1;
  let markStart = mark.length - 1;
  while (start > 0 && markStart > 0 && next[start - 1] === mark.list[markStart - 1]) {
    start -= 1;
    markStart -= 1;
  }
  return { start, end, markStart };
}

const standalone = new BuildInputValidator();

/**
 * Checks a message list handed to a ctxloom entry point outside a pipeline (e.g.
 * `ContextGovernor.prepareForModel`), with one shared validator.
 * @throws ContextError `INVALID_INPUT` naming the path (`messages[3].role`) and what was received.
 */
export function checkMessageList(messages: unknown, operation: string): void {
  standalone.checkMessages(messages, operation);
}

/**
 * For the list `checkMessageList` checked last (`list` itself): the list it checked before and how
 * many leading messages the two share by identity (see `BuildInputValidator.growthOf`), so a caller
 * keeping state about a growing list need not compare it again. `undefined` for any other list.
 * @internal
 */
export function messageListGrowth(
  list: unknown,
): { readonly previous: readonly Message[]; readonly shared: number } | undefined {
  return standalone.growthOf(list);
}

function inputIssue(
  input: Readonly<Record<string, unknown>>,
  checkHistory: (messages: unknown) => ShapeIssue | undefined,
): ShapeIssue | undefined {
  if (input['history'] !== undefined) {
    const found = checkHistory(input['history']);
    if (found !== undefined) return found;
  }
  if (input['current'] !== undefined) {
    const found = checkContentShape(input['current'], 'current');
    if (found !== undefined) return found;
  }
  const role = input['currentRole'];
  if (role !== undefined && role !== 'user' && role !== 'assistant')
    return { path: 'currentRole', expected: '"user" or "assistant"', received: describeValue(role) };
  return (
    stringList(input['media'], 'media') ??
    runtimeContextIssue(input['runtimeContext']) ??
    toolsIssue(input['tools'], 'tools') ??
    toolsIssue(input['deferredTools'], 'deferredTools') ??
    optionalString(input['toolsDescription'], 'toolsDescription') ??
    optionalString(input['sessionKey'], 'sessionKey') ??
    summaryIssue(input['summary']) ??
    notesIssue(input['notes']) ??
    optionalRecord(input['state'], 'state') ??
    optionalRecord(input['runtimePrompt'], 'runtimePrompt') ??
    signalIssue(input['signal'])
  );
}

function notesIssue(value: unknown): ShapeIssue | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value))
    return { path: 'notes', expected: 'a { goal, updatedAt, … } object', received: describeValue(value) };
  return requiredString(value['goal'], 'notes.goal') ?? requiredString(value['updatedAt'], 'notes.updatedAt');
}

function optionalString(value: unknown, path: string): ShapeIssue | undefined {
  return value === undefined || typeof value === 'string'
    ? undefined
    : { path, expected: 'a string', received: describeValue(value) };
}

function optionalRecord(value: unknown, path: string): ShapeIssue | undefined {
  return value === undefined || isRecord(value)
    ? undefined
    : { path, expected: 'an object', received: describeValue(value) };
}

function stringList(value: unknown, path: string): ShapeIssue | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return { path, expected: 'an array of strings', received: describeValue(value) };
  const index = value.findIndex((item) => typeof item !== 'string');
  return index === -1
    ? undefined
    : { path: `${path}[${index}]`, expected: 'a string', received: describeValue(value[index]) };
}

function runtimeContextIssue(value: unknown): ShapeIssue | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    return {
      path: 'runtimeContext',
      expected: 'an array of { source, content } blocks',
      received: describeValue(value),
    };
  for (let index = 0; index < value.length; index += 1) {
    const block: unknown = value[index];
    const path = `runtimeContext[${index}]`;
    if (!isRecord(block))
      return { path, expected: 'a { source, content } block', received: describeValue(block) };
    const found =
      requiredString(block['source'], `${path}.source`) ??
      requiredString(block['content'], `${path}.content`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function toolsIssue(value: unknown, field: 'tools' | 'deferredTools'): ShapeIssue | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value))
    return { path: field, expected: 'an array of tool definitions', received: describeValue(value) };
  for (let index = 0; index < value.length; index += 1) {
    const tool: unknown = value[index];
    const path = `${field}[${index}]`;
    if (!isRecord(tool))
      return {
        path,
        expected: 'a tool definition { name, description?, parameters? }',
        received: describeValue(tool),
      };
    const found =
      requiredString(tool['name'], `${path}.name`) ??
      optionalString(tool['description'], `${path}.description`) ??
      optionalRecord(tool['parameters'], `${path}.parameters`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function summaryIssue(value: unknown): ShapeIssue | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value))
    return { path: 'summary', expected: 'a { text, lastActive } object', received: describeValue(value) };
  return (
    requiredString(value['text'], 'summary.text') ?? requiredString(value['lastActive'], 'summary.lastActive')
  );
}

function signalIssue(value: unknown): ShapeIssue | undefined {
  if (value === undefined || (isRecord(value) && typeof value['aborted'] === 'boolean')) return undefined;
  return { path: 'signal', expected: 'an AbortSignal', received: describeValue(value) };
}

function requiredString(value: unknown, path: string): ShapeIssue | undefined {
  return typeof value === 'string'
    ? undefined
    : { path, expected: 'a string', received: describeValue(value) };
}

function fail(operation: string, found: ShapeIssue): never {
  throw new ContextError({
    code: 'INVALID_INPUT',
    message: `${operation}: invalid input at ${found.path}: expected ${found.expected}, got ${found.received}.`,
    details: { path: found.path, expected: found.expected, received: found.received },
  });
}
