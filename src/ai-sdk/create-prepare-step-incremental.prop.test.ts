/**
 * createPrepareStep reads each message of a run once and hands the governor the same ctxloom objects
 * at every step (so counts and decisions cached by identity are reused): over random growing tool
 * loops with old messages replaced or edited in place between steps, what it returns and what it
 * governs equal what a run gets whose every message is a new object at every step (nothing reusable),
 * and, without compaction (the one run state), what a new prepareStep gets for the step alone.
 */
import { fc, test } from '@fast-check/vitest';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import type { Message } from '../core/message.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { conversationArbitrary } from '../testing/arbitraries.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { createPrepareStep } from './create-prepare-step.js';
import { toAiSdkMessages } from './to-ai-sdk-messages.js';

type Steps = { response: { messages: ModelMessage[] } }[];
type Edit = { readonly kind: 'replace' | 'content' | 'push' | 'options'; readonly at: number };
type StepSpec = {
  readonly results: readonly { readonly tool: string; readonly size: number; readonly chinese: boolean }[];
  readonly edit: Edit | undefined;
};
/** A ModelMessage as a test edits it in place (AI SDK messages are plain, mutable objects). */
type Mutable = { content: unknown; providerOptions?: unknown };

const stepArbitrary: fc.Arbitrary<StepSpec> = fc.record({
  results: fc.array(
    fc.record({
      tool: fc.constantFrom('exec', 'read_file', 'web_search'),
      size: fc.integer({ min: 0, max: 3_000 }),
      chinese: fc.boolean(),
    }),
    { minLength: 1, maxLength: 2 },
  ),
  edit: fc.option(
    fc.record({ kind: fc.constantFrom('replace', 'content', 'push', 'options'), at: fc.nat() }),
    { nil: undefined },
  ),
});

function governor(options: { readonly compaction: boolean; readonly counter?: TokenCounter }) {
  return new ContextGovernor({
    contextWindowTokens: 3_000,
    maxOutputTokens: 256,
    maxToolResultChars: 1_500,
    tokenCounter: options.counter ?? new SimpleTokenCounter(),
    onOverBudget: 'keep',
    ...(options.compaction ? { minCompactChars: 200 } : { compactableTools: [] }),
  });
}

/** The messages of one step: an assistant with the calls, and a tool message with their results. */
function stepMessages(spec: StepSpec, step: number): ModelMessage[] {
  const ids = spec.results.map((_, index) => `step${step}-${index}`);
  return [
    {
      role: 'assistant',
      content: spec.results.map((result, index) => ({
        type: 'tool-call' as const,
        toolCallId: ids[index] ?? '',
        toolName: result.tool,
        input: { step },
      })),
    },
    {
      role: 'tool',
      content: spec.results.map((result, index) => ({
        type: 'tool-result' as const,
        toolCallId: ids[index] ?? '',
        toolName: result.tool,
        output: { type: 'text' as const, value: (result.chinese ? '结果 ' : 'out ').repeat(result.size / 4) },
      })),
    },
  ];
}

/** An edited copy of a message's content: each text (or tool output) gets a suffix. */
function editedContent(message: ModelMessage): unknown {
  if (typeof message.content === 'string') return `${message.content} (edited)`;
  return message.content.map((part) => {
    if (part.type === 'text') return { ...part, text: `${part.text} (edited)` };
    if (part.type === 'tool-result' && part.output.type === 'text')
      return { ...part, output: { ...part.output, value: `${part.output.value} (edited)` } };
    return part;
  });
}

/** Applies an edit to the list holding the message at `edit.at` (by replacement or in place). */
function applyEdit(lists: readonly ModelMessage[][], edit: Edit): void {
  const total = lists.reduce((sum, list) => sum + list.length, 0);
  if (total === 0) return;
  let at = edit.at % total;
  const list = lists.find((candidate) => {
    if (at < candidate.length) return true;
    at -= candidate.length;
    return false;
  });
  const message = list?.[at];
  if (list === undefined || message === undefined) return;
  const target = message as Mutable;
  switch (edit.kind) {
    case 'replace':
      // A valid ModelMessage: the same parts with other texts.
      list[at] = { ...message, content: editedContent(message) } as ModelMessage;
      return;
    case 'content':
      target.content = editedContent(message);
      return;
    case 'push':
      if (Array.isArray(target.content) && message.role === 'user')
        target.content.push({ type: 'text', text: 'more' });
      else target.content = editedContent(message);
      return;
    case 'options':
      target.providerOptions = { custom: { edited: edit.at } };
      return;
  }
}

