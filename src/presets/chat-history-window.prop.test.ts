import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  applySessionStep,
  type SessionStep,
  sessionStepArbitrary,
} from '../../test/helpers/growing-session.js';
import { ContextError } from '../core/errors.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import type { BuildResult } from '../pipeline/build-trace.js';
import { conversationArbitrary, malformedConversationArbitrary } from '../testing/arbitraries.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { ContextBuilder } from './context-builder.js';
import type { ChatPresetOptions } from './for-chat.js';

type Variant = {
  readonly preset: 'chat' | 'react';
  /** Which limit the window follows: the token budget (maxMessages too, if set) or the message limit alone. */
  readonly limit: 'tokens' | 'messages';
  readonly sanitizeToolCalls: boolean;
  readonly maxMessages?: number;
  readonly onOverBudget: 'throw' | 'keep';
  readonly current: string | undefined;
};

function builder(options: ChatPresetOptions & { readonly preset: Variant['preset'] }): ContextBuilder {
  const { preset, ...rest } = options;
  const common: ChatPresetOptions = {
    ...rest,
    tokenCounter: new SimpleTokenCounter(),
    generateId: createSequentialIdGenerator('g'),
  };
  return preset === 'chat' ? ContextBuilder.forChat(common) : ContextBuilder.forReact(common);
}

const variantArbitrary: fc.Arbitrary<Variant> = fc.record(
  {
    preset: fc.constantFrom('chat' as const, 'react' as const),
    limit: fc.constantFrom('tokens' as const, 'messages' as const),
    sanitizeToolCalls: fc.boolean(),
    maxMessages: fc.integer({ min: 2, max: 60 }),
    onOverBudget: fc.constantFrom('throw' as const, 'keep' as const),
    current: fc.constantFrom('next', undefined),
  },
  { requiredKeys: ['preset', 'limit', 'sanitizeToolCalls', 'onOverBudget', 'current'] },
);

/** What a build gave: its messages, or the code of the error it threw. */
type Outcome = { readonly messages: readonly Message[] } | { readonly error: string };

async function outcome(build: Promise<BuildResult>): Promise<Outcome> {
  try {
    return { messages: (await build).messages };
  } catch (error) {
    if (!ContextError.isInstance(error)) throw error;
    return { error: error.code };
  }
}

/** Ids made during a build (the current message, backfilled call ids) differ per builder. */
function normalised(result: Outcome, known: ReadonlySet<string>): Outcome {
  if ('error' in result) return result;
  const id = (value: string) => (known.has(value) ? value : '<generated>');
  return {
    messages: result.messages.map((message) => ({
      ...message,
      id: id(message.id),
      ...(message.toolCallId === undefined ? {} : { toolCallId: id(message.toolCallId) }),
      ...(message.toolCalls === undefined
        ? {}
        : { toolCalls: message.toolCalls.map((call) => ({ ...call, id: id(call.id) })) }),
    })),
  };
}

function idsOf(messages: readonly Message[]): ReadonlySet<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    ids.add(message.id);
    if (message.toolCallId !== undefined) ids.add(message.toolCallId);
    for (const call of message.toolCalls ?? []) ids.add(call.id);
  }
  return ids;
}

/** Builds that sent fewer messages than the history had; builds whose message-limit window left some out. */
type Counts = { windowed: number; byMessages: number };

async function checkSession(
  [conversation, steps, startLength, historyBudget, variant]: readonly [
    readonly Message[],
    readonly SessionStep[],
    number,
    number,
    Variant,
  ],
  counts: Counts,
): Promise<void> {
  const maxMessages =
    variant.maxMessages ?? (variant.limit === 'messages' ? (historyBudget % 40) + 1 : undefined);
  const base = {
    preset: variant.preset,
    onOverBudget: variant.onOverBudget,
    sanitizeToolCalls: variant.sanitizeToolCalls,
    ...(maxMessages === undefined ? {} : { maxMessages }),
  };
  const current = variant.current === undefined ? {} : { current: variant.current };
  // The request without history, to size the budget around what the history may take.
  const fixed = await builder({ ...base, onOverBudget: 'keep' }).build(current);
  const budget =
    variant.limit === 'tokens' ? { maxInputTokens: fixed.trace.totalTokens + historyBudget } : {};
  const incremental = builder({ ...base, ...budget });
  const whole = builder({ ...base, ...budget, historyWindow: false });
  const master = [...conversation];
  let length = Math.min(startLength, master.length);
  for (const [turn, step] of steps.entries()) {
    length = applySessionStep(step, { master, length, turn });
    const history = master.slice(0, length);
    const known = idsOf(master);
    const input = { history, ...current };
    const built = incremental.build(input);
    const fast = normalised(await outcome(built), known);
    const leftOut = await built.then(
      (result) =>
        (result.trace.stages.find((stage) => stage.id === 'history')?.messagesOut ?? 0) < history.length,
      () => false,
    );
    const full = normalised(await outcome(whole.build(input)), known);
    // A builder that never saw this session: what every remembered floor must agree with.
    const fresh = normalised(await outcome(builder({ ...base, ...budget }).build(input)), known);
    expect(fast).toEqual(full);
    expect(fast).toEqual(fresh);
    if ('messages' in fast && fast.messages.length < history.length) counts.windowed += 1;
    if (leftOut && variant.limit === 'messages') counts.byMessages += 1;
  }
}

const sessionArbitraries = [
  fc.oneof(
    conversationArbitrary({ minUnits: 4, maxUnits: 40, maxTextLength: 200 }),
    malformedConversationArbitrary({ minUnits: 4, maxUnits: 40, maxTextLength: 200 }),
  ),
  fc.array(sessionStepArbitrary, { minLength: 1, maxLength: 8 }),
  fc.integer({ min: 0, max: 60 }),
  fc.integer({ min: 20, max: 900 }),
  variantArbitrary,
] as const;

describe('the chat and ReAct presets’ history window', () => {
  test.prop([...sessionArbitraries], { numRuns: 120 })(
    'a warm builder sends what a builder given the whole history sends, or fails the same way',
    async (...values) => {
      await checkSession(values, { windowed: 0, byMessages: 0 });
    },
    60_000,
  );

  it('leaves messages out over a fixed seed, sending the same', async () => {
    const counts: Counts = { windowed: 0, byMessages: 0 };
    await fc.assert(
      fc.asyncProperty(...sessionArbitraries, (...values) => checkSession(values, counts)),
      { numRuns: 120, seed: 20_261_202 },
    );
    expect(counts.windowed).toBeGreaterThan(20);
    expect(counts.byMessages).toBeGreaterThan(20);
  }, 60_000);
});
