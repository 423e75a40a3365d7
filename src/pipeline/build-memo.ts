import { keepsMarkedItems, type ListMark, markList } from '../core/list-mark.js';
import type { Message } from '../core/message.js';
import type { BuildInput } from './build-input.js';
import type { BuildResult } from './build-trace.js';
import { isPlainObject, samePlainData } from './same-plain-data.js';

/** What the providers of one build gave, and the input the filters saw. */
export type BuildMemoKey = {
  /** Each provider's messages, as it returned them (before tagging). */
  readonly blocks: readonly (readonly Message[])[];
  /** The ids the providers made with `context.generateId` in this build. */
  readonly generated: ReadonlySet<string>;
  readonly input: BuildInput;
};

/**
 * The last build of a pipeline whose filters depend only on their message list and on the build
 * input: when the providers give the same messages again and the input the filters read is the same,
 * the filters would compute the same result, so it is reused instead of computed again.
 *
 * "The same": each message is the same object, or equal plain data whose id differs only because the
 * provider made a new one this build (a fresh builder would make new ids too); the input is compared
 * field by field as plain data, except `history` (the providers' blocks stand for it: filters read
 * the list, not the history) and `signal`. A build with governor-style loop state (`input.state`,
 * mutable by design) is never reused, nor one whose stages reported an error or a failed side effect
 * (`details.offloadError`): running it again may succeed. One entry, replaced by every build.
 *
 * A block is remembered as a {@link ListMark}, not as the bare array: a provider may return an array
 * the caller owns (`input.history` itself), which the caller may push to or splice before the next
 * build, and then it no longer holds what was built from. Items are taken as immutable (messages,
 * parts and tool definitions are replaced, never edited in place), like every identity cache here.
 * @internal
 */
export class BuildMemo {
  #last: { readonly key: RememberedKey; readonly result: BuildResult } | undefined;

  /** The remembered result when `key` matches the last build, else `undefined`. */
  reuse(key: BuildMemoKey): BuildResult | undefined {
    const last = this.#last;
    if (last === undefined || key.input.state !== undefined) return undefined;
    if (!sameInput(last.key.input, key.input)) return undefined;
    if (last.key.blocks.length !== key.blocks.length) return undefined;
    for (let index = 0; index < key.blocks.length; index += 1) {
      const before = last.key.blocks[index] as ListMark<Message>; // same length, checked above
      const now = key.blocks[index] as readonly Message[];
      if (!sameBlock({ before, now }, { before: last.key.generated, now: key.generated })) return undefined;
    }
    return last.result;
  }

  /**
   * Remembers a build (or forgets the last one when this build may not be reused). The input is kept
   * as a snapshot one level deep, so a caller who reuses one input object, or one `tools` array, and
   * changes it between builds is not taken for the same input; the items of its arrays and objects
   * (a tool definition, a part of `current`) are shared, as they are immutable.
   */
  remember(key: BuildMemoKey, result: BuildResult): void {
    this.#last =
      key.input.state === undefined && isSettled(result)
        ? {
            key: { blocks: key.blocks.map(markList), generated: key.generated, input: snapshot(key.input) },
            result,
          }
        : undefined;
  }
}

/** A {@link BuildMemoKey} as remembered: each block marked, the input as a snapshot. */
type RememberedKey = {
  readonly blocks: readonly ListMark<Message>[];
  readonly generated: ReadonlySet<string>;
  readonly input: InputFields;
};

/** A build input seen as its fields, as the snapshot and the comparison walk them. */
type InputFields = Readonly<Record<string, unknown>>;

/** A copy of `input` one level deep (arrays and plain objects copied; their items shared). */
function snapshot(input: InputFields): InputFields {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === 'history' || key === 'signal') continue;
    copy[key] = Array.isArray(value)
      ? [...value]
      : typeof value === 'object' && value !== null && isPlainObject(value)
        ? { ...value }
        : value;
  }
  return copy;
}

function sameInput(before: InputFields, now: InputFields): boolean {
  const keys = new Set([...Object.keys(before), ...Object.keys(now)]);
  for (const key of keys) {
    if (key === 'history' || key === 'signal') continue;
    if (!samePlainData(before[key], now[key])) return false;
  }
  return true;
}

function sameBlock(
  block: { readonly before: ListMark<Message>; readonly now: readonly Message[] },
  generated: { readonly before: ReadonlySet<string>; readonly now: ReadonlySet<string> },
): boolean {
  const { before: mark, now } = block;
  // A remembered array changed since (the caller's, pushed to or spliced) lost what it held.
  if (mark.length !== now.length || !keepsMarkedItems(mark)) return false;
  const before = mark.list;
  if (before === now) return true;
  for (let index = 0; index < now.length; index += 1) {
    const left = before[index] as Message; // same length
    const right = now[index] as Message;
    if (left === right) continue;
    const sameId = left.id === right.id || (generated.before.has(left.id) && generated.now.has(right.id));
    if (!sameId || !samePlainData({ ...left, id: '' }, { ...right, id: '' })) return false;
  }
  return true;
}

function isSettled(result: BuildResult): boolean {
  return result.trace.stages.every(
    (stage) =>
      stage.error === undefined &&
      stage.decisions.every((entry) => entry.details?.['offloadError'] === undefined),
  );
}
