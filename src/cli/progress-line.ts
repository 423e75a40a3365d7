import type { CliIo } from './cli-io.js';

/** Reports progress on stderr; `done()` ends a live line. */
export type ProgressLine = ((line: string) => void) & { readonly done: () => void };

/**
 * Progress on stderr, never on stdout: on a terminal one live line that each report overwrites
 * (`\r` and erase-line), elsewhere (a log file, a pipe) one plain line per report.
 */
export function progressLine(io: CliIo): ProgressLine {
  const live = io.stderr.isTTY === true;
  let pending = false;
  const report = (line: string): void => {
    if (!live) {
      io.stderr.write(`${line}\n`);
      return;
    }
    const width = Math.max(20, (io.stderr.columns ?? 80) - 1);
    io.stderr.write(`\r\u001b[K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
    pending = true;
  };
  const done = (): void => {
    if (pending) io.stderr.write('\n');
    pending = false;
  };
  return Object.assign(report, { done });
}
