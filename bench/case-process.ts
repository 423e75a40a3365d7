/**
 * What the one-process-per-case benchmarks share: the `--sizes` list and running one case in its own
 * Node process (so its first call is really cold), reading the JSON line it prints.
 */
import { spawn } from 'node:child_process';

/** A case that did not print its figures. */
export type FailedCase = { readonly name: string; readonly messages: number; readonly failed: string };

/** The sizes of `--sizes` (bench/run.ts passes them in CTXLOOM_BENCH_SIZES). @default 1k,10k,100k */
export function benchSizes(): readonly number[] {
  const raw = process.env['CTXLOOM_BENCH_SIZES'] ?? '1k,10k,100k';
  return raw.split(',').map((item) => {
    const match = /^(\d+)(k?)$/i.exec(item.trim());
    if (match === null) throw new Error(`--sizes: "${item}" is not a size such as 1k or 5000`);
    return Number(match[1]) * (match[2] === '' ? 1 : 1000);
  });
}

/** Runs `node --expose-gc --import tsx <caseFile> <name> <size>` and parses its last stdout line. */
export function runCaseProcess<TFigures>(options: {
  readonly caseFile: string;
  readonly name: string;
  readonly size: number;
  readonly timeoutMs: number;
}): Promise<TFigures | FailedCase> {
  const { caseFile, name, size, timeoutMs } = options;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', caseFile, name, String(size)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as TFigures);
      else
        resolve({
          name,
          messages: size,
          failed:
            code === null
              ? `over ${timeoutMs / 1000} s, stopped`
              : `exit ${code}: ${err.trim().split('\n').at(-1) ?? ''}`,
        });
    });
  });
}

/** The figures of case `name` at `size`, unless it failed. */
export function findFigures<TFigures extends { readonly name: string; readonly messages: number }>(
  results: readonly (TFigures | FailedCase)[],
  name: string,
  size: number,
): TFigures | undefined {
  const found = results.find((item) => item.name === name && item.messages === size);
  return found === undefined || 'failed' in found ? undefined : found;
}
