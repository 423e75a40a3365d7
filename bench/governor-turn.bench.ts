/**
 * ContextGovernor.prepareForModel across the turns of a session, as docs/openai.md and
 * docs/anthropic.md use it (one governor, one `compactedToolCallIds` set per run): the process's
 * first call, the first step of a new turn on a warm governor, and the second step of a turn, at 1k /
 * 10k / 100k messages of the generated agent corpus (a 100,000-token block limit, the estimating
 * counter). `kept`: the caller's messages are the same objects turn after turn (one array appended
 * to); `re-read`: new objects every step (the whole SDK history converted again), which no identity
 * cache can follow. Each case runs in its own process (`governor-turn-case.ts`);
 * `npm run bench -- governor-turn --sizes 1k,10k` limits the sizes. Asserts nothing about speed.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSizes, type FailedCase, runCaseProcess } from './case-process.js';
import type { GovernorTurnFigures } from './governor-turn-case.js';

const CASES = ['kept', 're-read'] as const;
const CASE_TIMEOUT_MS = 300_000;
const caseFile = join(dirname(fileURLToPath(import.meta.url)), 'governor-turn-case.ts');

export async function run(): Promise<void> {
  process.stdout.write(
    `ContextGovernor.prepareForModel, one governor, a compacted set per turn (block limit 100,000 tokens, estimating counter), ` +
      `one process per case, node ${process.version}; first step and +1 are medians of 21 turns after 10 warm-up turns, ms. ` +
      'The machine may be shared.\n\n',
  );
  process.stdout.write(
    `${'case'.padEnd(10)}${'messages'.padStart(9)}${'cold'.padStart(10)}${'first step'.padStart(12)}${'+1 step'.padStart(10)}${'sent'.padStart(7)}\n`,
  );
  for (const size of benchSizes()) {
    for (const name of CASES) {
      const result = await runCaseProcess<GovernorTurnFigures>({
        caseFile,
        name,
        size,
        timeoutMs: CASE_TIMEOUT_MS,
      });
      process.stdout.write(line(result, { name, size }));
    }
  }
}

function line(
  result: GovernorTurnFigures | FailedCase,
  at: { readonly name: string; readonly size: number },
): string {
  const head = `${at.name.padEnd(10)}${String(at.size).padStart(9)}`;
  if ('failed' in result) return `${head}  ${result.failed}\n`;
  return `${head}${ms(result.coldMs).padStart(10)}${ms(result.firstStepMs).padStart(12)}${ms(result.plusOneMs).padStart(10)}${String(result.sent).padStart(7)}\n`;
}

function ms(value: number): string {
  return value < 1 ? value.toFixed(3) : value < 100 ? value.toFixed(2) : value.toFixed(0);
}
