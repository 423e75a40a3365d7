/** What kind of volatile bytes a finding is about. */
export type VolatileKind =
  | 'timestamp'
  | 'clock-time'
  | 'uuid'
  | 'random-id'
  | 'temp-path'
  | 'epoch'
  | 'counter'
  | 'tool-order'
  | 'json-key-order'
  | 'changed';

/**
 * Shapes that are volatile on their own, in one build: a precise timestamp (seconds or finer), a UUID,
 * an absolute temp path, a millisecond epoch, a long random id. A date or a date with hours and
 * minutes is not among them: entry dates are stable text; only a comparison of builds tells a date
 * that changes per build from one that does not.
 */
const SUSPECT_PATTERNS: readonly (readonly [VolatileKind, RegExp])[] = [
  ['uuid', /\b[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\b/gi],
  ['timestamp', /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?\b/g],
  [
    'temp-path',
    /(?:\/tmp\/|\/var\/folders\/|\/private\/var\/|[A-Z]:\\(?:Users\\[^\\\s]+\\)?AppData\\Local\\Temp\\)[^\s'"`)]*/g,
  ],
  ['epoch', /\b1[6-9]\d{11}\b/g],
  ['random-id', /\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{20,}\b/g],
];

/** A match of a suspect shape in a text. */
export type SuspectMatch = { readonly kind: VolatileKind; readonly offset: number; readonly text: string };

/** Every suspect shape in the text, in order of position. */
export function suspectMatches(text: string): readonly SuspectMatch[] {
  const matches: SuspectMatch[] = [];
  for (const [kind, pattern] of SUSPECT_PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const offset = match.index;
      if (matches.some((other) => offset >= other.offset && offset < other.offset + other.text.length))
        continue;
      matches.push({ kind, offset, text: match[0] });
    }
  }
  return matches.sort((a, b) => a.offset - b.offset);
}

/** What a span that differs between two builds looks like. */
export function classifyChange(before: string, after: string): VolatileKind {
  const sample = `${before} ${after}`;
  const suspect = suspectMatches(sample)[0];
  if (suspect !== undefined) return suspect.kind;
  if (
    /\d{4}-\d{2}-\d{2}|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b|\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\b/.test(sample)
  )
    return 'timestamp';
  if (/\b\d{1,2}:\d{2}\b/.test(sample)) return 'clock-time';
  if (/^\d+$/.test(before) && /^\d+$/.test(after)) return 'counter';
  return 'changed';
}

/** The run of non-space characters around `offset` (the word a difference falls in). */
export function wordAround(text: string, offset: number): { readonly start: number; readonly text: string } {
  let start = Math.min(offset, text.length);
  let end = start;
  while (start > 0 && !/\s/.test(text[start - 1] ?? '')) start -= 1;
  while (end < text.length && !/\s/.test(text[end] ?? '')) end += 1;
  return { start, text: text.slice(start, end) };
}
