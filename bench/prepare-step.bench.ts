/**
 * createPrepareStep over a ContextGovernor across the steps of one AI SDK tool loop (with the step
 * arguments of AI SDK 6, and of AI SDK 7), beside the AI SDK's own pruneMessages on the same messages: the generated agent corpus (large tool results,
 * Chinese text) converted to `ModelMessage`s, at 1k / 10k / 100k messages, a 100,000-token block
 * limit, offloading to a temporary workspace, the default (estimating) counter. Each step appends an
 * assistant tool call and its result. Figures: step 1 (cold, a fresh process), a +1 step (warm,
 * median), the same messages again, and heap peak / retained over the raw history. Each case runs in
 * its own process (`prepare-step-case.ts`). `npm run bench -- prepare-step --sizes 1k,10k` limits
 * the sizes. Prints ratios; asserts nothing about speed.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StepCaseFigures } from './prepare-step-case.js';

const CASES = ['prepare-step', 'prepare-step-v7', 'prune'] as const;
const CASE_TIMEOUT_MS = 120_000;
const caseFile = join(dirname(fileURLToPath(import.meta.url)), 'prepare-step-case.ts');

type Result = StepCaseFigures | { readonly name: string; readonly messages: number; readonly failed: string };

export async function run(): Promise<void> {
  const sizes = stepBenchSizes();
  process.stdout.write(
    `createPrepareStep (governor, block limit 100,000 tokens, estimating counter, offload to a temp workspace) ` +
      `vs AI SDK pruneMessages, one process per case, node ${process.version}; cold is step 1, +1 and same are ` +
      'medians of up to 5 steps; memory is heap over the raw history. The machine may be shared: read the ratios.\n',
  );
  const results: Result[] = [];
  for (const size of sizes) {
    for (const name of CASES) {
      const result = await runCase(name, size);
      results.push(result);
      process.stdout.write(
        `  ${name} @ ${size}: ${'failed' in result ? result.failed : `${ms(result.coldMs)} ms cold`}\n`,
      );
    }
  }
  process.stdout.write(
    `\n${'case'.padEnd(16)}${'messages'.padStart(9)}${'cold ms'.padStart(10)}${'+1 ms'.padStart(10)}` +
      `${'same ms'.padStart(10)}${'peak MB'.padStart(9)}${'kept MB'.padStart(9)}${'sent'.padStart(7)}\n`,
  );
  for (const result of results) {
    if ('failed' in result) {
      process.stdout.write(
        `${result.name.padEnd(16)}${String(result.messages).padStart(9)}  ${result.failed}\n`,
      );
      continue;
    }
    process.stdout.write(
      `${result.name.padEnd(16)}${String(result.messages).padStart(9)}${ms(result.coldMs).padStart(10)}` +
        `${ms(result.plusOneMs).padStart(10)}${ms(result.sameMs).padStart(10)}${mb(result.peakBytes).padStart(9)}` +
        `${mb(result.retainedBytes).padStart(9)}${String(result.sent).padStart(7)}\n`,
    );
  }
  for (const name of ['prepare-step', 'prepare-step-v7']) {
    process.stdout.write(`\nratios, ${name} / pruneMessages (cold, +1, same):\n`);
    for (const size of sizes) {
      const ours = find(results, name, size);
      const peer = find(results, 'prune', size);
      process.stdout.write(
        `  ${size}: ${ratio(ours?.coldMs, peer?.coldMs)}, ${ratio(ours?.plusOneMs, peer?.plusOneMs)}, ` +
          `${ratio(ours?.sameMs, peer?.sameMs)}; cold / +1: ${ratio(ours?.coldMs, ours?.plusOneMs)}\n`,
      );
    }
    const small = find(results, name, 10_000);
    const large = find(results, name, 100_000);
    if (small !== undefined && large !== undefined) {
      process.stdout.write(
        `  growth exponent 10k→100k: +1 ${exponent(small.plusOneMs, large.plusOneMs)}, ` +
          `same ${exponent(small.sameMs, large.sameMs)}; raw history @ 100k: ${mb(large.rawHistoryBytes)} MB\n`,
      );
    }
  }
}

/** The sizes of `--sizes` (bench/run.ts passes them in CTXLOOM_BENCH_SIZES). @default 1k,10k,100k */
function stepBenchSizes(): readonly number[] {
  const raw = process.env['CTXLOOM_BENCH_SIZES'] ?? '1k,10k,100k';
  return raw.split(',').map((item) => {
    const match = /^(\d+)(k?)$/i.exec(item.trim());
    if (match === null) throw new Error(`--sizes: "${item}" is not a size such as 1k or 5000`);
    return Number(match[1]) * (match[2] === '' ? 1 : 1000);
  });
}

function runCase(name: string, size: number): Promise<Result> {
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
    const timer = setTimeout(() => child.kill('SIGKILL'), CASE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as StepCaseFigures);
      else
        resolve({
          name,
          messages: size,
          failed:
            code === null
              ? `over ${CASE_TIMEOUT_MS / 1000} s, stopped`
              : `exit ${code}: ${err.trim().split('\n').at(-1) ?? ''}`,
        });
    });
  });
}

function find(results: readonly Result[], name: string, size: number): StepCaseFigures | undefined {
  const found = results.find((item) => item.name === name && item.messages === size);
  return found === undefined || 'failed' in found ? undefined : found;
}

function ms(value: number): string {
  return value < 1 ? value.toFixed(3) : value < 100 ? value.toFixed(1) : value.toFixed(0);
}

function mb(bytes: number): string {
  return (bytes / 1_048_576).toFixed(1);
}

function ratio(numerator: number | undefined, denominator: number | undefined): string {
  if (numerator === undefined || denominator === undefined || denominator === 0) return '—';
  const value = numerator / denominator;
  return `${value < 10 ? value.toFixed(2) : value.toFixed(0)}×`;
}

function exponent(small: number, large: number): string {
  return small <= 0 || large <= 0 ? '—' : (Math.log(large / small) / Math.log(10)).toFixed(2);
}
