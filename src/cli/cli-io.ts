/** Where the CLI reads and writes; injected so the CLI is tested in-process. */
export type CliIo = {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean; readonly columns?: number };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean; readonly columns?: number };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdin?: AsyncIterable<string | Uint8Array>;
};

/** One `ctxloom` sub-command. */
export type CliCommand = {
  /** The word after `ctxloom`, e.g. `build`. */
  readonly name: string;
  /** One line for `ctxloom --help`. */
  readonly summary: string;
  /** The usage text for `ctxloom NAME --help`. */
  readonly usage: string;
  /** Runs the command with the arguments after its name; resolves to the exit code. */
  run(args: readonly string[], io: CliIo): Promise<number>;
};
