/**
 * Compares the warm turns of two (or more) checkouts of ctxloom in ONE process, turn after turn,
 * alternating which goes first, so both see the same machine at the same moment. On a shared
 * machine, where one process can run the same code twice as slowly as another, this tells a 20%
 * change apart from the noise; one `npm run bench` run cannot.
 *
 *   git worktree add /tmp/before <rev> && ln -s "$PWD/node_modules" /tmp/before/node_modules
 *   node --expose-gc --import tsx bench/paired-turns.ts --messages 10000 --turns 120 /tmp/before .
 *
 * Each checkout gets a forAgent builder like the context-build benchmark's `ctxloom` case (the
 * generated corpus, exact o200k counts, a 100,000-token block limit, an empty workspace). After
 * the cold build a full GC runs (`--expose-gc`), so the turns do not pay for the cold build's
 * garbage. `--same` times builds with nothing new instead of +1 turns; `--settle` pauses 2 s after the
 * cold builds, so what they wrote in the workspace is as settled as in a workspace in use; `--example`
 * gives each checkout a copy of the example workspace and forAgent's defaults (files, skills, memory
 * and Recent History), like the benchmark's `ctxloom-workspace` case without its 1,000-entry
 * history.jsonl. A checkout
 * given as `dist:<path>` runs its build (`dist/`) instead of its sources through tsx. Prints each
 * checkout's median and quartile over the turns after the first 20, and the newest-first floor's
 * median. Not a test.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { assistant, textOf, user } from '../src/core/index.js';
import { type Message, TiktokenTokenCounter } from '../src/index.js';
import { SETTLE_MS } from '../src/workspace/file-stamp.js';
import { EXAMPLE_WORKSPACE } from '../test/helpers/example-workspace.js';
import { BUDGET_TOKENS, CORPUS_TOOLS, loadAgentCorpus } from './agent-corpus.js';
import { gc } from './case-process.js';
import { newestFirstFloor } from './newest-first-floor.js';

/** Turns left out of the figures (the first warm turns). */
const SKIPPED_TURNS = 20;

type Contender = { readonly name: string; readonly build: () => Promise<unknown>; readonly times: number[] };

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    messages: { type: 'string', default: '10000' },
    turns: { type: 'string', default: '120' },
    same: { type: 'boolean', default: false },
    settle: { type: 'boolean', default: false },
    example: { type: 'boolean', default: false },
  },
});
const history: Message[] = [...(await loadAgentCorpus(Number(values.messages)))];
const kept = history.slice(0, -1);
const input = () => ({
  history: kept,
  current: textOf((history.at(-1) as Message).content),
  tools: CORPUS_TOOLS,
  sessionKey: 'paired',
});
const workspaces: string[] = [];
const contenders: Contender[] = [];
for (const root of positionals.length === 0 ? ['.'] : positionals) {
  // Each checkout's own ctxloom: its builders, counters and caches share nothing with the others'.
  const ctxloom = await import(
    root.startsWith('dist:')
      ? path.resolve(root.slice(5), 'dist/index.js')
      : path.resolve(root, 'src/index.ts')
  );
  const folder = await mkdtemp(path.join(tmpdir(), 'ctxloom-paired-'));
  workspaces.push(folder);
  const workspace = values.example ? path.join(folder, 'agent') : folder;
  if (values.example) await cp(EXAMPLE_WORKSPACE, workspace, { recursive: true });
  const builder = ctxloom.ContextBuilder.forAgent({
    workspace,
    channel: 'cli',
    tokenCounter: await ctxloom.TiktokenTokenCounter.create({ encoding: 'o200k_base' }),
    contextWindowTokens: 128_000,
    governor: { blockLimit: BUDGET_TOKENS },
    ...(values.example ? {} : { skills: { builtinDir: null }, recentHistory: false }),
  });
  contenders.push({ name: root, build: () => builder.build(input()), times: [] });
}
const floor = newestFirstFloor(await TiktokenTokenCounter.create({ encoding: 'o200k_base' }), BUDGET_TOKENS);
const floorTimes: number[] = [];
try {
  for (const contender of contenders) await contender.build();
  floor(history);
  // What the cold builds wrote in the workspaces (the offload folder) settles, as in one in use.
  if (values.settle) await sleep(SETTLE_MS + 100);
  gc();
  for (let turn = 0; turn < Number(values.turns); turn += 1) {
    if (!values.same) {
      kept.push(history.at(-1) as Message);
      history.push(turn % 2 === 0 ? assistant(`Answer ${turn}: 已完成.`) : user(`Follow-up ${turn}?`));
    }
    for (const contender of turn % 2 === 0 ? contenders : [...contenders].reverse())
      contender.times.push(await timed(contender.build));
    floorTimes.push(await timed(async () => floor(history)));
  }
} finally {
  for (const workspace of workspaces) await rm(workspace, { recursive: true, force: true });
}
const floorMedian = quantile(floorTimes, 0.5);
for (const { name, times } of contenders) {
  const median = quantile(times, 0.5);
  process.stdout.write(
    `${name}: ${values.same ? 'nothing new' : '+1'} median ${median.toFixed(3)} ms, ` +
      `quartile ${quantile(times, 0.25).toFixed(3)} ms, ${(median / floorMedian).toFixed(1)}× the floor\n`,
  );
}
process.stdout.write(`floor: median ${floorMedian.toFixed(4)} ms\n`);

async function timed(call: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await call();
  return performance.now() - start;
}

/** The `fraction` quantile of the times after the skipped first turns. */
function quantile(times: readonly number[], fraction: number): number {
  const sorted = times.slice(SKIPPED_TURNS).sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length * fraction)] ?? Number.NaN;
}
