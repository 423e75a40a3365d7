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
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSizes, type FailedCase, findFigures, runCaseProcess } from './case-process.js';
import type { StepCaseFigures } from './prepare-step-case.js';

const CASES = ['prepare-step', 'prepare-step-v7', 'prune'] as const;
const CASE_TIMEOUT_MS = 120_000;
const caseFile = join(dirname(fileURLToPath(import.meta.url)), 'prepare-step-case.ts');

type Result = StepCaseFigures | FailedCase;

export async function run(): Promise<void> {
  const sizes = benchSizes();
  process.stdout.write(
    `createPrepareStep (governor, block limit 100,000 tokens, estimating counter, offload to a temp workspace) ` +
      `vs AI SDK pruneMessages, one process per case, node ${process.version}; cold is step 1, +1 and same are ` +
      'medians of up to 5 steps after 10 warm-up steps; memory is heap over the raw history. The machine may be shared: read the ratios.\n',
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
      const ours = findFigures(results, name, size);
      const peer = findFigures(results, 'prune', size);
      process.stdout.write(
        `  ${size}: ${ratio(ours?.coldMs, peer?.coldMs)}, ${ratio(ours?.plusOneMs, peer?.plusOneMs)}, ` +
          `${ratio(ours?.sameMs, peer?.sameMs)}; cold / +1: ${ratio(ours?.coldMs, ours?.plusOneMs)}\n`,
      );
    }
    const small = findFigures(results, name, 10_000);
    const large = findFigures(results, name, 100_000);
    if (small !== undefined && large !== undefined) {
      process.stdout.write(
        `  growth exponent 10k→100k: +1 ${exponent(small.plusOneMs, large.plusOneMs)}, ` +
          `same ${exponent(small.sameMs, large.sameMs)}; raw history @ 100k: ${mb(large.rawHistoryBytes)} MB\n`,
      );
    }
  }
}

function runCase(name: string, size: number): Promise<Result> {
  return runCaseProcess<StepCaseFigures>({ caseFile, name, size, timeoutMs: CASE_TIMEOUT_MS });
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
