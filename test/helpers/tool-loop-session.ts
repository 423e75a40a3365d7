import { assistant, tool, user } from '../../src/core/index.js';
import type { Message } from '../../src/index.js';

/** One user turn of a generated agent session: its messages in order and when its request is sent. */
export type ToolLoopTurn = {
  /** The user message, the tool loop (assistant calls, then their results) and the final answer. */
  readonly messages: readonly Message[];
  /** How many model steps the tool loop took (0 = the answer came at once). */
  readonly steps: number;
  /** When the turn's request is sent, in milliseconds from the session start. */
  readonly at: number;
};

/** Options for {@link generateToolLoopSession}. */
export type ToolLoopSessionOptions = {
  /** @default 60 */
  readonly turns?: number;
  /** @default 11 */
  readonly seed?: number;
  /** Most model steps of one tool loop. @default 12 */
  readonly maxSteps?: number;
  /** Most parallel tool calls of one step. @default 3 */
  readonly maxParallel?: number;
};

const VOCABULARY = (
  'agent reads the file then runs the tests and greps the sources for the failing function before it ' +
  'writes a patch the build passes the cache keeps the prefix stable request after request error result'
).split(' ');

/**
 * A deterministic agent session: every user turn runs a tool loop of 0–`maxSteps` steps with
 * 1–`maxParallel` parallel calls each (results of 30–300 words), then answers; one turn a minute. Long
 * loops add far more than 20 content blocks between two user turns.
 */
export function generateToolLoopSession(options: ToolLoopSessionOptions = {}): readonly ToolLoopTurn[] {
  const { turns = 60, seed = 11, maxSteps = 12, maxParallel = 3 } = options;
  let state = seed >>> 0;
  const random = (): number => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
  const between = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1));
  const text = (count: number): string =>
    Array.from({ length: count }, () => VOCABULARY[between(0, VOCABULARY.length - 1)]).join(' ');
  const session: ToolLoopTurn[] = [];
  let call = 0;
  for (let turn = 0; turn < turns; turn += 1) {
    const steps = between(0, maxSteps);
    const messages: Message[] = [user(`Turn ${turn}: ${text(between(10, 60))}`, { id: `u${turn}` })];
    for (let step = 0; step < steps; step += 1) {
      const toolCalls = Array.from({ length: between(1, maxParallel) }, () => {
        call += 1;
        return {
          id: `call_${call}`,
          name: 'read_file',
          arguments: JSON.stringify({ path: `src/f${call}.ts` }),
        };
      });
      messages.push(assistant('', { toolCalls, id: `a${turn}-${step}` }));
      for (const entry of toolCalls)
        messages.push(
          tool(text(between(30, 300)), { toolCallId: entry.id, name: entry.name, id: `r${entry.id}` }),
        );
    }
    messages.push(assistant(text(between(20, 120)), { id: `a${turn}` }));
    session.push({ messages, steps, at: turn * 60_000 });
  }
  return session;
}
