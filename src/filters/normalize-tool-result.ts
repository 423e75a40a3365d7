import { codePointLength } from '../core/code-points.js';
import { isBlankContent, textOf } from '../core/content.js';
import type { Content } from '../core/message.js';
import { truncateText } from '../core/truncate-text.js';
import { OFFLOAD_REFERENCE_HEADER } from '../workspace/offload-reference.js';
import { type PersistToolResultOptions, persistToolResult } from '../workspace/persist-tool-result.js';
import {
  DEFAULT_MAX_TOOL_RESULT_CHARS,
  DEFAULT_OFFLOAD_EXEMPT_TOOLS,
  emptyToolResultText,
} from './governor-constants.js';

/** Options for {@link normalizeToolResult}. */
export type NormalizeToolResultOptions = {
  /** The call id (the offload file name). */
  readonly toolCallId: string;
  /** The tool name (the empty-result text and the exemption check). */
  readonly toolName: string;
  readonly content: Content;
  /** @default 16000 */
  readonly maxChars?: number;
  /** Offload root; without it oversized results are truncated. */
  readonly workspace?: string;
  /** @default 'default' */
  readonly sessionKey?: string;
  /** Tools returned as they are, never offloaded or truncated. @default ['read_file'] */
  readonly exemptTools?: readonly string[];
  /** Passed through to `persistToolResult` (preview size, retention, clock). */
  readonly offload?: Pick<
    PersistToolResultOptions,
    'previewChars' | 'maxBucketAgeMs' | 'maxBuckets' | 'clock' | 'dryRun'
  >;
};

/** What {@link normalizeToolResult} did. */
export type NormalizedToolResult = {
  readonly content: Content;
  readonly action: 'unchanged' | 'empty' | 'offloaded' | 'truncated';
  /** The offload file, when `action` is `offloaded`. */
  readonly path?: string;
  /** Characters before the change. */
  readonly originalChars?: number;
  /** Why the offload failed, when it did (the result was truncated instead). */
  readonly offloadError?: string;
  /** Bucket-retention errors (recorded, never thrown). */
  readonly cleanupErrors?: readonly string[];
  /** True when `action` is `offloaded` in a dry run that did not write the file (see `dryRun`). */
  readonly isDryRun?: true;
};

/**
 * nanobot's `normalize_tool_result`: an empty result becomes `({tool} completed with no output)`;
 * exempt tools (`read_file`) are returned as they are; an oversized result is offloaded to the
 * workspace (see `persistToolResult`) and replaced by a reference; a string that is still longer than
 * `maxChars` (no workspace, or the write failed) is hard-truncated with `"\n... (truncated)"`.
 * Our own offload references are recognised and left alone (not even truncated when `maxChars` is
 * smaller than the reference), so normalising twice changes nothing.
 */
export async function normalizeToolResult(
  options: NormalizeToolResultOptions,
): Promise<NormalizedToolResult> {
  const decided = normalizeToolResultSync(options);
  if (decided.action !== 'offload-candidate') return decided;
  if (options.workspace === undefined) return decided.fallback;
  try {
    const outcome = await persistToolResult({
      ...options.offload,
      workspace: options.workspace,
      toolCallId: options.toolCallId,
      content: options.content,
      maxChars: options.maxChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS,
      ...(options.sessionKey === undefined ? {} : { sessionKey: options.sessionKey }),
    });
    if (outcome.status !== 'persisted') return decided.fallback;
    // nanobot's last step applies to the reference too: a cap smaller than the reference cuts it.
    return {
      content: truncateText(outcome.reference, options.maxChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS),
      action: 'offloaded',
      path: outcome.path,
      originalChars: outcome.originalChars,
      cleanupErrors: outcome.cleanupErrors,
      ...(outcome.isDryRun === true ? { isDryRun: true } : {}),
    };
  } catch (error) {
    return { ...decided.fallback, offloadError: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The part of {@link normalizeToolResult} that needs no file system: the final result, or
 * `offload-candidate` for an oversized text result, with the truncation to use when it can't be
 * offloaded. @internal
 */
export function normalizeToolResultSync(
  options: Pick<NormalizeToolResultOptions, 'content' | 'toolName' | 'maxChars' | 'exemptTools'>,
): NormalizedToolResult | { readonly action: 'offload-candidate'; readonly fallback: NormalizedToolResult } {
  const { content } = options;
  if (isEmptyResult(content)) return { content: emptyToolResultText(options.toolName), action: 'empty' };
  if ((options.exemptTools ?? DEFAULT_OFFLOAD_EXEMPT_TOOLS).includes(options.toolName)) {
    return { content, action: 'unchanged' };
  }
  const maxChars = options.maxChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS;
  if (
    typeof content === 'string' &&
    content.startsWith(`${OFFLOAD_REFERENCE_HEADER}\nFull output saved to: `)
  ) {
    return { content, action: 'unchanged' };
  }
  // A string, or a list of text parts only (offloaded as one text too), is hard-truncated as the fallback.
  const text =
    typeof content === 'string'
      ? content
      : content.every((part) => part.type === 'text')
        ? textOf(content)
        : undefined;
  // Sizes are code points, as nanobot counts them; the UTF-16 length is an upper bound, checked first.
  if (text === undefined || maxChars <= 0 || text.length <= maxChars) return { content, action: 'unchanged' };
  const originalChars = codePointLength(text);
  if (originalChars <= maxChars) return { content, action: 'unchanged' };
  return {
    action: 'offload-candidate',
    fallback: {
      content: truncatedContent(content, truncateText(text, maxChars)),
      action: 'truncated',
      originalChars,
    },
  };
}

/** A lone text part keeps its provider options and native fields around the cut text; anything else becomes the text. */
function truncatedContent(content: Content, text: string): Content {
  const only = typeof content === 'string' || content.length !== 1 ? undefined : content[0];
  return only?.type === 'text' && Object.keys(only).length > 2 ? [{ ...only, text }] : text;
}

/** nanobot's empty result: a blank string, an empty list, or a list of only blank text parts. */
export const isEmptyResult: (content: Content) => boolean = isBlankContent;
