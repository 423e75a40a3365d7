import vm from 'node:vm';

/** The longest query accepted, in characters. */
export const MAX_RECALL_QUERY_CHARS = 500;

/** The longest regular-expression pattern accepted, in characters. */
export const MAX_RECALL_PATTERN_CHARS = 200;

/** A parsed recall query: words (all must appear, case-insensitive) or a regular expression. */
export type RecallQuery =
  | { readonly kind: 'words'; readonly words: readonly string[] }
  | { readonly kind: 'regex'; readonly source: string; readonly flags: string };

/**
 * Parses a recall query: `/pattern/flags` is a regular expression (flags among `i`, `m`, `s`, `u`;
 * patterns with nested quantifiers or back-references, which can backtrack for hours, are refused),
 * anything else is words. Returns the query or the message telling the model what was wrong.
 */
export function parseRecallQuery(text: string): RecallQuery | { readonly error: string } {
  const query = text.trim();
  if (query === '') return { error: 'recall: `query` is empty; give words or /regex/flags.' };
  if (query.length > MAX_RECALL_QUERY_CHARS)
    return { error: `recall: the query has ${query.length} characters, over ${MAX_RECALL_QUERY_CHARS}.` };
  const regex = /^\/(.+)\/([a-z]*)$/s.exec(query);
  if (regex === null) return { kind: 'words', words: query.toLowerCase().split(/\s+/u) };
  const source = regex[1] ?? '';
  const flags = regex[2] ?? '';
  if (source.length > MAX_RECALL_PATTERN_CHARS)
    return {
      error: `recall: the pattern has ${source.length} characters, over ${MAX_RECALL_PATTERN_CHARS}; use a shorter one or words.`,
    };
  if (!/^[imsu]*$/.test(flags) || new Set(flags).size !== flags.length)
    return { error: `recall: flags ${JSON.stringify(flags)} are not allowed; use any of i, m, s, u once.` };
  if (isCatastrophic(source))
    return {
      error:
        'recall: the pattern has a nested quantifier or a back-reference (it could run for hours); simplify it, e.g. /(ab)+/ instead of /(a+)+/, or search by words.',
    };
  try {
    new RegExp(source, flags);
  } catch (error) {
    return {
      error: `recall: the pattern is not a valid regular expression (${error instanceof Error ? error.message : String(error)}).`,
    };
  }
  return { kind: 'regex', source, flags };
}

/** A quantified group that holds a quantifier, or a back-reference: the shapes that backtrack exponentially. */
function isCatastrophic(source: string): boolean {
  if (/\\[1-9]|\\k</.test(source)) return true;
  // A group (possibly nested) containing + * or {n,} followed by a quantifier.
  return /\((?:[^()\\]|\\.)*(?:[+*]|\{\d+,\d*\})(?:[^()\\]|\\.)*\)(?:[+*?]|\{\d+,?\d*\})/.test(source);
}

/**
 * Where `query` first matches in each text (-1: no match). A regular expression runs in a separate
 * context under `timeoutMs`, so even a pattern that slips past the shape checks cannot hang the
 * agent: the call then fails with `timed-out`.
 */
export function matchAll(
  query: RecallQuery,
  within: { readonly texts: readonly string[]; readonly timeoutMs: number },
): readonly number[] | 'timed-out' {
  const { texts, timeoutMs } = within;
  if (query.kind === 'words') return texts.map((text) => wordsMatch(text, query.words));
  const context = vm.createContext({ texts, source: query.source, flags: query.flags });
  try {
    const found: unknown = vm.runInContext(
      'const re = new RegExp(source, flags); texts.map((text) => { const m = re.exec(text); return m === null ? -1 : m.index; })',
      context,
      { timeout: timeoutMs },
    );
    return Array.isArray(found) ? found.map((index) => (typeof index === 'number' ? index : -1)) : [];
  } catch {
    return 'timed-out';
  }
}

function wordsMatch(text: string, words: readonly string[]): number {
  const lower = text.toLowerCase();
  let first = -1;
  for (const word of words) {
    const at = lower.indexOf(word);
    if (at < 0) return -1;
    if (first < 0 || at < first) first = at;
  }
  return first;
}
