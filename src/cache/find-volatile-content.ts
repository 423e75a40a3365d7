import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { textOf } from '../core/content.js';
import { type Message, sectionOf } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import {
  classifyChange,
  type SuspectMatch,
  suspectMatches,
  type VolatileKind,
  wordAround,
} from './volatile-patterns.js';

/** One build of a context: the messages and the tools sent with them. */
export type ContextBuildSample = {
  readonly messages: readonly Message[];
  readonly tools?: readonly ToolDefinition[];
};

/** Options for {@link findVolatileContent}. */
export type FindVolatileContentOptions = {
  /** The tools sent with `messages`. */
  readonly tools?: readonly ToolDefinition[];
  /**
   * Other builds of the same context (an earlier turn, a rebuild): bytes of the stable prefix that
   * differ between them and this build are reported as varying. Without them, only shapes that are
   * volatile on their own (precise timestamps, UUIDs, temp paths, epochs, random ids) are reported.
   * @default []
   */
  readonly compareWith?: readonly ContextBuildSample[];
  /**
   * When the build was made. A timestamp to the second is then reported on its own only when it is
   * near this time (within 10 minutes, or 14 hours for one without a time zone): a clock printed into
   * the prompt. An older one is a record (an entry date, the archived summary's last-activity time)
   * and is reported only when it changes between the builds compared.
   * @default undefined: every timestamp to the second is reported
   */
  readonly now?: Date;
};

/** The keys of {@link FindVolatileContentOptions}, for `checkOptions`. @internal */
export const FIND_VOLATILE_CONTENT_OPTION_KEYS = {
  tools: true,
  compareWith: true,
  now: true,
} as const satisfies OptionKeys<FindVolatileContentOptions>;

/** Bytes in the stable prefix (tools and the leading system messages) that bust the prompt cache. */
export type VolatileContent = {
  readonly kind: VolatileKind;
  /** `varies`: differs between the builds compared; `looks-volatile`: a shape that rarely stays put. */
  readonly evidence: 'varies' | 'looks-volatile';
  readonly area: 'tools' | 'system';
  /** The tool or message index in this build. */
  readonly index: number;
  /** The message's section, or the tool's name. */
  readonly section?: string;
  /** Character offset within the message text or the tool's JSON. */
  readonly offset: number;
  /** The bytes concerned in this build. */
  readonly text: string;
  /** A sentence for the trace, `ctxloom inspect` and the inspector. */
  readonly message: string;
};

/**
 * Flags bytes in the stable prefix of a request (the tool definitions and the system messages before
 * the conversation) that change between builds or look volatile: dates and clock times that differ
 * from one build to the next, UUIDs, counters, absolute temp paths, random ids, tool lists in a
 * changing order, JSON keys in a changing order. Given other builds (`compareWith`), it reports what
 * really varies, so a stable entry date is never flagged; given one build, only shapes that are
 * volatile on their own (a timestamp to the second, a UUID, a temp path, an epoch, a random id).
 * @example findVolatileContent(second.messages, { compareWith: [first] })
 */
export function findVolatileContent(
  messages: readonly Message[],
  options: FindVolatileContentOptions = {},
): readonly VolatileContent[] {
  checkOptions(options, { where: 'findVolatileContent options', known: FIND_VOLATILE_CONTENT_OPTION_KEYS });
  const current: ContextBuildSample = {
    messages,
    ...(options.tools === undefined ? {} : { tools: options.tools }),
  };
  const others = options.compareWith ?? [];
  if (others.length === 0) return suspects(current, options.now);
  const findings = new Map<string, VolatileContent>();
  for (const other of others) {
    for (const finding of [...toolChanges(current, other), ...systemChanges(current, other)]) {
      const key = `${finding.area}:${finding.index}:${finding.kind}`;
      if (!findings.has(key)) findings.set(key, finding);
    }
  }
  return [...findings.values()];
}

/** The system messages before the conversation: the messages' part of the stable prefix. */
export function stableSystem(messages: readonly Message[]): readonly Message[] {
  const end = messages.findIndex((message) => message.role !== 'system');
  return end === -1 ? messages : messages.slice(0, end);
}

function suspects(build: ContextBuildSample, now: Date | undefined): VolatileContent[] {
  const found: VolatileContent[] = [];
  const matches = (text: string) => suspectMatches(text).filter((match) => isLive(match, now));
  (build.tools ?? []).forEach((tool, index) => {
    for (const match of matches(JSON.stringify(tool)))
      found.push(finding({ ...match, evidence: 'looks-volatile', area: 'tools', index, section: tool.name }));
  });
  stableSystem(build.messages).forEach((message, index) => {
    for (const match of matches(textOf(message.content)))
      found.push(
        finding({ ...match, evidence: 'looks-volatile', area: 'system', index, section: sectionOf(message) }),
      );
  });
  return found;
}

const SNIPPET_CHARS = 40;
const NEAR_MS = 10 * 60_000;
const NEAR_WITHOUT_ZONE_MS = 14 * 60 * 60_000 + NEAR_MS;

