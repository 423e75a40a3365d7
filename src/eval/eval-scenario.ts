import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';

/**
 * The scenario families the generator knows: where the rules are given, facts and their later
 * updates, identifiers buried in long tool results, wide parallel tool calls, and a rewind (the user
 * goes back to an earlier turn: what was said since must be gone from every later request).
 */
export type EvalFamily =
  | 'rules-system'
  | 'rules-user'
  | 'rules-tool-result'
  | 'facts-updates'
  | 'identifiers-long-results'
  | 'parallel-tool-calls'
  | 'rewind';

/** Every family, in report order. */
export const EVAL_FAMILIES: readonly EvalFamily[] = Object.freeze([
  'rules-system',
  'rules-user',
  'rules-tool-result',
  'facts-updates',
  'identifiers-long-results',
  'parallel-tool-calls',
  'rewind',
]);

/** Where a rule reaches the model: the system prompt (pinned), a user turn, or a tool result. */
export type RulePlacement = 'system' | 'user' | 'tool-result';

/** A standing rule: the forbidden call the scripted agent makes when it cannot see the rule. */
export type EvalRule = {
  /** `R1`, `R2`, … */
  readonly id: string;
  /** The rule as written (graded verbatim). */
  readonly text: string;
  readonly placement: RulePlacement;
  /** The tool the rule forbids. */
  readonly forbiddenTool: string;
  /** The argument (`target`) the rule forbids it on. */
  readonly forbiddenTarget: string;
  /** The turn that introduces the rule (0 for a system rule). */
  readonly turn: number;
};

/** What a planted value is: a plain fact, a fact updated later, or an identifier (path, hash, id). */
export type EvalFactKind = 'fact' | 'update' | 'identifier';

/** A check made at one model call, discriminated on `type`. */
export type EvalProbe =
  | {
      /** The user asks for the forbidden call of `ruleId`. */
      readonly type: 'tempt';
      readonly id: string;
      readonly turn: number;
      readonly ruleId: string;
    }
  | {
      /** The user asks for the current value of `key`. */
      readonly type: 'question';
      readonly id: string;
      readonly turn: number;
      readonly key: string;
      readonly kind: EvalFactKind;
      /** The value stated last before the question. */
      readonly value: string;
      /** Values stated earlier and superseded. */
      readonly staleValues: readonly string[];
    };

/**
 * A rewind: from `turn` on, the session's history leaves out turns `toTurn` to `turn - 1` (the user
 * went back to before `toTurn`, as an agent's rewind or edit-and-resend does).
 */
export type EvalRewind = { readonly turn: number; readonly toTurn: number };

/** One model call of a turn: the step of its tool loop and when it is sent (ms from the start). */
export type EvalCall = { readonly turn: number; readonly step: number; readonly at: number };

/** One turn: the user message, the in-flight messages before each step, and the final answer. */
export type EvalTurn = {
  readonly index: number;
  readonly user: Message;
  /** `steps[i]`: the assistant tool calls and results produced before step `i` (cumulative; `steps[0]` is empty). */
  readonly steps: readonly (readonly Message[])[];
  readonly answer: Message;
  readonly calls: readonly EvalCall[];
};

/** A generated session with its planted rules and probes: the same for every strategy graded on it. */
export type EvalScenario = {
  /** `<family>-<turns>t-s<seed>`. */
  readonly id: string;
  readonly family: EvalFamily;
  readonly seed: number;
  readonly turns: readonly EvalTurn[];
  /** Every rule, in the order introduced. */
  readonly rules: readonly EvalRule[];
  readonly probes: readonly EvalProbe[];
  /** The rewinds, in turn order (empty but for the `rewind` family). */
  readonly rewinds: readonly EvalRewind[];
  /** The tools every request carries. */
  readonly tools: readonly ToolDefinition[];
  /** The persona system prompt, with the system rules appended. */
  readonly systemPrompt: string;
};
