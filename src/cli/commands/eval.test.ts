import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import type { EvalInvariantFailure, EvalSummaryRow } from '../../eval/index.js';
import { main } from '../main.js';

describe('ctxloom eval', () => {
  it('runs the small tier, writes the reports and holds the default-configuration invariants', async () => {
    const out = await mkdtemp(path.join(tmpdir(), 'ctxloom-eval-test-'));
    try {
      const io = memoryIo(out, { NO_COLOR: '1' });
      const code = await main(['eval', '--json', '--out', out], io);
      const report = JSON.parse(io.out()) as {
        readonly summary: readonly EvalSummaryRow[];
        readonly invariantFailures: readonly EvalInvariantFailure[];
      };
      expect(report.invariantFailures).toEqual([]);
      expect(code).toBe(0);
      const defaults = report.summary.filter((row) => row.isDefault);
      expect(defaults.map((row) => `${row.strategyId} ${row.summariserId}`)).toEqual([
        'ctxloom-governor none',
        'ctxloom-for-agent none',
        ...['faithful', 'lossy', 'adversarial', 'failing', 'slow'].map(
          (kind) => `ctxloom-compaction scripted:${kind}`,
        ),
      ]);
      for (const row of defaults) {
        expect(row).toMatchObject({ systemRuleVisibility: 1, latestRequest: 1, providerValidity: 1 });
        expect(row.anthropicCostUsd).toBeGreaterThan(0);
        expect(row.anthropicCostUsd).toBeLessThan(row.tokensSent * (3 / 1e6));
      }
      // Rules given in a user turn fall out of a trimmed window; compaction pins them.
      const trimming = defaults.filter((row) => row.summariserId === 'none');
      expect(trimming.every((row) => (row.ruleVisibility ?? 1) < 1)).toBe(true);
      const compacting = defaults.filter((row) => row.summariserId !== 'none');
      for (const row of compacting) {
        expect(row).toMatchObject({ lineageValidity: 1, coverageExactness: 1 });
        expect(row.compactionsPer100Turns).toBeDefined();
      }
      const failing = compacting.find((row) => row.summariserId === 'scripted:failing');
      expect(failing?.failedCompactions).toBeGreaterThan(0);
      expect(failing?.unchangedOnFailure).toBe(1);
      const faithful = compacting.find((row) => row.summariserId === 'scripted:faithful');
      expect(faithful?.ruleVisibility).toBe(1);
      expect(faithful?.quality).toBeGreaterThan(Math.max(...trimming.map((row) => row.quality)));
      const html = await readFile(path.join(out, 'eval.html'), 'utf8');
      expect(html).toContain('<svg');
      expect(html).toContain('<polyline');
      expect(html).not.toMatch(/<script|<link|src="http|href="http/);
      expect(await readFile(path.join(out, 'eval.md'), 'utf8')).toContain('| ctxloom ContextGovernor |');
      expect(io.err()).toContain('LLM tier skipped: set CTXLOOM_EVAL_MODEL_URL and CTXLOOM_EVAL_MODEL');
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 300_000);

  it('rejects an unknown tier with exit code 2', async () => {
    const io = memoryIo(tmpdir(), {});
    expect(await main(['eval', '--tier', 'huge'], io)).toBe(2);
    expect(io.err()).toContain("--tier must be small or full, got 'huge'.");
  });
});
