import { createRequire } from 'node:module';
import { ContextError } from '../core/errors.js';
import { isRecord } from '../core/is-record.js';

/** What a skill needs before it can run: executables on PATH and non-empty environment variables. */
export type SkillRequirements = {
  readonly bins: readonly string[];
  readonly env: readonly string[];
};

/**
 * The nanobot-specific metadata of a skill (`metadata.nanobot`, falling back to `metadata.openclaw`).
 * Null or malformed fields are ignored, never fatal.
 */
export type SkillMetadata = {
  readonly requires: SkillRequirements;
  /** True when the skill is always-on (metadata `always` or top-level `always`). */
  readonly always: boolean;
  readonly emoji?: string;
  readonly os?: readonly string[];
  /** Install hints, kept as given (informational). */
  readonly install?: unknown;
};

/** A parsed SKILL.md. */
export type ParsedSkillFile = {
  /** The frontmatter mapping (`{}` when the file has none). */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** The frontmatter `name`, when it is a non-empty string. */
  readonly name?: string;
  /** The frontmatter `description` (trimmed), when it is a non-empty string. */
  readonly description?: string;
  readonly metadata: SkillMetadata;
  /** The text after the frontmatter, trimmed. */
  readonly body: string;
};

/** The result of {@link safeParseSkillFile}. */
export type SafeParseSkillFileResult =
  | { readonly success: true; readonly value: ParsedSkillFile }
  | { readonly success: false; readonly error: ContextError };

const FRONTMATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Parses a SKILL.md: an optional YAML frontmatter block (`---` … `---` at the very start, CRLF
 * tolerated, parsed with the `yaml` package's safe core schema; folded and literal scalars work) and
 * the Markdown body. `metadata` may be a mapping or a JSON string; nanobot's keys live under
 * `nanobot`, falling back to `openclaw`. A top-level `always: true` also marks the skill always-on.
 * @throws ContextError `SKILL_INVALID` when the frontmatter is not valid YAML, is not a mapping, or
 * `metadata` is a string that is not a JSON object.
 */
export function parseSkillFile(text: string): ParsedSkillFile {
  const match = FRONTMATTER.exec(text);
  if (match === null) return { frontmatter: {}, metadata: emptyMetadata(false), body: text.trim() };
  const frontmatter = parseFrontmatter(match[1] ?? '');
  const body = text.slice(match[0].length).trim();
  const name = nonEmptyString(frontmatter['name']);
  const description = nonEmptyString(frontmatter['description']);
  const metadata = readMetadata(frontmatter);
  return {
    frontmatter,
    ...(name === undefined ? {} : { name }),
    ...(description === undefined ? {} : { description }),
    metadata,
    body,
  };
}

/** {@link parseSkillFile} without throwing: `{ success, value }` or `{ success: false, error }`. */
export function safeParseSkillFile(text: string): SafeParseSkillFileResult {
  try {
    return { success: true, value: parseSkillFile(text) };
  } catch (error) {
    if (ContextError.isInstance(error)) return { success: false, error };
    throw error;
  }
}

/** Removes a leading frontmatter block (when present and well-formed) and trims the rest. */
export function stripFrontmatter(text: string): string {
  const match = FRONTMATTER.exec(text);
  return (match === null ? text : text.slice(match[0].length)).trim();
}

function parseFrontmatter(source: string): Readonly<Record<string, unknown>> {
  let value: unknown;
  try {
    value = yamlParser()(source, { schema: 'core', uniqueKeys: false });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw invalid(
      `The SKILL.md frontmatter is not valid YAML (${reason}); fix the block between the '---' lines.`,
    );
  }
  if (value === null || value === undefined) return {};
  if (!isRecord(value)) {
    throw invalid(
      `The SKILL.md frontmatter must be a YAML mapping (key: value lines), got ${describe(value)}; write e.g. 'name: my-skill'.`,
    );
  }
  return value;
}

function readMetadata(frontmatter: Readonly<Record<string, unknown>>): SkillMetadata {
  const topLevelAlways = frontmatter['always'] === true;
  const raw = frontmatter['metadata'];
  const mapping = typeof raw === 'string' ? parseJsonMetadata(raw) : raw;
  if (!isRecord(mapping)) return emptyMetadata(topLevelAlways);
  const own = isRecord(mapping['nanobot']) ? mapping['nanobot'] : mapping['openclaw'];
  if (!isRecord(own)) return emptyMetadata(topLevelAlways);
  const requires = isRecord(own['requires']) ? own['requires'] : {};
  const emoji = nonEmptyString(own['emoji']);
  const os = stringList(own['os']);
  return {
    requires: { bins: stringList(requires['bins']), env: stringList(requires['env']) },
    always: topLevelAlways || own['always'] === true,
    ...(emoji === undefined ? {} : { emoji }),
    ...(os.length === 0 ? {} : { os }),
    ...(own['install'] === undefined || own['install'] === null ? {} : { install: own['install'] }),
  };
}

function parseJsonMetadata(raw: string): unknown {
  if (raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw invalid(
      `The SKILL.md 'metadata' field is a string but not valid JSON (${reason}); write it as a YAML mapping or a JSON object.`,
    );
  }
}

function emptyMetadata(always: boolean): SkillMetadata {
  return { requires: { bins: [], env: [] }, always };
}

function stringList(value: unknown): readonly string[] {
  if (typeof value === 'string') return value.trim() === '' ? [] : [value.trim()];
  if (!Array.isArray(value)) return [];
  const items: string[] = [];
  for (const item of value) {
    if (typeof item === 'string' && item.trim() !== '') items.push(item.trim());
  }
  return items;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value} (${JSON.stringify(value)})`;
}

function invalid(message: string): ContextError {
  return new ContextError({ code: 'SKILL_INVALID', message });
}

/** The `yaml` package's `parse`, loaded on the first frontmatter read (importing ctxloom does not pay for it). */
let parseYaml: typeof import('yaml').parse | undefined;

function yamlParser(): typeof import('yaml').parse {
  // A synchronous load keeps skill parsing synchronous; `yaml` resolves to the same file either way.
  parseYaml ??= (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse;
  return parseYaml;
}
