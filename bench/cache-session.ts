/**
 * The generated agent session of the cache benchmark: 200 turns of a user message, a tool loop of
 * 0–4 steps (1–2 parallel calls each, results from a few hundred bytes to 80 KB) and a final answer,
 * with request timestamps (15 s per step, a minute between turns, one 20-minute pause) and a
 * consolidation point (the memory writer archives the oldest 100 turns into a summary at turn 120).
 */

import { assistant, tool, user } from '../src/core/index.js';
import type { Message, ToolDefinition } from '../src/index.js';
import { createRandom } from './generate-history.js';

/** One model call: the turn, the step in the tool loop, and when it is sent. */
export type BenchCall = { readonly turn: number; readonly step: number; readonly at: number };

/** One turn: the user message, the in-flight messages after each step, and the final answer. */
export type BenchTurn = {
  readonly user: Message;
  /** Messages produced before step `i` (assistant with tool calls + results), cumulative. */
  readonly steps: readonly (readonly Message[])[];
  readonly answer: Message;
  readonly calls: readonly BenchCall[];
};

export const TURNS = 200;
export const CONSOLIDATION_TURN = 120;
export const CONSOLIDATED_TURNS = 100;
export const PAUSE_TURN = 150;

const VOCABULARY = (
  'the context builder keeps the system prompt stable while the history grows and the governor offloads ' +
  'large tool results into files so the prompt cache keeps reading the same prefix request after request ' +
  'function const return await import export interface type string number error result message session token'
).split(' ');

export const CACHE_BENCH_TOOLS: readonly ToolDefinition[] = [
  'read_file',
  'exec',
  'grep',
  'write_file',
  'list_dir',
  'web_fetch',
].map((name) => ({
  name,
  description: `${name}: ${'Runs inside the workspace and returns plain text; large outputs are cut. '.repeat(6)}`,
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'A path inside the workspace.' },
      args: { type: 'string' },
    },
    required: ['path'],
  },
}));

/** The whole session, deterministic for a seed. */
export function generateCacheSession(seed = 7): readonly BenchTurn[] {
  const random = createRandom(seed);
  const text = (words: number): string =>
    Array.from({ length: words }, () => VOCABULARY[Math.floor(random() * VOCABULARY.length)]).join(' ');
  let clock = 0;
  let callId = 0;
  const turns: BenchTurn[] = [];
  for (let turn = 0; turn < TURNS; turn += 1) {
    clock += turn === PAUSE_TURN ? 20 * 60_000 : 60_000;
    const stepCount = Math.floor(random() * 5);
    const steps: Message[][] = [[]];
    const calls: BenchCall[] = [{ turn, step: 0, at: clock }];
    for (let step = 0; step < stepCount; step += 1) {
      const parallel = 1 + Math.floor(random() * 2);
      const toolCalls = Array.from({ length: parallel }, () => {
        callId += 1;
        const name = CACHE_BENCH_TOOLS[Math.floor(random() * CACHE_BENCH_TOOLS.length)]?.name ?? 'exec';
        return { id: `call_${callId}`, name, arguments: JSON.stringify({ path: `src/file-${callId}.ts` }) };
      });
      const results = toolCalls.map((call) => {
        const large = random() < 0.08;
        const body = large
          ? text(6_000 + Math.floor(random() * 8_000))
          : text(40 + Math.floor(random() * 400));
        return tool(body, { toolCallId: call.id, name: call.name, id: `${call.id}-result` });
      });
      const previous = steps.at(-1) ?? [];
      steps.push([...previous, assistant('', { toolCalls, id: `t${turn}-s${step}` }), ...results]);
      clock += 15_000;
      calls.push({ turn, step: step + 1, at: clock });
    }
    turns.push({
      user: user(`Turn ${turn}: ${text(20 + Math.floor(random() * 60))}`, { id: `t${turn}-user` }),
      steps,
      answer: assistant(text(30 + Math.floor(random() * 120)), { id: `t${turn}-answer` }),
      calls,
    });
    clock += 15_000;
  }
  return turns;
}

/** The stored history before a turn: every earlier turn's user message, tool loop and answer. */
export function historyBefore(turns: readonly BenchTurn[], turn: number): readonly Message[] {
  return turns.slice(0, turn).flatMap((entry) => [entry.user, ...(entry.steps.at(-1) ?? []), entry.answer]);
}

/** A summary of the first `CONSOLIDATED_TURNS` turns, as the memory writer would leave it. */
export const CONSOLIDATION_SUMMARY =
  'Turns 0–99: the user and the agent refactored the context builder, moved large tool results into files and kept the system prompt stable.';
