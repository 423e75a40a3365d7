/**
 * The text as Python reads a file in text mode ("universal newlines"): `\r\n` and a lone `\r` both
 * become `\n`. nanobot reads its workspace files this way, so a file written on Windows reaches the
 * prompt with LF line ends.
 */
export function toUniversalNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}