/** False for a timestamp far from the build time (a record, not a clock); true for anything else. */
function isLive(match: SuspectMatch, now: Date | undefined): boolean {
  if (match.kind !== 'timestamp' || now === undefined) return true;
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/.test(match.text);
  const at = Date.parse(`${match.text.replace(' ', 'T')}${hasZone ? '' : 'Z'}`);
  if (Number.isNaN(at)) return true;
  return Math.abs(at - now.getTime()) <= (hasZone ? NEAR_MS : NEAR_WITHOUT_ZONE_MS);
}

function toolChanges(current: ContextBuildSample, other: ContextBuildSample): VolatileContent[] {
  const tools = current.tools ?? [];
  const before = other.tools ?? [];
  const found: VolatileContent[] = [];
  const names = tools.map((tool) => tool.name);
  const beforeNames = before.map((tool) => tool.name);
  const sameSet =
    names.length === beforeNames.length &&
    [...names].sort().join('\0') === [...beforeNames].sort().join('\0');
  if (sameSet && names.join('\0') !== beforeNames.join('\0')) {
    const index = names.findIndex((name, position) => name !== beforeNames[position]);
    found.push({
      kind: 'tool-order',
      evidence: 'varies',
      area: 'tools',
      index,
      section: names[index] ?? '',
      offset: 0,
      text: names.join(', '),
      message: `the tool list changes order between builds (${beforeNames.join(', ')} → ${names.join(', ')}); the whole request after the first moved tool misses the cache. Sort the tools by name.`,
    });
  }
  tools.forEach((tool, index) => {
    const previous = before.find((candidate) => candidate.name === tool.name);
    if (previous === undefined) return;
    const text = JSON.stringify(tool);
    const previousText = JSON.stringify(previous);
    if (text === previousText) return;
    if (canonical(tool) === canonical(previous)) {
      found.push({
        kind: 'json-key-order',
        evidence: 'varies',
        area: 'tools',
        index,
        section: tool.name,
        offset: firstDifference(previousText, text),
        text: '',
        message: `tool '${tool.name}' has the same definition with its JSON keys in another order between builds; build the schema with a fixed key order.`,
      });
      return;
    }
    found.push(
      changeFinding({ before: previousText, after: text, area: 'tools', index, section: tool.name }),
    );
  });
  return found;
}

function systemChanges(current: ContextBuildSample, other: ContextBuildSample): VolatileContent[] {
  const mine = stableSystem(current.messages);
  const theirs = stableSystem(other.messages);
  return mine.flatMap((message, index) => {
    const section = sectionOf(message);
    const counterpart =
      (section === undefined ? undefined : theirs.find((candidate) => sectionOf(candidate) === section)) ??
      theirs[index];
    if (counterpart === undefined) return [];
    const before = textOf(counterpart.content);
    const after = textOf(message.content);
    return before === after ? [] : [changeFinding({ before, after, area: 'system', index, section })];
  });
}

function changeFinding(change: {
  readonly before: string;
  readonly after: string;
  readonly area: 'tools' | 'system';
  readonly index: number;
  readonly section: string | undefined;
}): VolatileContent {
  const offset = firstDifference(change.before, change.after);
  let was = wordAround(change.before, offset).text;
  let now = wordAround(change.after, offset);
  if (was === now.text) {
    // Text inserted or removed at a word boundary: show the bytes that follow on each side.
    was = change.before.slice(offset, offset + SNIPPET_CHARS);
    now = { start: offset, text: change.after.slice(offset, offset + SNIPPET_CHARS) };
  }
  return finding({
    kind: classifyChange(was, now.text),
    evidence: 'varies',
    area: change.area,
    index: change.index,
    section: change.section,
    offset: now.start,
    text: now.text,
    was,
  });
}

function finding(found: {
  readonly kind: VolatileKind;
  readonly evidence: VolatileContent['evidence'];
  readonly area: 'tools' | 'system';
  readonly index: number;
  readonly section: string | undefined;
  readonly offset: number;
  readonly text: string;
  readonly was?: string;
}): VolatileContent {
  const where = `${found.area === 'tools' ? 'tool' : 'system message'} ${found.index}${found.section === undefined ? '' : ` (${found.section})`}`;
  const what =
    found.evidence === 'varies'
      ? `changes between builds at character ${found.offset}: ${JSON.stringify(found.was ?? '')} → ${JSON.stringify(found.text)}`
      : `holds ${JSON.stringify(found.text)} at character ${found.offset}, which looks like it changes per build`;
  return {
    kind: found.kind,
    evidence: found.evidence,
    area: found.area,
    index: found.index,
    ...(found.section === undefined ? {} : { section: found.section }),
    offset: found.offset,
    text: found.text,
    message: `${where} ${what} (${found.kind}); every byte after it misses the prompt cache. Move it after the cached prefix (e.g. into the runtime context of the user message) or make it stable.`,
  };
}

function firstDifference(before: string, after: string): number {
  let offset = 0;
  while (offset < before.length && offset < after.length && before[offset] === after[offset]) offset += 1;
  return offset;
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    typeof inner === 'object' && inner !== null && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
      : inner,
  );
}
