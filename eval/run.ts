/**
 * `npm run eval`: the context-quality eval of ctxloom's strategies and the peers' on the same seeded
 * scenarios. Writes eval.md and eval.html to --out (default eval-report/), prints the Markdown, and
 * exits 1 when a default-configuration invariant of ctxloom did not hold.
 *
 *   npm run eval -- [--tier small|full] [--seed N] [--out DIR] [--max-turns N]
 *
 * --max-turns N leaves out the tier's sessions longer than N turns (the full tier's 1,000-turn
 * sessions take most of its time on a small machine).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  agentPresetStrategy,
  chatPresetStrategy,
  checkEvalInvariants,
  compactionStrategy,
  evalTierCells,
  governorStrategy,
  renderDeferredToolsMarkdown,
  renderEvalHtml,
  renderEvalMarkdown,
  runDeferredToolsCheck,
  runEval,
} from '../src/eval/index.js';
import { OpenAICompatibleChatModel } from '../src/index.js';
import { peerStrategies } from './peer-strategies.js';

const { values } = parseArgs({
  options: {
    tier: { type: 'string' },
    seed: { type: 'string' },
    out: { type: 'string' },
    'max-turns': { type: 'string' },
  },
});
const tier = values.tier === 'full' ? 'full' : 'small';
const out = path.resolve(values.out ?? 'eval-report');
const scratch = await mkdtemp(path.join(tmpdir(), 'ctxloom-eval-'));
try {
  const workspace = path.join(scratch, 'workspace');
  await mkdir(workspace, { recursive: true });
  const strategies = [
    chatPresetStrategy(),
    governorStrategy(),
    agentPresetStrategy({ workspace, scratchDir: scratch }),
    compactionStrategy(),
    compactionStrategy({
      id: 'ctxloom-compaction-background',
      label: 'ctxloom compaction, background (from 60%, swapped at a later request)',
      compaction: { background: { startAt: 0.6 } },
      isDefault: false,
    }),
    ...peerStrategies(),
  ];
  const started = performance.now();
  const maxTurns = Number(values['max-turns'] ?? Number.POSITIVE_INFINITY);
  const cells = evalTierCells(tier, Number(values.seed ?? 1)).filter((cell) => cell.turns <= maxTurns);
  const result = await runEval({
    strategies,
    cells,
    onProgress: (event) =>
      process.stderr.write(
        `${event.done}/${event.total} ${event.run} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`,
      ),
  });
  // Deferred tools loaded before a compaction: one 40-turn session at the tier's two smaller budgets.
  const deferred = renderDeferredToolsMarkdown(
    await runDeferredToolsCheck({ strategies, seed: Number(values.seed ?? 1) }),
  );
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'eval.md'), `${renderEvalMarkdown(result)}\n${deferred}`);
  await writeFile(path.join(out, 'eval.html'), renderEvalHtml(result));
  await writeFile(path.join(out, 'eval.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${renderEvalMarkdown(result)}\n${deferred}`);
  process.stderr.write(
    `\n${tier} tier: ${result.runs.length} runs in ${((performance.now() - started) / 1000).toFixed(0)} s; wrote ${out}/eval.{md,html,json}\n`,
  );
  const url = process.env['CTXLOOM_EVAL_MODEL_URL'];
  const model = process.env['CTXLOOM_EVAL_MODEL'];
  if (url === undefined || model === undefined) {
    process.stderr.write('LLM tier skipped: set CTXLOOM_EVAL_MODEL_URL and CTXLOOM_EVAL_MODEL to run it.\n');
  } else {
    const apiKey = process.env['CTXLOOM_EVAL_MODEL_API_KEY'];
    const agent = new OpenAICompatibleChatModel({
      baseURL: url,
      model,
      ...(apiKey === undefined ? {} : { apiKey }),
    });
    const llm = await runEval({ strategies, cells: evalTierCells('small'), agent, summarisers: [agent] });
    await writeFile(path.join(out, 'eval-llm.md'), renderEvalMarkdown(llm));
    await writeFile(path.join(out, 'eval-llm.html'), renderEvalHtml(llm));
    process.stdout.write(`\n${renderEvalMarkdown(llm)}`);
  }
  process.exitCode = checkEvalInvariants(result.runs).length === 0 ? 0 : 1;
} finally {
  await rm(scratch, { recursive: true, force: true });
}
