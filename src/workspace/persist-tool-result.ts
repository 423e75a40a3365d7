import type { PersistToolResultOptions } from './persist-tool-result-options.js';
import { planToolResultOffload } from './plan-tool-result-offload.js';
import { ToolResultOffloadWriter } from './tool-result-offload-writer.js';

export type { PersistToolResultOptions } from './persist-tool-result-options.js';

/** What {@link persistToolResult} did. */
export type PersistToolResultOutcome =
  | { readonly status: 'inline'; readonly reason: string }
  | {
      readonly status: 'persisted';
      /** The text that replaces the result in the model's context. */
      readonly reference: string;
      /** Absolute path of the file holding the full result. */
      readonly path: string;
      /** Characters of the original payload. */
      readonly originalChars: number;
      /** False when the file already existed (an earlier run wrote it). */
      readonly created: boolean;
      /** True in a dry run when the file is not on disk (the reference says it would be saved). */
      readonly isDryRun?: true;
      /** Buckets removed by retention. */
      readonly removedBuckets: readonly string[];
      /** Retention errors (recorded, never thrown). */
      readonly cleanupErrors: readonly string[];
    };

/**
 * Writes an oversized tool result to `<workspace>/.ctxloom/tool-results/<session>/<call id>.txt`
 * (`.json` for a list of text parts, stored pretty-printed), nanobot's name, or to
 * `<call id>.<digest>.txt` when that name already holds other bytes (see `planToolResultOffload`),
 * and returns nanobot's reference text with a preview. The file is complete on disk before this
 * resolves (temp file, sync, link or rename, folder sync); an existing file with these bytes is
 * reused, so a second call returns the byte-identical reference. Names are resolved with
 * `resolveInside`, so a hostile id such as `../../x` stays inside the tool-results folder, and a
 * reference never points at bytes other than its own. Each offload that writes a new file also
 * applies bucket retention to sibling session folders; retention errors are recorded in the
 * outcome, never thrown. With `dryRun` nothing is written and the outcome is what a real run would
 * send.
 *
 * Results with images or other non-text parts, and results within `maxChars`, stay inline.
 * @throws when the file cannot be written (the caller falls back to truncation).
 */
export async function persistToolResult(
  options: PersistToolResultOptions,
): Promise<PersistToolResultOutcome> {
  const plan = planToolResultOffload(options);
  if ('status' in plan) return plan;
  const writer = new ToolResultOffloadWriter();
  const dryRun = options.dryRun === true;
  const [outcome] = await writer.write([plan], { dryRun });
  if (outcome === undefined || !outcome.ok) throw new Error(outcome?.error ?? 'offload write failed');
  const retention =
    outcome.created && !dryRun
      ? await writer.applyRetention({
          root: plan.root,
          current: plan.bucketName,
          ...(options.maxBucketAgeMs === undefined ? {} : { maxAgeMs: options.maxBucketAgeMs }),
          ...(options.maxBuckets === undefined ? {} : { maxBuckets: options.maxBuckets }),
          now: (options.clock ?? (() => new Date()))().getTime(),
        })
      : { removedBuckets: [], cleanupErrors: [] };
  return {
    status: 'persisted',
    reference: outcome.reference,
    path: outcome.path,
    originalChars: plan.originalChars,
    created: outcome.created,
    ...(outcome.isDryRun === true ? { isDryRun: true } : {}),
    ...retention,
  };
}
