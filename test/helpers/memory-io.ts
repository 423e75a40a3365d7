import type { CliIo } from '../../src/cli/cli-io.js';

/** A `CliIo` that keeps what the CLI writes, for in-process CLI tests. */
export type MemoryIo = CliIo & { readonly out: () => string; readonly err: () => string };

/** Makes a {@link MemoryIo} rooted at `cwd` with the given environment. */
export function memoryIo(cwd: string, env: Record<string, string> = {}): MemoryIo {
  let out = '';
  let err = '';
  return {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env,
    cwd,
    out: () => out,
    err: () => err,
  };
}
