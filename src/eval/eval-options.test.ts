import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContextError } from '../core/errors.js';
import { EstimatingTokenCounter } from '../tokens/estimating-token-counter.js';
import { agentPresetStrategy } from './agent-preset-strategy.js';
import { chatPresetStrategy } from './chat-preset-strategy.js';
import { compactionStrategy } from './compaction-strategy.js';
import { EVAL_PRICES } from './eval-prices.js';
import { evalCells } from './eval-tiers.js';
import { generateScenario } from './generate-scenario.js';
import { governorStrategy } from './governor-strategy.js';
import { runEval } from './run-eval.js';
import { runScenario } from './run-scenario.js';
import { ScriptedAgentModel } from './scripted-agent-model.js';

/** Calls `run` with an options object carrying one misspelt key and returns the error. */
async function refusal(run: () => unknown): Promise<ContextError> {
  try {
    await run();
  } catch (error) {
    if (ContextError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an INVALID_OPTIONS error');
}

const cell = { family: 'rules-user', turns: 20, seed: 1, budgetTokens: 6000 } as const;

describe("the eval's public options are checked", () => {
  it.each<[string, () => unknown, string]>([
    ['runEval', () => runEval({ strategies: [], cells: [], summariser: [] } as never), 'summariser'],
    [
      'runScenario',
      () =>
        runScenario({
          scenario: generateScenario({ family: 'rules-user', turns: 20, seed: 1 }),
          strategy: governorStrategy(),
          budgetTokens: 6000,
          agent: new ScriptedAgentModel(),
          tokenCounter: new EstimatingTokenCounter(),
          prices: EVAL_PRICES,
          budget: 1,
        } as never),
      'budget',
    ],
    ['generateScenario', () => generateScenario({ ...cell, turn: 3 } as never), 'budgetTokens'],
    ['evalCells', () => evalCells({ families: [], turnCounts: [], budgets: [], seed: [1] } as never), 'seed'],
    ['governorStrategy', () => governorStrategy({ goverrnor: {} } as never), 'goverrnor'],
    ['chatPresetStrategy', () => chatPresetStrategy({ isDefualt: true } as never), 'isDefualt'],
    [
      'agentPresetStrategy',
      () => agentPresetStrategy({ workspace: '.', scratchDir: '.', scratch: '.' } as never),
      'scratch',
    ],
    ['compactionStrategy', () => compactionStrategy({ trigger: 0.5 } as never), 'trigger'],
    [
      'compactionStrategy compaction',
      () => compactionStrategy({ compaction: { summarizer: {} } } as never),
      'summarizer',
    ],
  ])('%s refuses an unknown key and names it', async (_, run, key) => {
    const error = await refusal(run);
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toContain(key);
  });

  it('accepts the documented options', async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), 'ctxloom-eval-options-'));
    try {
      expect(() => governorStrategy({ id: 'g', label: 'G', governor: {}, isDefault: false })).not.toThrow();
      expect(() => agentPresetStrategy({ workspace: scratch, scratchDir: scratch, agent: {} })).not.toThrow();
      expect(
        compactionStrategy({ compaction: { trigger: 0.9, target: 0.4, background: { startAt: 0.6 } } }).id,
      ).toBe('ctxloom-compaction');
      expect(evalCells({ families: ['rules-user'], turnCounts: [20], budgets: [6000], seeds: [1] })).toEqual([
        cell,
      ]);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
