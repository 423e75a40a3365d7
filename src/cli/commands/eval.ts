import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resolveAgentSettings } from '../../config/index.js';
import {
  agentPresetStrategy,
  chatPresetStrategy,
  checkEvalInvariants,
  compactionStrategy,
  type EvalResult,
  type EvalStrategy,
  type EvalTier,
  evalTierCells,
  governorStrategy,
  renderEvalHtml,
  renderEvalMarkdown,
  runEval,
  summarizeEval,
} from '../../eval/index.js';
import { ContextError, createTokenCounter, loadConfig, OpenAICompatibleChatModel } from '../../index.js';
import { agentOptionsFromSettings } from '../../presets/index.js';
import { withTokenCache } from '../../tokens/index.js';
import type { CliCommand, CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import { parseCliArgs } from '../parse-cli-args.js';
import { progressLine } from '../progress-line.js';
import { numberFlag, stringFlag } from './session-store-flags.js';

const USAGE = `Usage: ctxloom eval [--tier small|full] [--seed N] [--out DIR] [--workspace DIR] [--json]

Runs the offline context-quality eval: seeded sessions of seven scenario families (rules in the system
prompt, a user turn or a tool result; facts and their updates; identifiers in long tool results;
parallel tool calls; a rewind) through ctxloom's strategies (forChat with maxInputTokens, the ContextGovernor,
forAgent, and compaction over an append-only session with each scripted summariser: faithful,
lossy, adversarial, failing, slow) at several budgets. A scripted agent answers at probe turns; the recorded requests are
graded (rules visible and violations, the latest user request, identifiers, answers and stale
values, provider validity, tokens, prompt-cache hit rate and input cost under Anthropic's and
OpenAI's rules). No network. The peers (AI SDK, LangChain, Mastra) run in the repository's
'npm run eval'.

Exit code 0 when the default-configuration invariants held (system rules visible at every probe,
the latest user request in every request, every request valid for both providers; with compaction,
the user's rules visible and no forbidden call whatever the summariser wrote, lineage valid and
coverage exact in every request, history unchanged after a failed summary), 1 otherwise.

Options:
  --tier small|full   small: 40-turn sessions at 6,000 and 16,000 tokens (default); full: 40 turns
                      at up to 64,000 tokens, 200 turns, and two 1,000-turn sessions (minutes)
  --seed N            the scenario seed (default 1)
  --out DIR           write eval.md and eval.html (self-contained, quality-against-cost chart) there
  --workspace DIR     run forAgent on this workspace with its ctxloom.yaml settings and token counter
                      (read only; offloads are dry runs)
  --json              print the runs, the summary and the invariant failures as JSON
Set CTXLOOM_EVAL_MODEL_URL and CTXLOOM_EVAL_MODEL (and CTXLOOM_EVAL_MODEL_API_KEY) to also run the
small tier with that OpenAI-compatible model as the agent.
`;

const EVAL_FLAGS = {
  tier: { type: 'string' },
  seed: { type: 'string' },
  out: { type: 'string' },
  workspace: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const TIERS: readonly EvalTier[] = ['small', 'full'];

/** `ctxloom eval`: the offline context-quality eval of ctxloom's own strategies. */
export const evalCommand: CliCommand = {
  name: 'eval',
  summary: 'Grade ctxloom’s context strategies offline on seeded scenarios (quality, validity, cost)',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseCliArgs('eval', args, EVAL_FLAGS);
    const tier = stringFlag(values, 'tier') ?? 'small';
    if (!TIERS.some((known) => known === tier)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `--tier must be small or full, got '${tier}'.`,
      });
    }
    const cells = evalTierCells(tier === 'full' ? 'full' : 'small', numberFlag(values, 'seed') ?? 1);
    const scratch = await mkdtemp(path.join(tmpdir(), 'ctxloom-eval-'));
    try {
      const setup = await strategiesFor(stringFlag(values, 'workspace'), { io, scratch });
      const progress = progressLine(io);
      const onProgress = (event: { done: number; total: number; run: string }): void =>
        progress(`eval ${event.done}/${event.total} ${event.run}`);
      const result = await runEval({ ...setup, cells, onProgress });
      progress.done();
      const llm = await llmTier({ io, setup, onProgress });
      progress.done();
      await report(result, { io, out: stringFlag(values, 'out'), json: values['json'] === true, llm });
      return checkEvalInvariants(result.runs).length === 0 ? EXIT_CODES.ok : EXIT_CODES.unexpected;
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  },
};

