import { codePointLength, sliceCodePoints } from '../core/code-points.js';

/** First line of every offload reference (how the governor recognises its own references). */
export const OFFLOAD_REFERENCE_HEADER = '[tool output persisted]';

/** nanobot's reference text for an offloaded result. */
export function offloadReference(options: {
  readonly path: string;
  readonly text: string;
  readonly previewChars: number;
}): string {
  // Sizes and the preview in code points, as nanobot measures them (an emoji is one character).
  const size = codePointLength(options.text);
  const preview = sliceCodePoints(options.text, options.previewChars);
  const tail = size > options.previewChars ? '\n...\n(Read the saved file if you need the full output.)' : '';
  return (
    `${OFFLOAD_REFERENCE_HEADER}\nFull output saved to: ${options.path}\n` +
    `Original size: ${size} chars\nPreview:\n${preview}${tail}`
  );
}
