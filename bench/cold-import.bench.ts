/**
 * Cold import cost: `import { ContextBuilder } from 'ctxloom'` (the built package) beside the AI SDK's
 * `ai` and LangChain's `@langchain/core/messages`, each in a fresh Node process, interleaved, medians.
 * Prints milliseconds over a bare `node -e ''` start and the ratio to `ai`.
 *
 * Run after `npm run build`: `npm run bench -- import`.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 15;

const cases: Record<string, string> = {
  'bare node': '',
  ctxloom: `import { ContextBuilder } from ${JSON.stringify(pathToFileURL(join(root, 'dist/index.js')).href)}; void ContextBuilder;`,
  ai: `import { generateText } from 'ai'; void generateText;`,
  '@langchain/core': `import { trimMessages } from '@langchain/core/messages'; void trimMessages;`,
};

/** Wall time of one fresh process that runs `source` as an ES module, in milliseconds. */
function timeProcess(source: string): number {
  const started = process.hrtime.bigint();
  execFileSync(process.execPath, ['--input-type=module', '-e', source], { cwd: root, stdio: 'ignore' });
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export async function run(): Promise<void> {
  const samples = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]));
  for (let round = 0; round < RUNS; round += 1) {
    for (const [name, source] of Object.entries(cases)) samples.get(name)?.push(timeProcess(source));
  }
  const bare = median(samples.get('bare node') ?? []);
  const over = (name: string): number => median(samples.get(name) ?? []) - bare;
  process.stdout.write(
    `cold import, ${RUNS} fresh processes each, median ms over bare node (${bare.toFixed(1)} ms)\n`,
  );
  for (const name of Object.keys(cases).filter((name) => name !== 'bare node')) {
    process.stdout.write(
      `${name.padEnd(16)} ${over(name).toFixed(1).padStart(7)} ms   ×${(over(name) / over('ai')).toFixed(2)} of ai\n`,
    );
  }
}
