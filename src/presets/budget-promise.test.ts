import { tmpdir } from 'node:os';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { assistant, system, user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { createStaticSkillEnvironment } from '../skills/skill-environment.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { ContextBuilder } from './context-builder.js';

const tokenCounter = new SimpleTokenCounter();
const history: readonly Message[] = Array.from({ length: 30 }, (_, index) =>
  index % 2 === 0
    ? user(`question ${index} ${'q'.repeat(200)}`)
    : assistant(`answer ${index} ${'a'.repeat(200)}`),
);

const builders = {
  forChat: (options: { maxInputTokens: number; onOverBudget?: 'keep' }) =>
    ContextBuilder.forChat({ ...options, tokenCounter, generateId: createSequentialIdGenerator('c') }),
  forReact: (options: { maxInputTokens: number; onOverBudget?: 'keep' }) =>
    ContextBuilder.forReact({ ...options, tokenCounter, toolsDesc: '- ls: list files' }),
  forSkill: (options: { maxInputTokens: number; onOverBudget?: 'keep' }) =>
    ContextBuilder.forSkill({
      ...options,
      tokenCounter,
      cwd: tmpdir(),
      environment: createStaticSkillEnvironment({}),
    }),
};

describe('budgets are a promise in every preset', () => {
  for (const [name, make] of Object.entries(builders)) {
    it(`${name}: a build fits maxInputTokens, or fails with BUDGET_UNSATISFIABLE; 'keep' sends it anyway`, async () => {
      const fits = await make({ maxInputTokens: 400 }).build({ history, current: 'next?' });
      expect(fits.trace.totalTokens).toBeLessThanOrEqual(400);
      const huge = `please ${'x'.repeat(4_000)}`;
      await expect(make({ maxInputTokens: 400 }).build({ history, current: huge })).rejects.toMatchObject({
        code: 'BUDGET_UNSATISFIABLE',
        budget: 400,
      });
      const kept = await make({ maxInputTokens: 400, onOverBudget: 'keep' }).build({
        history,
        current: huge,
      });
      expect(kept.trace.totalTokens).toBeGreaterThan(400);
      expect(kept.messages.at(-1)?.content).toBe(huge);
      expect(kept.messages.filter((message) => message.role !== 'system')).toHaveLength(1);
    });
  }

  test.prop([fc.integer({ min: 1, max: 3_000 }), fc.integer({ min: 0, max: 2_000 })])(
    'forChat never returns more than maxInputTokens without an error',
    async (maxTokens, currentChars) => {
      const builder = builders.forChat({ maxInputTokens: maxTokens });
      try {
        const { trace } = await builder.build({ history, current: `c${'y'.repeat(currentChars)}` });
        expect(trace.totalTokens).toBeLessThanOrEqual(maxTokens);
      } catch (error) {
        expect(error).toMatchObject({ code: 'BUDGET_UNSATISFIABLE' });
      }
    },
  );
});

describe('the governor and forAgent keep the budget too', () => {
  it('refuses a window that is not larger than the output reserve (budget 0 used to mean "off")', () => {
    expect(() => new ContextGovernor({ contextWindowTokens: 1_000 })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
    expect(() => new ContextGovernor({ contextWindowTokens: 2_000, maxOutputTokens: 1_000 })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
    expect(new ContextGovernor({ contextWindowTokens: 1_000, blockLimit: 500 }).budgetTokens).toBe(500);
  });

  it('throws from its filters inside a ContextBuilder, not only from prepareForModel', async () => {
    const governor = new ContextGovernor({
      contextWindowTokens: 2_000,
      maxOutputTokens: 256,
      tokenCounter,
    });
    const builder = new ContextBuilder({ filters: governor.filters, tokenCounter });
    const big = [system('s'.repeat(6_000)), user('old'), assistant('ok'), user('now')];
    await expect(builder.transform(big)).rejects.toMatchObject({ code: 'BUDGET_UNSATISFIABLE', budget: 720 });
    const keep = new ContextGovernor({
      contextWindowTokens: 2_000,
      maxOutputTokens: 256,
      tokenCounter,
      onOverBudget: 'keep',
    });
    const kept = await new ContextBuilder({ filters: keep.filters, tokenCounter }).transform(big);
    expect(kept.trace.totalTokens).toBeGreaterThan(720);
  });

  it('forAgent with a 2,000-token window and 256 reserved throws instead of returning 1,617 tokens', async () => {
    const { mkdtemp, rm, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-budget-'));
    try {
      await writeFile(path.join(workspace, 'SOUL.md'), `# Soul\n${'You are careful. '.repeat(400)}`);
      const agent = (onOverBudget?: 'keep') =>
        ContextBuilder.forAgent({
          workspace,
          contextWindowTokens: 2_000,
          maxOutputTokens: 256,
          tokenCounter,
          skills: { builtinDir: null, environment: createStaticSkillEnvironment({}) },
          ...(onOverBudget === undefined ? {} : { governor: { onOverBudget } }),
        });
      await expect(agent().build({ history, current: 'hi' })).rejects.toMatchObject({
        code: 'BUDGET_UNSATISFIABLE',
        budget: 720,
      });
      const kept = await agent('keep').build({ history, current: 'hi' });
      expect(kept.trace.totalTokens).toBeGreaterThan(720);
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