/** A deep copy of plain objects and arrays (URLs and byte arrays, which nothing caches on, are shared). */
function copied<TValue>(value: TValue): TValue {
  if (Array.isArray(value)) return value.map(copied) as TValue;
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype)
    return value;
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, copied(field)])) as TValue;
}

type Observed = { readonly result: unknown; readonly governed: readonly Message[] };

/** A prepareStep that reports what it returned and the ctxloom messages it governed. */
function observed(compaction: boolean) {
  let governed: readonly Message[] = [];
  const prepareStep = createPrepareStep(
    { governor: governor({ compaction }) },
    {
      system: 'You are a careful agent.',
      onStep: (step) => {
        governed = step.messages;
      },
    },
  );
  return async (messages: ModelMessage[], steps: Steps): Promise<Observed> => {
    const result = await prepareStep({ stepNumber: steps.length, messages, steps });
    return { result, governed };
  };
}

/** Runs the loop and compares each step of the warm run with the reference's. */
async function compareRuns(
  history: readonly ModelMessage[],
  specs: readonly StepSpec[],
  reference: (messages: ModelMessage[], steps: Steps) => Promise<Observed>,
  compaction: boolean,
): Promise<void> {
  const warm = observed(compaction);
  const initial = [...history];
  const responses: ModelMessage[] = [];
  const warmSteps: Steps = [];
  const referenceSteps: Steps = [];
  for (const [index, spec] of specs.entries()) {
    const messages = [...initial, ...responses];
    const ours = await warm(messages, warmSteps);
    const theirs = await reference(copied(messages), referenceSteps);
    expect(ours.result).toEqual(theirs.result);
    expect(ours.governed).toEqual(theirs.governed);
    responses.push(...stepMessages(spec, index));
    warmSteps.push({ response: { messages: [...responses] } });
    referenceSteps.push({ response: { messages: copied(responses) } });
    if (spec.edit !== undefined) applyEdit([initial, responses], spec.edit);
  }
}

const historyArbitrary = conversationArbitrary({ minUnits: 1, maxUnits: 8, maxSystemMessages: 0 }).map(
  (conversation) => toAiSdkMessages(conversation, { carryMetadata: false }).messages,
);

describe('createPrepareStep across the steps of a run', () => {
  test.prop([historyArbitrary, fc.array(stepArbitrary, { minLength: 1, maxLength: 6 })], { numRuns: 60 })(
    'equals a run whose messages are new objects at every step (edits and replacements included)',
    async (history, specs) => {
      await compareRuns(history, specs, observed(true), true);
    },
  );

  test.prop([historyArbitrary, fc.array(stepArbitrary, { minLength: 1, maxLength: 6 })], { numRuns: 40 })(
    'equals a new prepareStep at every step when nothing is compacted',
    async (history, specs) => {
      await compareRuns(history, specs, (messages, steps) => observed(false)(messages, steps), false);
    },
  );
});

/** A counter that records the id of every message it counts (under the governor's identity cache). */
class RecordingCounter extends SimpleTokenCounter {
  readonly counted: string[] = [];

  override countMessage(message: Message): number {
    this.counted.push(message.id);
    return super.countMessage(message);
  }
}

/** The message with its content array behind a proxy that records a read of its parts under `name`. */
function watched(message: ModelMessage, name: string, reads: Set<string>): ModelMessage {
  if (typeof message.content === 'string') return message;
  const content = new Proxy(message.content, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads.add(name);
      return Reflect.get(target, key, receiver);
    },
  });
  // The same message, its parts read through the proxy.
  return { ...message, content } as ModelMessage;
}

