/**
 * The context-build benchmark: `ContextBuilder.forAgent` beside Mastra's TokenLimiterProcessor,
 * LangChain's trimMessages (exact and approximate counter), the AI SDK's pruneMessages, a naive loop
 * and the floor (a newest-first walk with exact counting and an early exit), on one generated agent
 * session with large tool results and Chinese text, at 1k / 10k / 100k messages, with a 100,000-token
 * budget and exact o200k counting. Each case runs in its own process (`context-build-case.ts`), so
 * the cold figure is a first call. Prints the figures, the growth exponent from 10k to 100k and the
 * ratios against the performance goals. `npm run bench -- --sizes 1k,10k` limits the sizes.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSizes, type FailedCase, findFigures, runCaseProcess, WARMUP_TURNS } from './case-process.js';
import type { CaseFigures } from './context-build-case.js';

const CASES = [
  'ctxloom',
  'ctxloom-store',
  'ctxloom-sqlite',
  'ctxloom-workspace',
  'floor',
  'mastra',
  'langchain-exact',
  'langchain-approx',
  'ai-sdk-prune',
  'naive',
] as const;
const CASE_TIMEOUT_MS = 150_000;
/** trimMessages recounts growing lists (1k → 10k takes ≈ 150× longer): above this it would take hours. */
const LANGCHAIN_MAX_MESSAGES = 10_000;
const caseFile = join(dirname(fileURLToPath(import.meta.url)), 'context-build-case.ts');

type Result = CaseFigures | FailedCase;

export async function run(): Promise<void> {
  const sizes = benchSizes();
  process.stdout.write(
    `forAgent vs others: exact o200k counting, budget 100,000 tokens, one process per case, node ${process.version} ` +
      `(Mastra declares Node >= 22.13 and runs here on this Node); ms are one cold call, then, after a 2 s pause, ${WARMUP_TURNS} warm-up turns and a full GC, medians of up to 21 ` +
      'warm calls (1 when the cold call took over 5 s; no warm-up then); a turn appends one message to the history array; memory is heap over the raw history. LangChain runs up to ' +
      `${LANGCHAIN_MAX_MESSAGES / 1000}k messages (trimMessages is quadratic here). The machine may be shared: read the ratios.\n`,
  );
  const results: Result[] = [];
  for (const size of sizes) {
    for (const name of CASES) {
      const result =
        name.startsWith('langchain') && size > LANGCHAIN_MAX_MESSAGES
          ? { name, messages: size, failed: 'skipped (quadratic)' }
          : await runCase(name, size);
      results.push(result);
      process.stdout.write(
        `  ${name} @ ${size}: ${'failed' in result ? result.failed : `${result.coldMs.toFixed(1)} ms cold`}\n`,
      );
    }
  }
  printTable(results, sizes);
  printGoals(results, sizes);
}

function runCase(name: string, size: number): Promise<Result> {
  return runCaseProcess<CaseFigures>({ caseFile, name, size, timeoutMs: CASE_TIMEOUT_MS });
}

function ms(value: number | undefined): string {
  if (value === undefined) return '—';
  return value < 1 ? value.toFixed(3) : value < 100 ? value.toFixed(1) : value.toFixed(0);
}

function mb(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)}`;
}

function printTable(results: readonly Result[], sizes: readonly number[]): void {
  const head = sizes.map((size) => `${size / 1000}k cold / +1 / same (ms)`.padStart(30)).join('');
  process.stdout.write(`\n${'case'.padEnd(18)}${head}   peak / retained MB @ ${sizes.at(-1)}   kept\n`);
  for (const name of CASES) {
    const cells = sizes.map((size) => {
      const figures = findFigures(results, name, size);
      if (figures === undefined) {
        const failed = results.find((item) => item.name === name && item.messages === size);
        return (failed !== undefined && 'failed' in failed ? failed.failed.slice(0, 28) : '—').padStart(30);
      }
      return `${ms(figures.coldMs)} / ${ms(figures.plusOneMs)} / ${ms(figures.nothingNewMs)}`.padStart(30);
    });
    const last = findFigures(results, name, sizes.at(-1) ?? 0);
    const memory = last === undefined ? '—' : `${mb(last.peakBytes)} / ${mb(last.retainedBytes)}`;
    process.stdout.write(
      `${name.padEnd(18)}${cells.join('')}   ${memory.padStart(24)}   ${last?.kept ?? ''}\n`,
    );
  }
  const copied = sizes.map((size) => ms(findFigures(results, 'ctxloom', size)?.plusOneCopiedMs));
  process.stdout.write(
    `ctxloom +1 with the history as a new array every turn (one identity comparison per message): ${copied.join(' / ')} ms\n`,
  );
  const raw = findFigures(results, 'ctxloom', sizes.at(-1) ?? 0)?.rawHistoryBytes;
  if (raw !== undefined) process.stdout.write(`raw history @ ${sizes.at(-1)}: ${mb(raw)} MB of heap\n`);
  for (const name of CASES) {
    const note = results.find((item): item is CaseFigures => item.name === name && 'note' in item)?.note;
    if (note !== undefined) process.stdout.write(`  ${name}: ${note}\n`);
  }
}

function ratio(numerator: number | undefined, denominator: number | undefined): string {
  if (numerator === undefined || denominator === undefined || denominator === 0) return '—';
  const value = numerator / denominator;
  return `${value < 10 ? value.toFixed(2) : value.toFixed(0)}×`;
}

function exponent(small: number | undefined, large: number | undefined, factor: number): string {
  if (small === undefined || large === undefined || small <= 0 || large <= 0) return '—';
  return (Math.log(large / small) / Math.log(factor)).toFixed(2);
}

function printGoals(results: readonly Result[], sizes: readonly number[]): void {
  const at = (name: string, size: number) => findFigures(results, name, size);
  const lines: string[] = ['\ngoals (ratios from this run):'];
  for (const size of sizes) {
    const ctx = at('ctxloom', size);
    const floor = at('floor', size);
    const mastra = at('mastra', size);
    lines.push(
      `  ${size / 1000}k: cold ${ratio(ctx?.coldMs, floor?.coldMs)} the floor (goal ≤ 1.5× at 10k); ` +
        `Mastra / ctxloom cold ${ratio(mastra?.coldMs, ctx?.coldMs)} (goal ≥ 8× at 10k, ≥ 40× at 100k); ` +
        `+1 ${ratio(ctx?.plusOneMs, floor?.plusOneMs)} the floor's (goal ≤ 2×); ` +
        `nothing new ${ratio(ctx?.nothingNewMs, floor?.nothingNewMs)} the floor's (goal ≤ 2×)`,
    );
  }
  const small = sizes.find((size) => size === 10_000);
  const large = sizes.find((size) => size === 100_000);
  if (small !== undefined && large !== undefined) {
    for (const name of CASES) {
      const a = at(name, small);
      const b = at(name, large);
      lines.push(
        `  growth exponent 10k→100k, ${name}: cold ${exponent(a?.coldMs, b?.coldMs, 10)}, +1 ${exponent(a?.plusOneMs, b?.plusOneMs, 10)}` +
          (name === 'ctxloom'
            ? ` (goal for +1 ≤ 0.2); +1 with a new array every turn ${exponent(a?.plusOneCopiedMs, b?.plusOneCopiedMs, 10)}`
            : ''),
      );
    }
    const ctx = at('ctxloom', large);
    if (ctx !== undefined)
      lines.push(
        `  memory @ 100k over the raw history: peak +${mb(ctx.peakBytes)} MB (goal ≤ +64), retained +${mb(ctx.retainedBytes)} MB (goal ≤ +32)`,
      );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
