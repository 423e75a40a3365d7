import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { ContextGovernor } from '../filters/context-governor.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import type { AiSdkStepTrace } from './ai-sdk-step-trace.js';
import { createPrepareStep } from './create-prepare-step.js';

type Steps = { response: { messages: ModelMessage[] } }[];

/** `turns` turns of a user question, a tool call with its result, and an answer. */
function longHistory(turns: number, late?: { readonly systemAt: number }): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    if (turn === late?.systemAt) messages.push({ role: 'system', content: 'A late instruction.' });
    messages.push(
      { role: 'user', content: `question ${turn} `.repeat(10) },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: `call-${turn}`, toolName: 'exec', input: { turn } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `call-${turn}`,
            toolName: 'exec',
            output: { type: 'text', value: `output ${turn} `.repeat(40) },
          },
        ],
      },
      { role: 'assistant', content: `answer ${turn} `.repeat(10) },
    );
  }
  return messages;
}

function stepOf(step: number): ModelMessage[] {
  return [
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: `step-${step}`, toolName: 'exec', input: { step } }],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `step-${step}`,
          toolName: 'exec',
          output: { type: 'text', value: `step output ${step} `.repeat(50) },
        },
      ],
    },
  ];
}

/** Runs a cold step and a +1 step; returns what each returned and the governor's stage sizes. */
async function twoSteps(initial: readonly ModelMessage[], historyWindow: boolean) {
  const traces: AiSdkStepTrace<ModelMessage>[] = [];
  const governor = new ContextGovernor({
    contextWindowTokens: 8_000,
    maxOutputTokens: 512,
    tokenCounter: new SimpleTokenCounter(),
    historyWindow,
  });
  const prepareStep = createPrepareStep({ governor }, { onStep: (step) => traces.push(step) });
  const steps: Steps = [];
  const cold = await prepareStep({ stepNumber: 0, messages: [...initial], steps });
  const responses = stepOf(0);
  steps.push({ response: { messages: responses } });
  const plusOne = await prepareStep({ stepNumber: 1, messages: [...initial, ...responses], steps });
  const stageSizes = traces.map((trace) => trace.trace.stages.map((stage) => stage.messagesIn));
  return { sent: [cold, plusOne], stageSizes };
}

describe('createPrepareStep over a governor with the history window', () => {
  it('hands every filter of a +1 step a window of the history, and returns what the whole history gives', async () => {
    const initial = longHistory(1_000); // 4000 messages, far over the budget
    const windowed = await twoSteps(initial, true);
    const whole = await twoSteps(initial, false);
    expect(windowed.sent).toEqual(whole.sent);
    // Without the window every filter of the step starts from the 4002 messages.
    expect(whole.stageSizes[1]?.[0]).toBe(initial.length + 2);
    // With it, none sees more than the window: about a budget's worth of messages, not the history.
    const plusOne = windowed.stageSizes[1] ?? [];
    expect(plusOne.length).toBeGreaterThan(0);
    for (const size of plusOne) expect(size).toBeLessThan(200);
    expect(windowed.sent[1]?.messages.length).toBeLessThan(200);
  });

  it('governs the whole history when a system message would be left out', async () => {
    const initial = longHistory(300, { systemAt: 5 });
    const windowed = await twoSteps(initial, true);
    const whole = await twoSteps(initial, false);
    expect(windowed.sent).toEqual(whole.sent);
    expect(windowed.stageSizes[1]?.[0]).toBe(initial.length + 2);
  });

  it('governs the whole history when a tool call id of the window was left out', async () => {
    const initial = longHistory(300);
    // The newest turn's call reuses the id of the first turn's (the governor renames it).
    const reused = initial.map((message) =>
      JSON.parse(JSON.stringify(message).replaceAll('call-299', 'call-0')),
    );
    const windowed = await twoSteps(reused, true);
    const whole = await twoSteps(reused, false);
    expect(windowed.sent).toEqual(whole.sent);
    expect(windowed.stageSizes[1]?.[0]).toBe(reused.length + 2);
  });

  it('counts a blank tool result as the notice the governor sends for it, not as its length', async () => {
    // 20 results of 15,000 spaces: each would count 3,750 tokens as it is, but is sent as a short notice,
    // so the whole history fits and the first question must be sent.
    const blank: ModelMessage[] = Array.from({ length: 20 }, (_, turn): ModelMessage[] => [
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: `blank-${turn}`, toolName: 'exec', input: { turn } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `blank-${turn}`,
            toolName: 'exec',
            output: { type: 'text', value: ' '.repeat(15_000) },
          },
        ],
      },
    ]).flat();
    const initial: ModelMessage[] = [
      { role: 'user', content: 'first question '.repeat(250) },
      { role: 'user', content: 'and another one' },
      ...blank,
    ];
    const windowed = await twoSteps(initial, true);
    const whole = await twoSteps(initial, false);
    expect(windowed.sent).toEqual(whole.sent);
    expect(JSON.stringify(windowed.sent[1]?.messages[0])).toContain('first question');
  });
});
