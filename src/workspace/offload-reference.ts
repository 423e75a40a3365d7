import { codePointLength, sliceCodePoints } from '../core/code-points.js';

/** First line of every offload reference (how the governor recognises its own references). */
export const OFFLOAD_REFERENCE_HEADER = '[tool output persisted]';

const SAVED_LINE = 'Full output saved to: ';
const READ_TAIL = '\n...\n(Read the saved file if you need the full output.)';

/** nanobot's reference text for an offloaded result. */
export function offloadReference(options: {
  readonly path: string;
  readonly text: string;
  readonly previewChars: number;
}): string {
  // Sizes and the preview in code points, as nanobot measures them (an emoji is one character).
  const size = codePointLength(options.text);
  const preview = sliceCodePoints(options.text, options.previewChars);
  const tail = size > options.previewChars ? READ_TAIL : '';
  return (
    `${OFFLOAD_REFERENCE_HEADER}\n${SAVED_LINE}${options.path}\n` +
    `Original size: ${size} chars\nPreview:\n${preview}${tail}`
  );
}

/** First line of a dry run's reference: nothing was persisted. */
export const DRY_RUN_REFERENCE_HEADER = '[tool output not persisted: dry run]';

/**
 * The reference a dry run sends for a file it did not write ({@link offloadReference} made by
 * `reference`): it says where the full output would be saved and that nothing was written, so a
 * request built in a dry run never points the model at a file that does not exist.
 */
export function dryRunOffloadReference(reference: string): string {
  const opening = `${OFFLOAD_REFERENCE_HEADER}\n${SAVED_LINE}`;
  if (!reference.startsWith(opening)) return reference;
  const body = reference.slice(opening.length);
  const pathEnd = body.indexOf('\n');
  const where = pathEnd < 0 ? body : body.slice(0, pathEnd);
  const rest = pathEnd < 0 ? '' : body.slice(pathEnd);
  const tail = rest.endsWith(READ_TAIL) ? `${rest.slice(0, -READ_TAIL.length)}\n...` : rest;
  return (
    `${DRY_RUN_REFERENCE_HEADER}\nFull output would be saved to: ${where} (not written)${tail}` +
    '\n(This request was built in a dry run: the full output was not saved anywhere.)'
  );
}
