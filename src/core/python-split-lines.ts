// Python's line boundaries besides \n and \r: \v, \f, the file/group/record separators, NEL, LS, PS.
const OTHER_BOUNDARIES = '\\v\\f\\x1c\\x1d\\x1e\\x85\\u2028\\u2029';
const LINE_BOUNDARY = new RegExp(`\\r\\n|[\\n\\r${OTHER_BOUNDARIES}]`);

/**
 * Splits text into lines exactly as Python's `str.splitlines()` does: every Unicode line boundary
 * (`\n`, `\r`, `\r\n`, `\v`, `\f`, `\x1c`–`\x1e`, `\x85`, `\u2028`, `\u2029`) ends a line, the
 * boundaries are dropped, and a final boundary does not start an empty last line (`''` gives `[]`).
 */
export function pythonSplitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(LINE_BOUNDARY);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
