/**
 * The characters Python's `str.isspace()` accepts, as a regular-expression class body: what
 * `str.strip()` removes and what `\s` matches in Python's `re`. JavaScript's `trim()` and `\s` differ
 * (they skip `\x1c`–`\x1f` and `\x85` and add `\ufeff`), so text nanobot compares or cleans is
 * measured with this set when the result must be byte-identical.
 */
export const PYTHON_WHITESPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

const WHITESPACE_CHARACTER = new RegExp(`^[${PYTHON_WHITESPACE}]$`);

/** Removes leading and trailing whitespace exactly as Python's `str.strip()` does. */
export function pythonStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && WHITESPACE_CHARACTER.test(text.charAt(start))) start += 1;
  while (end > start && WHITESPACE_CHARACTER.test(text.charAt(end - 1))) end -= 1;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}
