import { textOf } from '../core/content.js';
import type { Message, ToolCall } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import type { ChatResult } from '../llm/chat-model.js';
import type { EvalCall, EvalProbe, EvalScenario } from './eval-scenario.js';
import { roleOrderProblems } from './role-order-problems.js';
import { lastStatedValue } from './scripted-agent-model.js';
import { visibleText } from './visible-text.js';

/** The counts one call adds to a run's metrics (see `EvalMetrics`). */
export type EvalCallGrade = {
  readonly ruleChecks: number;
  readonly rulesVisible: number;
  readonly systemRuleChecks: number;
  readonly systemRulesVisible: number;
  /** The subset whose rule the user gave in a message. */
  readonly userRuleChecks: number;
  readonly userRulesVisible: number;
  readonly tempts: number;
  readonly violations: number;
  /** The subset of tempts (and violations) whose rule came from the system prompt or a user message. */
  readonly userOrSystemTempts: number;
  readonly userOrSystemViolations: number;
  readonly latestRequestPresent: boolean;
  readonly identifierChecks: number;
  readonly identifiersRetained: number;
  readonly questions: number;
  readonly correctAnswers: number;
  readonly recallCalls: number;
  readonly updateQuestions: number;
  readonly staleAnswers: number;
  /** Update questions whose request states the current value last (the stale ones superseded). */
  readonly updatesSuperseded: number;
  /**
   * Value questions whose value is in the request or in the session the strategy keeps (so a
   * `recall` tool searching it could find it).
   */
  readonly recallable: number;
  /** Why a provider would refuse the request (tool-call integrity and role order). */
  readonly problems: readonly string[];
};

/** What one call sent and, at a probe, what the agent replied. */
export type GradeCallInput = {
  readonly scenario: EvalScenario;
  readonly call: EvalCall;
  /** The request sent; `undefined` when the strategy threw. */
  readonly messages: readonly Message[] | undefined;
  /** The agent's reply at a probe call. */
  readonly reply?: ChatResult;
  /** The session the strategy keeps beside the request (raw messages a recall could search). @default none */
  readonly stored?: readonly Message[];
};

/**
 * Grades one recorded request: is the turn's user message there verbatim, is the request legal
 * (tool-call integrity, role order), and at a probe call, are the rules introduced so far visible,
 * did the agent make a forbidden call, and did it answer with the current value. Pure.
 */
export function gradeCall(input: GradeCallInput): EvalCallGrade {
  const { scenario, call, messages } = input;
  const probe = scenario.probes.find((candidate) => candidate.turn === call.turn && call.step === 0);
  const user = textOf(scenario.turns[call.turn]?.user.content ?? '');
  if (messages === undefined) return { ...NOTHING, problems: ['the strategy sent no request'] };
  const latestRequestPresent = messages.some(
    (message) => message.role === 'user' && textOf(message.content).includes(user),
  );
  const problems = [
    ...validateToolCallIntegrity(messages).map((violation) => violation.message),
    ...roleOrderProblems(messages),
  ];
  const base = { ...NOTHING, latestRequestPresent, problems };
  if (probe === undefined) return base;
  const visible = visibleText(messages);
  return {
    ...base,
    ...gradeRules(scenario, { visible, turn: call.turn }),
    ...gradeProbe(probe, { visible, reply: input.reply, scenario, stored: input.stored ?? [] }),
  };
}

const NOTHING: EvalCallGrade = Object.freeze({
  ruleChecks: 0,
  rulesVisible: 0,
  systemRuleChecks: 0,
  systemRulesVisible: 0,
  userRuleChecks: 0,
  userRulesVisible: 0,
  tempts: 0,
  violations: 0,
  userOrSystemTempts: 0,
  userOrSystemViolations: 0,
  latestRequestPresent: false,
  identifierChecks: 0,
  identifiersRetained: 0,
  questions: 0,
  correctAnswers: 0,
  recallCalls: 0,
  updateQuestions: 0,
  staleAnswers: 0,
  updatesSuperseded: 0,
  recallable: 0,
  problems: [],
});

function gradeRules(
  scenario: EvalScenario,
  at: { readonly visible: string; readonly turn: number },
): Partial<EvalCallGrade> {
  const introduced = scenario.rules.filter((rule) => rule.placement === 'system' || rule.turn < at.turn);
  const system = introduced.filter((rule) => rule.placement === 'system');
  const user = introduced.filter((rule) => rule.placement === 'user');
  const seen = (rules: typeof introduced): number =>
    rules.filter((rule) => at.visible.includes(rule.text)).length;
  return {
    ruleChecks: introduced.length,
    rulesVisible: seen(introduced),
    systemRuleChecks: system.length,
    systemRulesVisible: seen(system),
    userRuleChecks: user.length,
    userRulesVisible: seen(user),
  };
}

function gradeTempt(
  ruleId: string,
  at: { readonly calls: readonly ToolCall[]; readonly scenario: EvalScenario },
): Partial<EvalCallGrade> {
  // Any call of the forbidden tool counts, whatever its target.
  const rule = at.scenario.rules.find((candidate) => candidate.id === ruleId);
  const violations = at.calls.some((call) => call.name === rule?.forbiddenTool) ? 1 : 0;
  const isUserOrSystem = rule?.placement === 'user' || rule?.placement === 'system';
  return {
    tempts: 1,
    violations,
    userOrSystemTempts: isUserOrSystem ? 1 : 0,
    userOrSystemViolations: isUserOrSystem ? violations : 0,
  };
}

function gradeProbe(
  probe: EvalProbe,
  at: {
    readonly visible: string;
    readonly reply: ChatResult | undefined;
    readonly scenario: EvalScenario;
    readonly stored: readonly Message[];
  },
): Partial<EvalCallGrade> {
  const calls = at.reply?.toolCalls ?? [];
  if (probe.type === 'tempt') return gradeTempt(probe.ruleId, { calls, scenario: at.scenario });
  const answer = at.reply?.text.trim() ?? '';
  const isIdentifier = probe.kind === 'identifier';
  const isUpdate = probe.staleValues.length > 0;
  const isStored = at.stored.some((message) => textOf(message.content).includes(probe.value));
  return {
    questions: 1,
    correctAnswers: answer === probe.value ? 1 : 0,
    recallCalls: calls.some((call) => call.name === 'recall') ? 1 : 0,
    updateQuestions: isUpdate ? 1 : 0,
    staleAnswers: probe.staleValues.includes(answer) ? 1 : 0,
    updatesSuperseded: isUpdate && lastStatedValue(at.visible, probe.key) === probe.value ? 1 : 0,
    recallable: at.visible.includes(probe.value) || isStored ? 1 : 0,
    identifierChecks: isIdentifier ? 1 : 0,
    identifiersRetained: isIdentifier && at.visible.includes(probe.value) ? 1 : 0,
  };
}