type Setup = Pick<Parameters<typeof runEval>[0], 'strategies' | 'tokenCounter'>;

async function strategiesFor(
  workspace: string | undefined,
  run: { readonly io: CliIo; readonly scratch: string },
): Promise<Setup> {
  const chat = chatPresetStrategy();
  const governor = governorStrategy();
  const compaction = compactionStrategy();
  if (workspace === undefined) {
    const agentWorkspace = path.join(run.scratch, 'workspace');
    await mkdir(agentWorkspace, { recursive: true });
    return {
      strategies: [
        chat,
        governor,
        agentPresetStrategy({ workspace: agentWorkspace, scratchDir: run.scratch }),
        compaction,
      ],
    };
  }
  const dir = path.resolve(run.io.cwd, workspace);
  const { config } = await loadConfig({ dir, optional: true });
  const settings = resolveAgentSettings(config, dir);
  const counter = await createTokenCounter({
    config: config.tokenCounter,
    workspace: dir,
    ...(settings.model === undefined ? {} : { model: settings.model }),
  });
  const agent: EvalStrategy = agentPresetStrategy({
    workspace: dir,
    scratchDir: run.scratch,
    agent: agentOptionsFromSettings(settings),
    label: `ctxloom forAgent (${path.basename(dir)}/ctxloom.yaml)`,
  });
  return { strategies: [chat, governor, agent, compaction], tokenCounter: withTokenCache(counter) };
}

/** The small tier with an OpenAI-compatible model as the agent, when the environment names one. */
async function llmTier(run: {
  readonly io: CliIo;
  readonly setup: Setup;
  readonly onProgress: (event: { done: number; total: number; run: string }) => void;
}): Promise<EvalResult | undefined> {
  const baseURL = run.io.env['CTXLOOM_EVAL_MODEL_URL'];
  const model = run.io.env['CTXLOOM_EVAL_MODEL'];
  if (baseURL === undefined || model === undefined) {
    run.io.stderr.write('LLM tier skipped: set CTXLOOM_EVAL_MODEL_URL and CTXLOOM_EVAL_MODEL to run it.\n');
    return undefined;
  }
  const apiKey = run.io.env['CTXLOOM_EVAL_MODEL_API_KEY'];
  const agent = new OpenAICompatibleChatModel({
    baseURL,
    model,
    ...(apiKey === undefined ? {} : { apiKey }),
  });
  return runEval({ ...run.setup, cells: evalTierCells('small'), agent, onProgress: run.onProgress });
}

async function report(
  result: EvalResult,
  run: {
    readonly io: CliIo;
    readonly out: string | undefined;
    readonly json: boolean;
    readonly llm: EvalResult | undefined;
  },
): Promise<void> {
  if (run.out !== undefined) {
    const dir = path.resolve(run.io.cwd, run.out);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'eval.md'), renderEvalMarkdown(result));
    await writeFile(path.join(dir, 'eval.html'), renderEvalHtml(result));
    if (run.llm !== undefined) {
      await writeFile(path.join(dir, 'eval-llm.md'), renderEvalMarkdown(run.llm));
      await writeFile(path.join(dir, 'eval-llm.html'), renderEvalHtml(run.llm));
    }
    run.io.stderr.write(`wrote ${path.join(dir, 'eval.md')} and eval.html\n`);
  }
  if (run.json) {
    const json = (of: EvalResult) => ({
      summary: summarizeEval(of.runs),
      invariantFailures: checkEvalInvariants(of.runs),
      runs: of.runs,
      prices: of.prices,
    });
    run.io.stdout.write(
      `${JSON.stringify({ ...json(result), ...(run.llm === undefined ? {} : { llm: json(run.llm) }) }, null, 2)}\n`,
    );
    return;
  }
  run.io.stdout.write(renderEvalMarkdown(result));
  if (run.llm !== undefined) run.io.stdout.write(`\n${renderEvalMarkdown(run.llm)}`);
}
