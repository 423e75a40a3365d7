import { closestName } from './closest-name.js';
import { ContextError } from './errors.js';

/**
 * Every key of an options type (of each member, for a union) mapped to `true`: the known-key list of
 * {@link checkOptions}. Declare it next to the type with `satisfies OptionKeys<XOptions>`, so adding an
 * option without listing it (or listing one the type lacks) fails to compile.
 * @example
 * export const MAX_MESSAGES_FILTER_OPTION_KEYS = { maxMessages: true, pinnedRoles: true, id: true } as const satisfies OptionKeys<MaxMessagesFilterOptions>;
 */
export type OptionKeys<TOptions> = {
  readonly [TKey in TOptions extends unknown ? keyof TOptions : never]-?: true;
};

/** The known keys of one options object, and the shapes of its nested option objects. */
export type NestedOptionsShape = {
  /** The keys the object may have (an `OptionKeys` constant). */
  readonly known: Readonly<Record<string, true>>;
  /** Keys whose value, when it is an object, is itself an options object to check. @default {} */
  readonly nested?: Readonly<Record<string, NestedOptionsShape>>;
};

/** What {@link checkOptions} checks: the known keys, nested objects, and where the options belong. */
export type OptionsShape = NestedOptionsShape & {
  /** The owner, for the message: `'ContextBuilder.forChat options'`, `'new JsonlSessionStore options'`. */
  readonly where: string;
};

/** One unknown key {@link checkOptions} found. */
type UnknownOption = {
  readonly key: string;
  /** The object it was found in: `where`, then `.key` per nested level. */
  readonly where: string;
  readonly hint: string;
  /** The keys known there. */
  readonly known: readonly string[];
};

/**
 * Rejects options objects with keys their owner does not read: a misspelt, renamed or misplaced option
 * would otherwise be ignored without a word. Keys are own enumerable ones, whatever their value
 * (`{ maxTokens: undefined }` is still unknown); nested objects (`governor: {...}`) are checked in turn.
 * A value that is not an object (absent options) passes: type checks are the owner's.
 * @throws ContextError `INVALID_OPTIONS` naming each unknown key, where it was found, and the closest
 * known name, or the nested object it belongs under (or the level above, for a nested key).
 */
export function checkOptions(value: unknown, shape: OptionsShape): void {
  const unknown = unknownOptions(value, { shape, where: shape.where, parent: undefined });
  if (unknown.length === 0) return;
  const sentences = unknown.map(
    (option) => `Unknown option ${nameOf(option.key)} in ${option.where}${option.hint}`,
  );
  const levels = new Map(unknown.map((option) => [option.where, option.known]));
  const lists = [...levels].map(([where, known]) => `The known keys of ${where}: ${known.join(', ')}.`);
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `${sentences.join(' ')} An unknown option would be ignored without a word, so it is an error. ${lists.join(' ')}`,
    details: {
      where: shape.where,
      unknown: unknown.map((option) => ({ key: option.key, where: option.where })),
      known: Object.keys(shape.known),
    },
  });
}

/** One level of nesting: its shape, its path, and the shape of the level above. */
type Level = {
  readonly shape: NestedOptionsShape;
  readonly where: string;
  readonly parent: NestedOptionsShape | undefined;
};

function unknownOptions(value: unknown, at: Level): readonly UnknownOption[] {
  const { shape } = at;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const found: UnknownOption[] = [];
  for (const [key, entry] of Object.entries(value)) {
    if (!Object.hasOwn(shape.known, key)) {
      found.push({ key, where: at.where, hint: hintFor(key, at), known: Object.keys(shape.known) });
      continue;
    }
    const nested = shape.nested?.[key];
    if (nested !== undefined)
      found.push(...unknownOptions(entry, { shape: nested, where: `${at.where}.${key}`, parent: shape }));
  }
  return found;
}

/** Why the key is likely there: a typo, a nested object's key, or the level above's key. */
function hintFor(key: string, at: Level): string {
  const { shape } = at;
  const under = Object.entries(shape.nested ?? {}).find(([, nested]) => Object.hasOwn(nested.known, key));
  if (under !== undefined)
    return `; it belongs under ${under[0]}: pass { ${under[0]}: { ${key} } } (at ${at.where}.${under[0]}.${key}).`;
  if (at.parent !== undefined && Object.hasOwn(at.parent.known, key))
    return `; it belongs one level up, next to ${lastSegment(at.where)} (not inside it).`;
  const match = closestName(key, Object.keys(shape.known));
  return match === undefined ? '.' : `; did you mean ${match}?`;
}

/** A key as written in code: bare when it is an identifier, else quoted. */
function nameOf(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
}

function lastSegment(where: string): string {
  return where.slice(where.lastIndexOf('.') + 1);
}
