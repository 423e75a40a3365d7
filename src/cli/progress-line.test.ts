import { describe, expect, it } from 'vitest';
import type { CliIo } from './cli-io.js';
import { progressLine } from './progress-line.js';

function io(isTTY: boolean): CliIo & { readonly err: () => string } {
  let err = '';
  return {
    stdout: { write: () => true },
    stderr: { write: (text: string) => (err += text), isTTY, columns: 30 },
    env: {},
    cwd: '.',
    err: () => err,
  };
}

describe('progressLine', () => {
  it('overwrites one live line on a terminal and ends it with a newline', () => {
    const terminal = io(true);
    const progress = progressLine(terminal);
    progress('[1/2] cli:a');
    progress('[2/2] a session key far too long for thirty columns');
    progress.done();
    progress.done();
    expect(terminal.err()).toBe('\r\u001b[K[1/2] cli:a\r\u001b[K[2/2] a session key far too …\n');
  });

  it('writes plain lines elsewhere (a log, a pipe)', () => {
    const log = io(false);
    const progress = progressLine(log);
    progress('[1/2] cli:a');
    progress('[2/2] cli:b');
    progress.done();
    expect(log.err()).toBe('[1/2] cli:a\n[2/2] cli:b\n');
  });
});
