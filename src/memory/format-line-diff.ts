/** What {@link formatLineDiff} compares. */
export type LineDiffOptions = {
  readonly oldText: string;
  readonly newText: string;
  /** The `---` label. */
  readonly oldLabel: string;
  /** The `+++` label. */
  readonly newLabel: string;
  /** Unchanged lines shown around each change. @default 3 */
  readonly context?: number;
};

type Edit = { readonly kind: ' ' | '-' | '+'; readonly text: string };

// Above this many cells the longest-common-subsequence table is skipped (the diff shows a replacement).
const MAX_TABLE_CELLS = 4_000_000;

/**
 * A unified diff (`---`/`+++` headers, `@@ -a,b +c,d @@` hunks) of two texts, line by line; `''`
 * when they are equal. Very large inputs (over 4 million line pairs) are shown as one replacement.
 */
export function formatLineDiff(options: LineDiffOptions): string {
  if (options.oldText === options.newText) return '';
  const edits = diffLines(splitLines(options.oldText), splitLines(options.newText));
  const context = options.context ?? 3;
  const hunks: string[] = [];
  let index = 0;
  while (index < edits.length) {
    if (edits[index]?.kind === ' ') {
      index += 1;
      continue;
    }
    let end = index;
    // Extend the hunk while the next change is within 2 × context unchanged lines.
    for (let probe = index; probe < edits.length && probe - end <= 2 * context; probe += 1) {
      if (edits[probe]?.kind !== ' ') end = probe;
    }
    const from = Math.max(0, index - context);
    const to = Math.min(edits.length, end + context + 1);
    hunks.push(hunk(edits, { from, to }));
    index = to;
  }
  return `--- ${options.oldLabel}\n+++ ${options.newLabel}\n${hunks.join('')}`;
}

function hunk(edits: readonly Edit[], { from, to }: { readonly from: number; readonly to: number }): string {
  let oldStart = 1;
  let newStart = 1;
  for (const edit of edits.slice(0, from)) {
    if (edit.kind !== '+') oldStart += 1;
    if (edit.kind !== '-') newStart += 1;
  }
  const body = edits.slice(from, to);
  const oldCount = body.filter((edit) => edit.kind !== '+').length;
  const newCount = body.filter((edit) => edit.kind !== '-').length;
  const range = (start: number, count: number): string => `${count === 0 ? start - 1 : start},${count}`;
  const lines = body.map((edit) => `${edit.kind}${edit.text}\n`).join('');
  return `@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@\n${lines}`;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Edits turning `a` into `b`, from a longest-common-subsequence table (deletions before additions). */
function diffLines(a: readonly string[], b: readonly string[]): Edit[] {
  if (a.length * b.length > MAX_TABLE_CELLS) {
    return [
      ...a.map((text) => ({ kind: '-' as const, text })),
      ...b.map((text) => ({ kind: '+' as const, text })),
    ];
  }
  const common = lcsLengths(a, b);
  const edits: Edit[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const left = a[i];
    const right = b[j];
    if (left !== undefined && left === right) {
      edits.push({ kind: ' ', text: left });
      i += 1;
      j += 1;
    } else if (left !== undefined && (right === undefined || common(i + 1, j) >= common(i, j + 1))) {
      edits.push({ kind: '-', text: left });
      i += 1;
    } else {
      edits.push({ kind: '+', text: right ?? '' });
      j += 1;
    }
  }
  return edits;
}

/** `common(i, j)` = length of the longest common subsequence of `a[i:]` and `b[j:]`. */
function lcsLengths(a: readonly string[], b: readonly string[]): (i: number, j: number) => number {
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  const at = (i: number, j: number): number => table[i * width + j] ?? 0;
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      table[i * width + j] = a[i] === b[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
    }
  }
  return at;
}
