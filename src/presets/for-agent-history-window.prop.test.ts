import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applySessionStep,
  type SessionStep,
  sessionStepArbitrary,
} from '../../test/helpers/growing-session.js';
import { textOf } from '../core/content.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildTrace } from '../pipeline/build-trace.js';
import { conversationArbitrary, malformedConversationArbitrary } from '../testing/arbitraries.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { ContextBuilder } from './context-builder.js';
import type { AgentPresetOptions } from './for-agent.js';

let workspace = '';
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-window-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function builder(options: {
  readonly workspace: string;
  readonly blockLimit: number;
  readonly historyWindow: boolean;
  /** Write offload files (the window then counts a result offloaded before as its reference). */
  readonly offload?: boolean;
}): ContextBuilder {
  const preset: AgentPresetOptions = {
    workspace: options.workspace,
    platform: { os: 'linux', arch: 'x64', nodeVersion: '20.20.2' },
    skills: { builtinDir: null },
    includeMemory: false,
    recentHistory: false,
    tokenCounter: new SimpleTokenCounter(),
    contextWindowTokens: 1_000_000,
    governor: {
      blockLimit: options.blockLimit,
      maxToolResultChars: 60,
      offload: { dryRun: options.offload !== true },
      onOverBudget: 'keep', // the fixed-part probe below builds with a 1-token limit
    },
    generateId: createSequentialIdGenerator('g'),
    historyWindow: options.historyWindow,
  };
  return ContextBuilder.forAgent(preset);
}

/** One turn of a growing session, or an edit of a workspace file (SOUL.md) between two builds. */
type Step = SessionStep | { readonly kind: 'edit-soul' };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 7, arbitrary: sessionStepArbitrary },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('edit-soul' as const) }) },
);

let soulEdits = 0;
/**
 * A new SOUL.md whose length differs from every earlier one (7 + n + 5·(n mod 7) characters after the
 * heading for the n-th edit): the file cache keys on size and mtime, and two edits may share an mtime.
 */
async function editSoul(folder: string): Promise<void> {
  soulEdits += 1;
  await writeFile(path.join(folder, 'SOUL.md'), `# Soul\n\n${soulText()}\n`);
}

function soulText(): string {
  return `Be ${'very '.repeat(soulEdits % 7)}kind${'!'.repeat(soulEdits)}`;
}

function systemText(messages: readonly Message[]): string {
  const prompt = messages.find((message) => message.role === 'system');
  return prompt === undefined ? '' : textOf(prompt.content);
}

/** What comes after the history: a user message, nothing, or an assistant message. */
const currentArbitrary = fc.constantFrom<Pick<BuildInput, 'current' | 'currentRole'>>(
  { current: 'next' },
  {},
  { current: 'go on', currentRole: 'assistant' },
);

/** Generated messages (the joined system prompt, backfilled results) get new ids per builder. */
function normalised(messages: readonly Message[], known: ReadonlySet<string>): readonly Message[] {
  return messages.map((message) => (known.has(message.id) ? message : { ...message, id: '<generated>' }));
}

/** Applies one step to the session (`master`, of which the first `length` messages are the history). */
async function applyStep(
  step: Step,
  session: {
    readonly master: Message[];
    readonly length: number;
    readonly turn: number;
    readonly workspace: string;
  },
): Promise<number> {
  if (step.kind !== 'edit-soul') return applySessionStep(step, session);
  await editSoul(session.workspace);
  return session.length;
}

/** Stage sizes (token figures may differ: a warm builder knows exact counts where a fresh one estimates). */
function stageSizes(trace: BuildTrace): readonly unknown[] {
  return trace.stages.map(({ id, messagesIn, messagesOut }) => ({ id, messagesIn, messagesOut }));
}

/** How often the window left messages out, and the warm builder reused its last result. */
type Engagement = { windowed: number; reused: number };

const sessionArbitraries = [
  fc.oneof(
    conversationArbitrary({ minUnits: 4, maxUnits: 40, maxTextLength: 200 }),
    malformedConversationArbitrary({ minUnits: 4, maxUnits: 40, maxTextLength: 200 }),
  ),
  fc.array(stepArbitrary, { minLength: 1, maxLength: 8 }),
  fc.integer({ min: 0, max: 60 }),
  fc.integer({ min: 20, max: 900 }),
  currentArbitrary,
  fc.boolean(),
] as const;

