/**
 * One case of the governor-turn benchmark, in its own process so its first call is really cold:
 * `node --expose-gc --import tsx bench/governor-turn-case.ts <case> <messages>`. Prints one JSON line
 * with the figures (ms). `ContextGovernor.prepareForModel` used as docs/openai.md and
 * docs/anthropic.md show it: one governor for the process, one `compactedToolCallIds` set per run
 * (a turn), `inflightStartIndex` at the turn's question. A turn appends the user's question, runs
 * step 1 (timed: "first step of a new turn"), appends an assistant tool call and its result, runs
 * step 2 (timed: "+1 step"), and appends the answer. Cases: `kept` (the caller keeps its ctxloom
 * messages: one array it appends to, as the guides' loop keeps its history) and `re-read` (every
 * step's list is made of new message objects, as a loop that converts its whole SDK history again
 * every step gets; made before the clock starts). The generated agent corpus, a 100,000-token block
 * limit, the default (estimating) counter, no workspace. Not a test: nothing fails on a slow machine.
 */
import type { Message } from '../src/index.js';
import { BUDGET_TOKENS, CORPUS_TOOLS, loadAgentCorpus } from './agent-corpus.js';
import { core, ctxloom } from './built.js';
import { gc, timed } from './case-process.js';

/** Turns before the warm figures are taken, and turns whose median they are. */
const WARMUP_TURNS = 10;
const TURNS = 21;

export type GovernorTurnFigures = {
  readonly name: string;
  readonly messages: number;
  /** The process's first call (a new governor, nothing compiled yet). */
  readonly coldMs: number;
  /** The first step of a new turn (a new compacted set), warm governor: median. */
  readonly firstStepMs: number;
  /** The second step of a turn (same set, one tool call and result more): median. */
  readonly plusOneMs: number;
  /** Messages sent by the last first step. */
  readonly sent: number;
};

async function main(): Promise<void> {
  const [name = 'kept', sizeArgument = '1000'] = process.argv.slice(2);
  if (name !== 'kept' && name !== 're-read') throw new Error(`unknown case ${name}`);
  const size = Number(sizeArgument);
  const history: Message[] = [...(await loadAgentCorpus(size))];
  const governor = new ctxloom.ContextGovernor({ contextWindowTokens: 128_000, blockLimit: BUDGET_TOKENS });
  const listOf = (): readonly Message[] =>
    name === 'kept' ? history : history.map((message) => ({ ...message }));
  gc();
  let turn = 0;
  let sent = 0;
  let compactedToolCallIds = new Set<string>();
  let inflightStartIndex = history.length;
  const step = async (): Promise<number> => {
    const list = listOf();
    const start = performance.now();
    const result = await governor.prepareForModel(list, {
      tools: CORPUS_TOOLS,
      inflightStartIndex,
      compactedToolCallIds,
    });
    const ms = performance.now() - start;
    sent = result.messages.length;
    return ms;
  };
  // The corpus ends with the first turn's question.
  const coldMs = await step();
  const secondSteps: number[] = [];
  const nextTurn = async (): Promise<number> => {
    const callId = `bench-turn-${turn}`;
    history.push(
      core.assistant('', { toolCalls: [{ id: callId, name: 'exec', arguments: '{"cmd":"ls"}' }] }),
      core.tool(`步骤 ${turn}: ${'file.ts '.repeat(60)}`, { toolCallId: callId, name: 'exec' }),
    );
    secondSteps.push(await step());
    history.push(core.assistant(`Answer ${turn}: 已完成, the window moves on.`));
    history.push(core.user(`Follow-up ${turn}?`));
    turn += 1;
    compactedToolCallIds = new Set();
    inflightStartIndex = history.length;
    return step();
  };
  await timed(WARMUP_TURNS, nextTurn);
  gc();
  secondSteps.length = 0;
  const firstStepMs = await timed(TURNS, nextTurn);
  secondSteps.sort((left, right) => left - right);
  const figures: GovernorTurnFigures = {
    name,
    messages: size,
    coldMs,
    firstStepMs,
    plusOneMs: secondSteps[Math.floor(secondSteps.length / 2)] ?? 0,
    sent,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

await main();
