/**
 * What the one-process-per-case benchmarks share: the `--sizes` list and running one case in its own
 * Node process (so its first call is really cold), reading the JSON line it prints; and, inside a
 * case process, the garbage collector, the heap-sampling clock of the cold call, the warm timing and
 * keeping the case's state alive. Importing this file runs nothing (the bench files import it; a case
 * file runs its case when imported).
 */
import { spawn } from 'node:child_process';

/** Turns a warm case runs before its warm figures are taken (bounded by WARM_TIME_LIMIT_MS). */
export const WARMUP_TURNS = 30;
/** How long the warm calls of one figure may take before `timed` stops early. */
const WARM_TIME_LIMIT_MS = 8_000;

/** A full garbage collection (`node --expose-gc`, as `runCaseProcess` starts a case), or nothing. */
export const gc: () => void = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/**
 * The injected clock (`now`) of a case's builder or governor, which calls it at every stage boundary:
 * while `cold` runs a call it also samples the heap, to report the cold call's peak. Off otherwise:
 * `process.memoryUsage()` costs far more than a warm turn, so it would inflate the warm figures.
 */
export class SampledClock {
  #peak = 0;
  #sampling = false;

  readonly now = (): number => {
    if (this.#sampling) this.#sample();
    return performance.now();
  };

  /**
   * Runs the cold call with the heap sampled from `fromBytes` (the heap before it); its result, its
   * duration and the highest heap seen above `fromBytes` (garbage included).
   */
  async cold<TValue>(
    fromBytes: number,
    call: () => Promise<TValue>,
  ): Promise<{ readonly value: TValue; readonly ms: number; readonly peakBytes: number }> {
    this.#peak = fromBytes;
    this.#sampling = true;
    try {
      const start = performance.now();
      const value = await call();
      const ms = performance.now() - start;
      this.#sample();
      return { value, ms, peakBytes: this.#peak - fromBytes };
    } finally {
      this.#sampling = false;
    }
  }

  #sample(): void {
    const used = process.memoryUsage().heapUsed;
    if (used > this.#peak) this.#peak = used;
  }
}

/**
 * The median of up to `runs` calls of `run` (given the call's index, returning its ms), fewer when
 * they take longer than WARM_TIME_LIMIT_MS in all.
 */
export async function timed(runs: number, run: (index: number) => Promise<number>): Promise<number> {
  const times: number[] = [];
  const started = performance.now();
  for (let index = 0; index < runs; index += 1) {
    times.push(await run(index));
    if (performance.now() - started > WARM_TIME_LIMIT_MS) break;
  }
  times.sort((left, right) => left - right);
  return times[Math.floor(times.length / 2)] ?? 0;
}

const alive: unknown[] = [];
/** Keeps a case's state (builder, caches) reachable until its retained figure is taken. */
export function keepAlive(value: unknown): void {
  alive.push(value);
}

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
