import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { assistant, system, tool, user } from '../core/factories.js';
import { generateScenario } from './generate-scenario.js';
import { gradeCall } from './grade-call.js';
import { paretoFront } from './pareto-front.js';
import { roleOrderProblems } from './role-order-problems.js';

const scenario = generateScenario({ family: 'rules-user', turns: 40, seed: 2 });
const tempt = scenario.probes.find((probe) => probe.type === 'tempt');
if (tempt === undefined) throw new Error('the rules-user scenario has a tempting turn');
const turn = scenario.turns[tempt.turn];
const call = { turn: tempt.turn, step: 0, at: 0 };
const rules = scenario.rules.map((rule) => rule.text).join('\n');

describe('gradeCall', () => {
  it('counts the rules visible, the violation and the latest request at a tempting turn', () => {
    if (turn === undefined) throw new Error('turn exists');
    const forbidden = scenario.rules.find((rule) => rule.id === tempt.ruleId)?.forbiddenTool ?? '';
    const reply = {
      text: '',
      finishReason: 'tool-calls' as const,
      toolCalls: [{ id: 'x', name: forbidden, arguments: '{}' }],
      usage: {},
    };
    const blind = gradeCall({ scenario, call, messages: [system('persona'), turn.user], reply });
    expect(blind).toMatchObject({
      ruleChecks: 3,
      rulesVisible: 0,
      tempts: 1,
      violations: 1,
      latestRequestPresent: true,
    });
    const seen = gradeCall({ scenario, call, messages: [system(`persona\n${rules}`), turn.user] });
    expect(seen).toMatchObject({ rulesVisible: 3, violations: 0, problems: [] });
  });

  it('counts user rules and their tempts apart, an update superseded, and a value reachable in the stored session', () => {
    if (turn === undefined) throw new Error('turn exists');
    const seen = gradeCall({ scenario, call, messages: [system('persona'), user(rules), turn.user] });
    expect(seen).toMatchObject({ userRuleChecks: 3, userRulesVisible: 3, userOrSystemTempts: 1 });
    const facts = generateScenario({ family: 'rewind', turns: 40, seed: 2 });
    const question = facts.probes.find(
      (probe) =>
        probe.type === 'question' &&
        probe.staleValues.length > 0 &&
        probe.turn > (facts.rewinds[0]?.turn ?? 0),
    );
    if (question?.type !== 'question') throw new Error('the rewind scenario asks after its rewind');
    const asked = facts.turns[question.turn]?.user ?? user('');
    const at = { turn: question.turn, step: 0, at: 0 };
    const stale = question.staleValues[0] ?? '';
    const statedLast = (value: string) => user(`${question.key} = \`${value}\``);
    expect(
      gradeCall({
        scenario: facts,
        call: at,
        messages: [statedLast(stale), statedLast(question.value), asked],
      }),
    ).toMatchObject({ updateQuestions: 1, updatesSuperseded: 1, recallable: 1 });
    expect(
      gradeCall({
        scenario: facts,
        call: at,
        messages: [statedLast(question.value), statedLast(stale), asked],
      }),
    ).toMatchObject({ updatesSuperseded: 0, recallable: 1 });
    expect(gradeCall({ scenario: facts, call: at, messages: [asked] })).toMatchObject({ recallable: 0 });
    expect(
      gradeCall({ scenario: facts, call: at, messages: [asked], stored: [statedLast(question.value)] }),
    ).toMatchObject({ recallable: 1, updatesSuperseded: 0 });
  });

  it('reports a request that lost the user message or broke a tool pair', () => {
    const messages = [
      system('persona'),
      assistant('', { toolCalls: [{ id: 'c1', name: 'exec', arguments: '{}' }] }),
    ];
    const grade = gradeCall({ scenario, call: { ...call, turn: 0 }, messages });
    expect(grade.latestRequestPresent).toBe(false);
    expect(grade.problems).toHaveLength(2);
    expect(grade.problems[0]).toMatch(/call c1 has no result$/);
    expect(grade.problems[1]).toBe('the request ends with a assistant message');
  });

  it('reports a strategy that sent nothing', () => {
    expect(gradeCall({ scenario, call, messages: undefined }).problems).toEqual([
      'the strategy sent no request',
    ]);
  });
});

describe('roleOrderProblems', () => {
  it('accepts a conversation that opens on an assistant and ends on a tool result', () => {
    const messages = [
      system('s'),
      assistant('', { toolCalls: [{ id: 'c', name: 'exec', arguments: '{}' }] }),
      tool('ok', { toolCallId: 'c' }),
    ];
    expect(roleOrderProblems(messages)).toEqual([]);
  });

  it('rejects a system message after the conversation started', () => {
    expect(roleOrderProblems([system('s'), user('u'), system('late'), user('v')])).toEqual([
      'system message at index 2 after the conversation started',
    ]);
  });
});

describe('paretoFront', () => {
  const point = fc.record({
    cost: fc.double({ min: 0, max: 100, noNaN: true }),
    quality: fc.double({ min: 0, max: 1, noNaN: true }),
  });

  test.prop([fc.array(point, { minLength: 1, maxLength: 20 })])(
    'keeps exactly the points no other point beats on both axes',
    (points) => {
      const front = paretoFront(points);
      expect(front.length).toBeGreaterThan(0);
      for (const kept of front)
        expect(points.some((other) => other.cost < kept.cost && other.quality > kept.quality)).toBe(false);
      for (const left of points.filter((candidate) => !front.includes(candidate)))
        expect(front.some((kept) => kept.cost <= left.cost && kept.quality >= left.quality)).toBe(true);
    },
  );
});