/** A generated session: conversation, steps, start length, history budget, what comes after, offload on. */
type SessionValues = readonly [
  readonly Message[],
  readonly Step[],
  number,
  number,
  Pick<BuildInput, 'current' | 'currentRole'>,
  boolean,
];

/**
 * One session: a warm builder sends, turn after turn, what a builder given the whole history and a
 * fresh builder send. What the window leaves out may depend on what the warm builder learnt (with
 * offload files it prices a result it saw offloaded at its reference, a fresh one at 0), so the
 * stage sizes are compared only without offload files; the messages sent never depend on it.
 */
async function checkSession(
  [conversation, steps, startLength, historyBudget, current, offload]: SessionValues,
  run: { readonly workspace: string; readonly counts: Engagement },
): Promise<void> {
  const at = { workspace: run.workspace };
  const fixedTokens = (await builder({ ...at, blockLimit: 1, historyWindow: false }).build(current)).trace
    .totalTokens;
  const blockLimit = fixedTokens + historyBudget;
  const incremental = builder({ ...at, blockLimit, historyWindow: true, offload });
  const whole = builder({ ...at, blockLimit, historyWindow: false, offload });
  const master = [...conversation];
  let length = Math.min(startLength, master.length);
  let previous: readonly Message[] | undefined;
  for (const [turn, step] of steps.entries()) {
    length = await applyStep(step, { master, length, turn, workspace: run.workspace });
    const history = master.slice(0, length);
    const known = new Set(master.map((message) => message.id));
    const input = { history, ...current };
    const fast = await incremental.build(input);
    if (fast.messages === previous) run.counts.reused += 1;
    previous = fast.messages;
    if (step.kind === 'edit-soul') expect(systemText(fast.messages)).toContain(soulText());
    const full = await whole.build(input);
    // A builder that never saw this session: what every cache and memo must agree with.
    const fresh = await builder({ ...at, blockLimit, historyWindow: true, offload }).build(input);
    expect(normalised(fast.messages, known)).toEqual(normalised(full.messages, known));
    expect(normalised(fast.messages, known)).toEqual(normalised(fresh.messages, known));
    expect(fast.trace.totalTokens).toBe(full.trace.totalTokens);
    expect(fast.trace.totalTokens).toBe(fresh.trace.totalTokens);
    expect(fast.trace.sections).toEqual(full.trace.sections);
    expect(fast.trace.sections).toEqual(fresh.trace.sections);
    if (!offload) expect(stageSizes(fast.trace)).toEqual(stageSizes(fresh.trace));
    const historyStage = fast.trace.stages.find((stage) => stage.id === 'history');
    if (historyStage?.decisions.some((item) => item.messageRange !== undefined)) run.counts.windowed += 1;
  }
}

/** A fixed seed for the engagement check, so that its counts do not depend on the run. */
const ENGAGEMENT_SEED = 20_261_201;

describe('AgentHistoryWindow', () => {
  test.prop([...sessionArbitraries], { numRuns: 100 })(
    'a warm builder sends what a builder given the whole history sends, over growing and edited histories',
    async (...values) => {
      await checkSession(values, { workspace, counts: { windowed: 0, reused: 0 } });
    },
    60_000,
  );

  it('leaves messages out and reuses results over a fixed seed, sending the same', async () => {
    // A workspace of its own: the random property's offload files and SOUL.md do not reach it.
    const own = await mkdtemp(path.join(tmpdir(), 'ctxloom-window-seeded-'));
    const counts: Engagement = { windowed: 0, reused: 0 };
    try {
      await fc.assert(
        fc.asyncProperty(...sessionArbitraries, (...values) =>
          checkSession(values, { workspace: own, counts }),
        ),
        { numRuns: 100, seed: ENGAGEMENT_SEED },
      );
    } finally {
      await rm(own, { recursive: true, force: true });
    }
    expect(counts.windowed).toBeGreaterThan(10);
    expect(counts.reused).toBeGreaterThan(5);
  }, 60_000);
});
