/**
 * One case of the prepare-step benchmark, in its own process so its first call is really cold:
 * `node --expose-gc --import tsx bench/prepare-step-case.ts <case> <messages>`. Prints one JSON line
 * with the figures (ms, bytes). Cases: `prepare-step` (createPrepareStep over a ContextGovernor, AI
 * SDK 6's step arguments), `prepare-step-v7` (the same with AI SDK 7's: `initialMessages`, and each
 * step starts from what the previous one returned) and `prune` (the AI SDK's pruneMessages on the
 * same messages). The history is the generated agent
 * corpus converted to `ModelMessage`s once, outside the timings; each step appends an assistant
 * tool-call message and its tool result; the AI SDK 6 step arguments hold the same message objects
 * at every step (a new array each time) and the run's `steps` array. Only the cold call samples the
 * heap (`SampledClock` in `case-process.ts`): sampling at every stage boundary of a warm step would
 * inflate the +1 and same figures. Not a test.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jsonSchema, type ModelMessage, pruneMessages } from 'ai';
import type { Message } from '../src/index.js';
import { BUDGET_TOKENS, CORPUS_TOOLS, loadAgentCorpus } from './agent-corpus.js';
import { aiSdk, core, ctxloom } from './built.js';
import { gc, keepAlive, SampledClock, timed } from './case-process.js';

const WARM_RUNS = 5;
/**
 * Steps run before the warm figures are taken (each appends a tool call and its result), so they are
 * a warm run's steps, not the JIT's first compilations; a full GC follows them, so the figures do not
 * pay for the cold call's garbage either.
 */
const WARMUP_STEPS = 10;

export type StepCaseFigures = {
  readonly name: string;
  readonly messages: number;
  readonly coldMs: number;
  readonly plusOneMs: number;
  readonly sameMs: number;
  readonly sent: number;
  /** Heap over the raw history: the highest seen during the cold call (garbage included). */
  readonly peakBytes: number;
  /** Heap over the raw history after a full GC, with the prepareStep (and its caches) kept alive. */
  readonly retainedBytes: number;
  readonly rawHistoryBytes: number;
};

type Steps = { response: { messages: ModelMessage[] } }[];
/** One step on `messages` (the run's `steps` so far); returns the count of messages sent. */
type StepCall = (messages: ModelMessage[], steps: Steps) => Promise<number>;

/** The governor's clock: samples the heap during the cold call only. */
const clock = new SampledClock();

async function main(): Promise<void> {
  const [name = 'prepare-step', sizeArgument = '1000'] = process.argv.slice(2);
  const size = Number(sizeArgument);
  gc();
  const empty = process.memoryUsage().heapUsed;
  const corpus = await loadAgentCorpus(size);
  const results = corpus.filter((message) => message.role === 'tool');
  // Plain AI SDK messages, as a user's history would be: no ctxloom ids carried.
  const initial = aiSdk.toAiSdkMessages(corpus.slice(1), { carryMetadata: false }).messages;
  const system = core.textOf((corpus[0] as Message).content);
  gc();
  const baseline = process.memoryUsage().heapUsed;
  gc();
  const workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-bench-steps-'));
  try {
    const step = makeCase(name, { system, workspace });
    const responses: ModelMessage[] = [];
    const steps: Steps = [];
    const state = { steps, responses, results };
    gc();
    const before = process.memoryUsage().heapUsed;
    const cold = await clock.cold(before, () => step([...initial], steps));
    let turn = 0;
    const plusOne = async () => {
      appendStep(state, turn);
      turn += 1;
      const messages = [...initial, ...responses];
      const start = performance.now();
      await step(messages, steps);
      return performance.now() - start;
    };
    await timed(WARMUP_STEPS, plusOne);
    gc();
    const plusOneMs = await timed(WARM_RUNS, plusOne);
    const same = async () => {
      const messages = [...initial, ...responses];
      const start = performance.now();
      await step(messages, steps);
      return performance.now() - start;
    };
    await timed(WARMUP_STEPS, same); // warmed up like the +1 steps
    const sameMs = await timed(WARM_RUNS, same);
    keepAlive(step);
    gc();
    const figures: StepCaseFigures = {
      name,
      messages: size,
      coldMs: cold.ms,
      plusOneMs,
      sameMs,
      sent: cold.value,
      peakBytes: cold.peakBytes,
      retainedBytes: process.memoryUsage().heapUsed - baseline,
      rawHistoryBytes: baseline - empty,
    };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

/** One step of the loop: an assistant tool call and its result (large one time in two), new text. */
function appendStep(
  state: {
    readonly steps: Steps;
    readonly responses: ModelMessage[];
    readonly results: readonly Message[];
  },
  turn: number,
): void {
  const callId = `bench-call-${turn}`;
  const large = state.results.find(
    (message, index) => index >= turn && core.textOf(message.content).length > 16_000,
  );
  const small = state.results[turn % state.results.length];
  const source = turn % 2 === 0 ? (large ?? small) : small;
  const output = `${core.textOf(source?.content ?? '')}\n步骤 ${turn}: done.`;
  state.responses.push(
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: callId, toolName: 'exec', input: { turn } }],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: callId,
          toolName: 'exec',
          output: { type: 'text', value: output },
        },
      ],
    },
  );
  state.steps.push({ response: { messages: [...state.responses] } });
}

function makeCase(name: string, shared: { readonly system: string; readonly workspace: string }): StepCall {
  if (name === 'prune') {
    return async (messages) =>
      pruneMessages({
        messages,
        reasoning: 'before-last-message',
        toolCalls: 'before-last-2-messages',
        emptyMessages: 'remove',
      }).length;
  }
  if (name !== 'prepare-step' && name !== 'prepare-step-v7') throw new Error(`unknown case ${name}`);
  const governor = new ctxloom.ContextGovernor({
    contextWindowTokens: 128_000,
    blockLimit: BUDGET_TOKENS,
    workspace: shared.workspace,
    now: clock.now,
  });
  const tools = Object.fromEntries(
    CORPUS_TOOLS.map((tool) => [
      tool.name,
      { description: tool.description, inputSchema: jsonSchema(tool.parameters ?? {}) },
    ]),
  );
  const prepareStep = aiSdk.createPrepareStep({ governor }, { system: shared.system, tools });
  if (name === 'prepare-step-v7') return aiSdk7Steps(prepareStep);
  return async (messages, steps) => {
    const result = await prepareStep({ stepNumber: steps.length, messages, steps });
    return (result?.messages ?? messages).length;
  };
}

/**
 * The step arguments of AI SDK 7: `initialMessages`, and messages that start with what the previous
 * step's `prepareStep` returned (or was given), then the new response messages.
 */
function aiSdk7Steps(prepareStep: ReturnType<typeof aiSdk.createPrepareStep>): StepCall {
  let initialMessages: readonly ModelMessage[] | undefined;
  let carried: ModelMessage[] = [];
  let lastInput: ModelMessage[] = [];
  let seen = 0;
  return async (messages, steps) => {
    initialMessages ??= messages;
    const input =
      seen === 0
        ? messages
        : messages.length === seen
          ? [...lastInput]
          : [...carried, ...messages.slice(seen)];
    const result = await prepareStep({ stepNumber: steps.length, messages: input, steps, initialMessages });
    carried = result?.messages ?? input;
    lastInput = input;
    seen = messages.length;
    return carried.length;
  };
}

await main();
