import type { ToolDefinition } from '../core/tool-definition.js';
import { type Bm25Index, createBm25Index } from './bm25-index.js';
import { searchTerms } from './search-terms.js';
import { toolSearchText } from './tool-search-text.js';

/** How a query is matched: BM25 over the words, or a regular expression. */
export type ToolSearchMode = 'bm25' | 'regex';

/** One tool found by tool search. */
export type ToolSearchMatch = {
  readonly name: string;
  /** BM25 score, or for a regular expression 2 (the name matched) or 1 (only the rest did). */
  readonly score: number;
};

/** The outcome of a search: the matches, or why the query could not be run. */
export type ToolSearchResult =
  | { readonly type: 'matches'; readonly mode: ToolSearchMode; readonly matches: readonly ToolSearchMatch[] }
  | { readonly type: 'invalid-query'; readonly message: string };

/** The longest regular expression tool search runs (Anthropic's regex tool search has the same limit). */
export const MAX_TOOL_SEARCH_PATTERN_LENGTH = 200;

/**
 * A search over a fixed list of tools by their names, descriptions and parameter names
 * ({@link toolSearchText}). A query written `/pattern/flags` is a regular expression (flags `i`, `m`,
 * `s`, `u`; at most {@link MAX_TOOL_SEARCH_PATTERN_LENGTH} characters), matched against each tool's
 * text, tools whose name matches first; any other query is words, ranked by BM25. `mode` forces one.
 */
export type ToolSearcher = {
  search(
    query: string,
    options: { readonly limit: number; readonly mode?: ToolSearchMode },
  ): ToolSearchResult;
};

/** Builds the {@link ToolSearcher} of `tools` (its BM25 index is built once). */
export function createToolSearcher(tools: readonly ToolDefinition[]): ToolSearcher {
  const texts = tools.map((tool) => ({ id: tool.name, text: toolSearchText(tool) }));
  let index: Bm25Index | undefined;
  return {
    search(query, { limit, mode }) {
      const regex = mode === 'bm25' ? undefined : parseRegexQuery(query, mode === 'regex');
      if (regex !== undefined && regex.type === 'invalid-query') return regex;
      if (regex === undefined) {
        index ??= createBm25Index(texts);
        return {
          type: 'matches',
          mode: 'bm25',
          matches: index.search(withoutStopWords(query), limit).map(toMatch),
        };
      }
      const found: { readonly name: string; readonly score: number; readonly position: number }[] = [];
      for (const [position, { id, text }] of texts.entries()) {
        const score = matchScore(regex.pattern, { name: id, text });
        if (score > 0) found.push({ name: id, score, position });
      }
      const ranked = found
        .sort((left, right) => right.score - left.score || left.position - right.position)
        .slice(0, Math.max(0, limit))
        .map(({ name, score }) => ({ name, score }));
      return { type: 'matches', mode: 'regex', matches: ranked };
    },
  };
}

/** Words too common to rank by ("a", "the", "to" …): left out of a query unless it has nothing else. */
const STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'for',
  'from',
  'i',
  'in',
  'is',
  'it',
  'me',
  'my',
  'of',
  'on',
  'or',
  'please',
  'some',
  'that',
  'the',
  'this',
  'to',
  'with',
]);

function withoutStopWords(query: string): string {
  const kept = searchTerms(query).filter((term) => !STOP_WORDS.has(term));
  return kept.length === 0 ? query : kept.join(' ');
}

function toMatch(hit: { readonly id: string; readonly score: number }): ToolSearchMatch {
  return { name: hit.id, score: hit.score };
}

function matchScore(pattern: RegExp, tool: { readonly name: string; readonly text: string }): number {
  pattern.lastIndex = 0;
  if (pattern.test(tool.name)) return 2;
  pattern.lastIndex = 0;
  return pattern.test(tool.text) ? 1 : 0;
}

const REGEX_QUERY = /^\/(.*)\/([a-z]*)$/s;

function parseRegexQuery(
  query: string,
  isForced: boolean,
):
  | { readonly type: 'regex'; readonly pattern: RegExp }
  | { readonly type: 'invalid-query'; readonly message: string }
  | undefined {
  const written = REGEX_QUERY.exec(query);
  if (written === null && !isForced) return undefined;
  const source = written?.[1] ?? query;
  const flags = written?.[2] ?? 'i';
  if (source.length > MAX_TOOL_SEARCH_PATTERN_LENGTH) {
    return {
      type: 'invalid-query',
      message: `The pattern is ${source.length} characters long; tool search takes at most ${MAX_TOOL_SEARCH_PATTERN_LENGTH}. Search with fewer characters or with words.`,
    };
  }
  const unknown = [...flags].filter((flag) => !'imsu'.includes(flag));
  if (unknown.length > 0) {
    return {
      type: 'invalid-query',
      message: `Unknown regular expression flag ${unknown.join(', ')}; tool search takes i, m, s and u.`,
    };
  }
  try {
    return { type: 'regex', pattern: new RegExp(source, flags) };
  } catch (error) {
    return {
      type: 'invalid-query',
      message: `Not a valid regular expression (${error instanceof Error ? error.message : String(error)}). Fix the pattern or search with words.`,
    };
  }
}
