import { matchAll, type RecallQuery } from './recall-query.js';
import type { RecallSource } from './recall-sources.js';

/** Characters of context shown on each side of a hit. */
export const RECALL_EXCERPT_CHARS = 100;

/** One page of recall hits. */
export type RecallPage = {
  readonly hits: readonly { readonly source: RecallSource; readonly excerpt: string }[];
  /** How many sources matched in all. */
  readonly total: number;
  /** The cursor of the next page, when there is one. */
  readonly next?: string;
};

/**
 * The sources that match `query`, newest first (by time where known, else by position), one page of
 * `limit` from `offset`, each with a short excerpt around its first match.
 */
export function searchRecallSources(
  sources: readonly RecallSource[],
  options: {
    readonly query: RecallQuery;
    readonly limit: number;
    readonly offset: number;
    readonly timeoutMs: number;
  },
): RecallPage | 'timed-out' {
  const found = matchAll(options.query, {
    texts: sources.map((source) => source.text),
    timeoutMs: options.timeoutMs,
  });
  if (found === 'timed-out') return found;
  const matched = sources
    .map((source, index) => ({ source, at: found[index] ?? -1 }))
    .filter((hit) => hit.at >= 0)
    .sort((a, b) => newer(b.source, a.source));
  const page = matched.slice(options.offset, options.offset + options.limit);
  const end = options.offset + page.length;
  return {
    hits: page.map((hit) => ({ source: hit.source, excerpt: excerptAt(hit.source.text, hit.at) })),
    total: matched.length,
    ...(end < matched.length ? { next: String(end) } : {}),
  };
}

/** Positive when `a` is newer than `b`. */
function newer(a: RecallSource, b: RecallSource): number {
  const timeA = timeOf(a);
  const timeB = timeOf(b);
  if (timeA !== timeB) return timeA - timeB;
  return a.order - b.order;
}

function timeOf(source: RecallSource): number {
  if (source.time === undefined) return Number.NEGATIVE_INFINITY;
  const time = Date.parse(source.time);
  return Number.isNaN(time) ? Number.NEGATIVE_INFINITY : time;
}

function excerptAt(text: string, at: number): string {
  const start = Math.max(0, at - RECALL_EXCERPT_CHARS);
  const end = Math.min(text.length, at + RECALL_EXCERPT_CHARS * 2);
  const body = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}

/** The page as the text the model reads. */
export function renderRecallPage(page: RecallPage, query: string): string {
  if (page.total === 0)
    return `No hits for ${JSON.stringify(query)} in what is out of view (summarised or cleared messages, offloaded tool results, archived history).`;
  const lines = [
    `${page.total} hit${page.total === 1 ? '' : 's'} for ${JSON.stringify(query)}, newest first:`,
  ];
  for (const { source, excerpt } of page.hits) {
    const where = [
      `${source.kind} ${source.id}`,
      source.role === undefined ? undefined : `role ${source.role}`,
      source.recordId === undefined ? undefined : `out of view through record ${source.recordId}`,
      source.turn === undefined ? undefined : `turn ${source.turn}`,
      source.time,
      source.sessionKey === '' ? undefined : `session ${source.sessionKey}`,
    ].filter((part): part is string => part !== undefined);
    lines.push(`- [${where.join(' · ')}]`, `  ${excerpt}`);
  }
  lines.push(
    page.next === undefined
      ? 'No more hits.'
      : `More hits: call recall again with cursor ${JSON.stringify(page.next)}.`,
    'expand an id to read its source in full.',
  );
  return lines.join('\n');
}
