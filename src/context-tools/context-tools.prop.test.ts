import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { failingMetadataStore } from '../../test/helpers/context-tools-session.js';
import { applyCompactions } from '../core/apply-compactions.js';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { groupTransactions } from '../core/transactions.js';
import { validateCompactionLineage } from '../core/validate-compaction-lineage.js';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import { sessionCompactions } from '../sessions/session-compactions.js';
import { conversationArbitrary } from '../testing/arbitraries.js';
import { createScriptedSummarizer } from '../testing/scripted-summarizer.js';
import { contextToolOutput } from './context-tool-result.js';
import { createContextTools } from './create-context-tools.js';

type Step =
  | { readonly kind: 'append'; readonly units: number }
  | { readonly kind: 'new_context' | 'compact_now' | 'notes' | 'failing_new_context' };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('append' as const), units: fc.integer({ min: 1, max: 4 }) }),
    weight: 3,
  },
  fc.constantFrom<Step>(
    { kind: 'new_context' },
    { kind: 'compact_now' },
    { kind: 'notes' },
    { kind: 'failing_new_context' },
  ),
);

const KEY = 'prop:session';

describe('the context tools over any conversation', () => {
  test.prop(
    [
      conversationArbitrary({ minUnits: 2, maxUnits: 14 }),
      fc.array(stepArbitrary, { minLength: 1, maxLength: 8 }),
    ],
    {
      numRuns: 60,
    },
  )(
    'keep lineage valid and the view whole; a failed reset changes nothing; every hidden message expands from its record',
    async (conversation, steps) => {
      const inner = new MemorySessionStore();
      const { store, failing } = failingMetadataStore(inner);
      const units = groupTransactions(conversation).map((unit) => unit.messages);
      let taken = 0;
      let count = 0;
      const tools = createContextTools({
        workspace: '/nonexistent-ctxloom-prop',
        store,
        sessionKey: KEY,
        summarizer: createScriptedSummarizer('faithful'),
        compactFloorTokens: 0,
        compaction: { keepRecent: 20 },
        expandPageChars: 1_000_000,
        generateId: () => `rec-${count}`,
      });
      const call = async (name: string, args: object) => {
        count += 1;
        return contextToolOutput(
          await tools.execute({ id: `c${count}`, name, arguments: JSON.stringify(args) }),
        );
      };
      const append = async (how: number) => {
        const next = units.slice(taken, taken + how).flat();
        taken = Math.min(units.length, taken + how);
        if (next.length > 0) await inner.append(KEY, next);
      };
      await append(2);
      for (const step of steps) {
        if (step.kind === 'append') await append(step.units);
        else await runTool(step.kind, { call, inner, failing });
        await expectWholeLineage(inner);
      }
      const session = await inner.load(KEY);
      const records = sessionCompactions(session);
      const { view } = applyCompactions(session.messages, records);
      const visible = new Set(view.map((message: Message) => message.id));
      const hidden = session.messages.filter((message) => !visible.has(message.id));
      const expanded = await Promise.all(
        records.map(async (record) => (await call('expand', { id: record.id })).output),
      );
      for (const message of hidden)
        expect(
          expanded.some((text) => text.includes(`message ${message.id} (`)),
          message.id,
        ).toBe(true);
    },
  );
});

type ToolStep = Exclude<Step, { readonly kind: 'append' }>['kind'];

async function runTool(
  kind: ToolStep,
  at: {
    readonly call: (
      name: string,
      args: object,
    ) => Promise<{ readonly output: string; readonly isError: boolean }>;
    readonly inner: MemorySessionStore;
    readonly failing: { isOn: boolean };
  },
): Promise<void> {
  if (kind === 'new_context') await at.call('new_context', { goal: 'the goal' });
  else if (kind === 'compact_now') await at.call('compact_now', {});
  else if (kind === 'notes') await at.call('notes', { command: 'write', goal: 'the notes' });
  else {
    const before = await at.inner.load(KEY);
    at.failing.isOn = true;
    const result = await at.call('new_context', { goal: 'never stored' });
    at.failing.isOn = false;
    expect(result.isError).toBe(true);
    expect(await at.inner.load(KEY)).toEqual(before);
  }
}

async function expectWholeLineage(store: MemorySessionStore): Promise<void> {
  const session = await store.load(KEY);
  const records = sessionCompactions(session);
  expect(validateCompactionLineage(session.messages, records)).toEqual([]);
  expect(validateToolCallIntegrity(applyCompactions(session.messages, records).view)).toEqual([]);
}
