import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { ContextGovernor } from '../filters/context-governor.js';
import { traceDecisions } from '../pipeline/build-trace.js';
import type { AiSdkMessageLike } from './ai-sdk-message-like.js';
import type { AiSdkStepTrace } from './ai-sdk-step-trace.js';
import { ctxloomMiddleware } from './ctxloom-middleware.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

function mock() {
  return new MockLanguageModelV3({
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'ok' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage,
      warnings: [],
    }),
  });
}

describe('ctxloomMiddleware', () => {
  it('governs a call made outside a tool loop and reports it with the caller’s run id', async () => {
    const model = mock();
    const steps: AiSdkStepTrace<AiSdkMessageLike>[] = [];
    const governor = new ContextGovernor({ contextWindowTokens: 100_000, maxToolResultChars: 1_000 });
    await generateText({
      model: wrapLanguageModel({
        model,
        middleware: ctxloomMiddleware({ governor }, { onStep: (step) => steps.push(step) }),
      }),
      providerOptions: { ctxloom: { runId: 'run-42' } },
      messages: [
        { role: 'user', content: 'look' },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'exec', input: {} }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'exec',
              output: { type: 'text', value: 'z'.repeat(5_000) },
            },
          ],
        },
        { role: 'user', content: 'and now?' },
      ],
    });
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ via: 'middleware', runId: 'run-42', stepNumber: 0, changed: true });
    expect(
      traceDecisions((steps[0] as AiSdkStepTrace<AiSdkMessageLike>).trace).map((decision) => decision.type),
    ).toContain('message-truncate');
    const sent = JSON.stringify(model.doGenerateCalls[0]?.prompt);
    expect(sent).not.toContain('z'.repeat(2_000));
    expect(sent).toContain('"toolName":"exec"');
  });

  it('passes the prompt through untouched when there is nothing to do', async () => {
    const model = mock();
    const steps: AiSdkStepTrace<AiSdkMessageLike>[] = [];
    await generateText({
      model: wrapLanguageModel({
        model,
        middleware: ctxloomMiddleware(
          { governor: new ContextGovernor() },
          { onStep: (step) => steps.push(step) },
        ),
      }),
      system: 'be brief',
      prompt: 'hello',
    });
    expect(steps[0]).toMatchObject({ changed: false, runId: 'call-1' });
    expect(steps[0]?.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(model.doGenerateCalls[0]?.prompt).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'hello' }] },
    ]);
  });
});
