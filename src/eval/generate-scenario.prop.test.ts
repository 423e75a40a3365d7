import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { EVAL_FAMILIES } from './eval-scenario.js';
import { generateScenario, historyBefore } from './generate-scenario.js';
import { createSeededRandom } from './seeded-random.js';

const family = fc.constantFrom(...EVAL_FAMILIES);
const seed = fc.integer({ min: 0, max: 10_000 });

describe('generateScenario', () => {
  test.prop([family, seed], { numRuns: 30 })('gives the same scenario for the same seed', (name, value) => {
    const options = { family: name, turns: 24, seed: value };
    expect(generateScenario(options)).toEqual(generateScenario(options));
  });

  test.prop([family, seed], { numRuns: 30 })(
    'writes a legal history with one probe per turn, each after what it asks about',
    (name, value) => {
      const scenario = generateScenario({ family: name, turns: 30, seed: value });
      expect(validateToolCallIntegrity(historyBefore(scenario, scenario.turns.length))).toEqual([]);
      const turns = scenario.probes.map((probe) => probe.turn);
      expect(new Set(turns).size).toBe(turns.length);
      for (const probe of scenario.probes) {
        if (probe.type === 'question') expect(probe.value).not.toBe('');
        else
          expect(scenario.rules.some((rule) => rule.id === probe.ruleId && rule.turn < probe.turn)).toBe(
            true,
          );
        expect(scenario.turns[probe.turn]?.steps).toEqual([[]]);
      }
    },
  );

  it('puts system rules in the system prompt and the others in the session', () => {
    const pinned = generateScenario({ family: 'rules-system', turns: 20, seed: 1 });
    for (const rule of pinned.rules) expect(pinned.systemPrompt).toContain(rule.text);
    const told = generateScenario({ family: 'rules-user', turns: 20, seed: 1 });
    for (const rule of told.rules) {
      expect(told.systemPrompt).not.toContain(rule.text);
      expect(told.turns[1]?.user.content).toContain(rule.text);
    }
  });

  it('asks about an updated fact with the new value and the superseded one', () => {
    const scenario = generateScenario({ family: 'facts-updates', turns: 40, seed: 3 });
    const updated = scenario.probes.filter(
      (probe) => probe.type === 'question' && probe.staleValues.length > 0,
    );
    expect(updated.length).toBeGreaterThan(0);
  });

  it('rejects a scenario too short to probe', () => {
    expect(() => generateScenario({ family: 'facts-updates', turns: 5, seed: 1 })).toThrow(
      /turns must be an integer ≥ 20, got 5/,
    );
  });
});

describe('createSeededRandom', () => {
  test.prop([seed])('repeats its sequence for a seed and stays in range', (value) => {
    const a = createSeededRandom(value);
    const b = createSeededRandom(value);
    for (let index = 0; index < 50; index += 1) {
      const next = a.next();
      expect(next).toBe(b.next());
      expect(next).toBeGreaterThanOrEqual(0);
      expect(next).toBeLessThan(1);
      expect(a.int(2, 5)).toBe(b.int(2, 5));
    }
  });

  test.prop([seed, fc.integer({ min: 24, max: 120 })], { numRuns: 20 })(
    'rewind: later history leaves out the turns gone back over, and later questions expect the value from before them',
    (value, turns) => {
      const scenario = generateScenario({ family: 'rewind', turns, seed: value });
      const [rewind] = scenario.rewinds;
      if (rewind === undefined) throw new Error('no rewind');
      const gone = new Set(scenario.turns.slice(rewind.toTurn, rewind.turn).map((turn) => turn.user.id));
      const after = historyBefore(scenario, scenario.turns.length);
      expect(after.some((message) => gone.has(message.id))).toBe(false);
      expect(historyBefore(scenario, rewind.turn - 1).some((message) => gone.has(message.id))).toBe(true);
      expect(validateToolCallIntegrity(after)).toEqual([]);
      const before = scenario.probes.filter((probe) => probe.turn < rewind.turn);
      const later = scenario.probes.filter((probe) => probe.turn > rewind.turn);
      expect(before.length).toBeGreaterThan(0);
      expect(later.length).toBeGreaterThan(0);
      for (const probe of later) {
        if (probe.type !== 'question') throw new Error('a rewind probe is a question');
        expect(probe.kind).toBe('fact');
        expect(probe.staleValues).toHaveLength(1);
        expect(JSON.stringify(after)).toContain(probe.value);
        expect(JSON.stringify(after)).not.toContain(probe.staleValues[0]);
      }
    },
  );
});