describe('a step that adds messages to a run', () => {
  it('reads only the new messages (and the window it sends), and the governor counts nothing again', async () => {
    const history: ModelMessage[] = [];
    for (let turn = 0; turn < 40; turn += 1) {
      history.push(
        { role: 'user', content: [{ type: 'text', text: `question ${turn} `.repeat(20) }] },
        ...stepMessages(
          { results: [{ tool: 'exec', size: 400, chinese: turn % 3 === 0 }], edit: undefined },
          turn,
        ),
        { role: 'assistant', content: [{ type: 'text', text: `answer ${turn} `.repeat(30) }] },
      );
    }
    const reads = new Set<string>();
    const initial = history.map((message, index) => watched(message, `old ${index}`, reads));
    const counter = new RecordingCounter();
    const prepareStep = createPrepareStep({ governor: governor({ compaction: true, counter }) }, {});
    const steps: Steps = [];
    await prepareStep({ stepNumber: 0, messages: [...initial], steps });
    expect(reads.size).toBe(initial.length);
    expect(counter.counted.length).toBeGreaterThan(0);
    const countedBefore = new Set(counter.counted);

    const responses = stepMessages(
      { results: [{ tool: 'exec', size: 300, chinese: true }], edit: undefined },
      99,
    ).map((message, index) => watched(message, `new ${index}`, reads));
    steps.push({ response: { messages: responses } });
    reads.clear();
    counter.counted.length = 0;
    const sent = await prepareStep({ stepNumber: 1, messages: [...initial, ...responses], steps });
    // The writer looks at the messages it sends (a window of the history); nothing else is read.
    const window = new Set(
      [...initial, ...responses].flatMap((message, index) =>
        sent?.messages.includes(message) === true
          ? [index < initial.length ? `old ${index}` : `new ${index - initial.length}`]
          : [],
      ),
    );
    expect(window.size).toBeLessThan(initial.length / 2);
    expect(reads).toContain('new 0');
    expect(reads).toContain('new 1');
    for (const name of reads) expect(name.startsWith('new') || window.has(name)).toBe(true);
    // ai-sdk-<index>: the two new messages are the last two of the list; no message counted before is
    // counted again (which old messages the governor needs counted at a step is its own business).
    expect(counter.counted).toContain(`ai-sdk-${initial.length}`);
    expect(counter.counted).toContain(`ai-sdk-${initial.length + 1}`);
    expect(counter.counted.filter((id) => countedBefore.has(id))).toEqual([]);

    counter.counted.length = 0;
    await prepareStep({ stepNumber: 1, messages: [...initial, ...responses], steps });
    expect(counter.counted).toEqual([]);
  });
});

describe('the writer across the steps of a run', () => {
  it('repairs a lone surrogate at every step, and gives clean messages back unscanned', async () => {
    const broken: ModelMessage = { role: 'user', content: 'half \uD800 a pair' };
    const clean: ModelMessage = { role: 'assistant', content: 'fine' };
    const warnings: string[][] = [];
    const prepareStep = createPrepareStep(
      { governor: governor({ compaction: false }) },
      { onStep: (step) => warnings.push(step.warnings.map((warning) => warning.message)) },
    );
    const steps: Steps = [];
    const first = await prepareStep({ stepNumber: 0, messages: [broken, clean], steps });
    const responses = stepMessages(
      { results: [{ tool: 'exec', size: 10, chinese: false }], edit: undefined },
      0,
    );
    steps.push({ response: { messages: responses } });
    const second = await prepareStep({ stepNumber: 1, messages: [broken, clean, ...responses], steps });
    for (const sent of [first, second]) {
      expect(sent?.messages[0]).toEqual({ role: 'user', content: 'half \uFFFD a pair' });
      expect(sent?.messages[1]).toBe(clean);
    }
    expect(warnings).toEqual([
      ['1 lone surrogate(s) replaced with U+FFFD'],
      ['1 lone surrogate(s) replaced with U+FFFD'],
    ]);
  });
});
