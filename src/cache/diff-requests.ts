import {
  type PromptCacheArea,
  type PromptCacheRequest,
  prefixKeys,
  prefixTokens,
} from '../adapters/prompt-cache-request.js';
import { messagesPromptCacheRequest } from '../adapters/to-prompt-cache-request.js';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** Options for {@link diffRequests}. */
export type DiffRequestsOptions = {
  /** Counts tokens when messages are given. @default an `EstimatingTokenCounter` */
  readonly tokenCounter?: TokenCounter;
  /** The tools sent with both requests, when messages are given. */
  readonly tools?: readonly ToolDefinition[];
  /** Characters shown on each side of the first differing byte. @default 40 */
  readonly excerptChars?: number;
};

/** The keys of {@link DiffRequestsOptions}, for `checkOptions`. @internal */
export const DIFF_REQUESTS_OPTION_KEYS = {
  tokenCounter: true,
  tools: true,
  excerptChars: true,
} as const satisfies OptionKeys<DiffRequestsOptions>;

/** Where two consecutive requests first differ. */
export type RequestDivergence = {
  /** The index of the first differing block (tools, system blocks and messages in cache order). */
  readonly block: number;
  readonly area: PromptCacheArea;
  /** The message (or tool, or system block) index within its area. */
  readonly index: number;
  /** The content block within the message. */
  readonly part: number;
  /** The ctxloom section of the block, when known. */
  readonly section?: string;
  /** The character offset of the first difference within the block's bytes. */
  readonly offset: number;
  /** The bytes around the difference in the previous and in the next request. */
  readonly previous: string;
  readonly next: string;
};

/** What {@link diffRequests} returns. */
export type RequestDiff = {
  /** True when the next request starts with every block of the previous one (it only appends). */
  readonly appendOnly: boolean;
  /** Tokens of the shared prefix: what can still be read from the previous request's cache. */
  readonly cacheablePrefixTokens: number;
  /** Tokens of the previous request. */
  readonly previousTokens: number;
  /** Tokens of the next request. */
  readonly nextTokens: number;
  /** The first difference, or `undefined` when the next request only appends. */
  readonly divergence?: RequestDivergence;
};

/**
 * Finds the first point where two consecutive requests diverge (block, message index, section, part,
 * character offset and the bytes on each side) and how many prefix tokens stay cacheable. Takes
 * ctxloom messages (one block per message) or requests made by the `*PromptCacheRequest` converters.
 * @example const { divergence, cacheablePrefixTokens } = diffRequests(previous.messages, next.messages);
 */
export function diffRequests(
  previous: readonly Message[] | PromptCacheRequest,
  next: readonly Message[] | PromptCacheRequest,
  options: DiffRequestsOptions = {},
): RequestDiff {
  checkOptions(options, { where: 'diffRequests options', known: DIFF_REQUESTS_OPTION_KEYS });
  const before = asRequest(previous, options);
  const after = asRequest(next, options);
  const keysBefore = prefixKeys(before);
  const keysAfter = prefixKeys(after);
  let shared = 0;
  while (shared < keysBefore.length && shared < keysAfter.length && keysBefore[shared] === keysAfter[shared])
    shared += 1;
  const tokensBefore = prefixTokens(before);
  const tokensAfter = prefixTokens(after);
  const result = {
    appendOnly: shared === keysBefore.length,
    cacheablePrefixTokens: shared === 0 ? 0 : (tokensAfter[shared - 1] ?? 0),
    previousTokens: tokensBefore.at(-1) ?? 0,
    nextTokens: tokensAfter.at(-1) ?? 0,
  };
  if (shared === keysBefore.length) return result;
  const blockBefore = before.blocks[shared];
  const blockAfter = after.blocks[shared];
  const where = blockAfter ?? blockBefore;
  if (where === undefined) return result;
  const textBefore = blockBefore?.text ?? '';
  const textAfter = blockAfter?.text ?? '';
  let offset = 0;
  while (offset < textBefore.length && offset < textAfter.length && textBefore[offset] === textAfter[offset])
    offset += 1;
  const chars = options.excerptChars ?? 40;
  const excerpt = (text: string): string => text.slice(Math.max(0, offset - chars), offset + chars);
  return {
    ...result,
    divergence: {
      block: shared,
      area: where.area,
      index: where.index,
      part: where.part,
      ...(where.section === undefined ? {} : { section: where.section }),
      offset,
      previous: excerpt(textBefore),
      next: excerpt(textAfter),
    },
  };
}

function asRequest(
  value: readonly Message[] | PromptCacheRequest,
  options: DiffRequestsOptions,
): PromptCacheRequest {
  if ('blocks' in value) return value;
  return messagesPromptCacheRequest(value, {
    ...(options.tokenCounter === undefined ? {} : { tokenCounter: options.tokenCounter }),
    ...(options.tools === undefined ? {} : { tools: options.tools }),
  });
}
