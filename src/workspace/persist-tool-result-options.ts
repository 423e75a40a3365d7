import type { Content } from '../core/message.js';

/** Options for `persistToolResult` (and the offload plan, which reads the naming ones). */
export type PersistToolResultOptions = {
  /** The workspace root; results go to `<workspace>/.ctxloom/tool-results/<session>/`. */
  readonly workspace: string;
  /** The session key, made safe as a folder name. @default 'default' */
  readonly sessionKey?: string;
  /** The tool call id, made safe as the file name. */
  readonly toolCallId: string;
  /** The tool result. */
  readonly content: Content;
  /** Results up to this many characters stay inline (no file). @default 16000 */
  readonly maxChars?: number;
  /** Characters of the original shown in the reference. @default 1200 */
  readonly previewChars?: number;
  /** Sibling session buckets older than this (by mtime) are deleted. @default 7 days */
  readonly maxBucketAgeMs?: number;
  /** Buckets kept, the current one included, newest first. @default 32 */
  readonly maxBuckets?: number;
  /** The current time, for bucket retention. @default () => new Date() */
  readonly clock?: () => Date;
  /**
   * Compute the reference without writing or deleting anything, for read-only tools such as the
   * inspector. A file already on disk gets the reference a real run sends; one that is not gets a
   * reference that says where the output would be saved and that nothing was written
   * (`dryRunOffloadReference`), so no request points at a file that does not exist. @default false
   */
  readonly dryRun?: boolean;
};
