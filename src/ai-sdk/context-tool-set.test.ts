/**
 * The context tools in an AI SDK tool loop (AI SDK 6 here; AI SDK 7 in the Node 24 run): a scripted
 * model calls recall, expand, context_remaining, compact_now (refused, then done), the memory tool
 * with a hostile path, and new_context; every tool result reaches the model's next request.
 */
import { rm } from 'node:fs/promises';
import { generateText, hasToolCall, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import {
  contextToolsFixture,
  FACT,
  failingMetadataStore,
  SESSION_KEY,
} from '../../test/helpers/context-tools-session.js';
import { createContextTools } from '../context-tools/create-context-tools.js';
import { ContextBuilder } from '../presets/context-builder.js';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import { loadReplayedSession } from '../sessions/replay-session.js';
import { sessionCompactions } from '../sessions/session-compactions.js';
import { sessionNotesOf } from '../sessions/session-notes-of.js';
import { createScriptedSummarizer } from '../testing/scripted-summarizer.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { contextToolSet } from './context-tool-set.js';
import { toAiSdkMessages } from './to-ai-sdk-messages.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

type Step = { readonly tool: string; readonly input: object } | { readonly text: string };

/** A model that makes the scripted calls in order, and records what it was sent. */
function scriptedModel(steps: readonly Step[], beforeStep: (index: number) => void = () => undefined) {
  let index = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      beforeStep(index);
      const step = steps[index] ?? { text: 'done' };
      index += 1;
      return 'text' in step
        ? {
            content: [{ type: 'text', text: step.text }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage,
            warnings: [],
          }
        : {
            content: [
              {
                type: 'tool-call',
                toolCallId: `call_${index}`,
                toolName: step.tool,
                input: JSON.stringify(step.input),
              },
            ],
            finishReason: { unified: 'tool-calls', raw: 'tool_use' },
            usage,
            warnings: [],
          };
    },
  });
}

/** The tool results (name, output type, text) in the last message of a prompt the model received. */
function lastToolResults(
  prompt: readonly unknown[],
): readonly { name: string; type: string; value: string }[] {
  const last = prompt.at(-1) as { role: string; content: readonly Record<string, unknown>[] };
  if (last.role !== 'tool') return [];
  return last.content.map((part) => {
    const output = part['output'] as { type: string; value: string };
    return { name: String(part['toolName']), type: output.type, value: output.value };
  });
}

const workspaces: string[] = [];
afterEach(async () => {
  for (const dir of workspaces.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('contextToolSet in an AI SDK tool loop', () => {
  it('finds a compacted fact, refuses then runs compact_now, refuses a hostile memory path, resets with notes', async () => {
    const fixture = await contextToolsFixture({ turns: 30 });
    workspaces.push(fixture.workspace);
    let used = 100;
    const contextTools = createContextTools({
      workspace: fixture.workspace,
      store: fixture.store,
      sessionKey: SESSION_KEY,
      summarizer: createScriptedSummarizer('faithful'),
      contextWindowTokens: 100_000,
      compactFloorTokens: 20_000,
      usedTokens: () => used,
      compaction: { keepRecent: 1000 },
    });
    const model = scriptedModel(
      [
        { tool: 'recall', input: { query: 'port 6543' } },
        { tool: 'expand', input: { id: 'a2x' } },
        { tool: 'context_remaining', input: {} },
        { tool: 'compact_now', input: {} },
        { tool: 'compact_now', input: { instructions: 'keep ports' } },
        { tool: 'memory', input: { command: 'view', path: '/memories/../../etc/passwd' } },
        { tool: 'new_context', input: { goal: 'Finish the migration', next_step: 'deploy' } },
        { text: 'The staging port is 6543.' },
      ],
      (index) => {
        if (index === 4) used = 90_000;
      },
    );
    const result = await generateText({
      model,
      tools: await contextToolSet(contextTools),
      prompt: 'Which port does staging use?',
      stopWhen: stepCountIs(10),
    });
    expect(result.text).toBe('The staging port is 6543.');
    const results = model.doGenerateCalls.slice(1).map((call) => lastToolResults(call.prompt)[0]);
    expect(results.map((found) => found?.name)).toEqual([
      'recall',
      'expand',
      'context_remaining',
      'compact_now',
      'compact_now',
      'memory',
      'new_context',
    ]);
    expect(results[0]?.value).toContain(FACT);
    expect(results[1]?.value).toContain(FACT);
    expect(results[2]?.value).toContain('100 tokens used');
    expect(results[3]).toMatchObject({ type: 'error-text' });
    expect(results[3]?.value).toContain('under the 20000-token floor');
    expect(results[4]).toMatchObject({ type: 'text' });
    expect(results[4]?.value).toMatch(/^Compacted: record/);
    expect(results[5]).toMatchObject({ type: 'error-text' });
    expect(results[6]?.value).toContain('New context');
    const session = await fixture.store.load(SESSION_KEY);
    expect(sessionCompactions(session).map((record) => record.trigger)).toEqual(['manual', 'tool', 'tool']);
    expect(sessionNotesOf(session)?.goal).toBe('Finish the migration');
  });

  it('refuses new_context when the notes write fails, and nothing changes', async () => {
    const inner = new MemorySessionStore();
    const { store, failing } = failingMetadataStore(inner);
    const fixture = await contextToolsFixture({ store });
    workspaces.push(fixture.workspace);
    const before = await inner.load(SESSION_KEY);
    failing.isOn = true;
    const contextTools = createContextTools({ workspace: fixture.workspace, store, sessionKey: SESSION_KEY });
    const model = scriptedModel([
      { tool: 'new_context', input: { goal: 'Ship', state: 'half done' } },
      { text: 'ok' },
    ]);
    await generateText({
      model,
      tools: await contextToolSet(contextTools),
      prompt: 'go',
      stopWhen: stepCountIs(3),
    });
    const [reply] = lastToolResults(model.doGenerateCalls[1]?.prompt ?? []);
    expect(reply?.type).toBe('error-text');
    expect(reply?.value).toContain('new_context refused');
    expect(await inner.load(SESSION_KEY)).toEqual(before);
  });

  it('stops the run at new_context; the next run, from the store, starts from the notes, the marker and the task', async () => {
    const fixture = await contextToolsFixture();
    workspaces.push(fixture.workspace);
    const contextTools = createContextTools({
      workspace: fixture.workspace,
      store: fixture.store,
      sessionKey: SESSION_KEY,
    });
    const first = scriptedModel([
      { tool: 'new_context', input: { goal: 'Finish the migration', next_step: 'deploy' } },
      { text: 'never reached' },
    ]);
    await generateText({
      model: first,
      tools: await contextToolSet(contextTools),
      prompt: 'Continue.',
      stopWhen: [stepCountIs(5), hasToolCall('new_context')],
    });
    expect(first.doGenerateCalls).toHaveLength(1);
    const replay = await loadReplayedSession(fixture.store, {
      sessionKey: SESSION_KEY,
      tokenCounter: new SimpleTokenCounter(),
      contextWindowTokens: 65_536,
      maxOutputTokens: 4096,
    });
    const built = await ContextBuilder.forAgent({ workspace: fixture.workspace, recentHistory: false }).build(
      {
        history: replay.history,
        ...(replay.notes === undefined ? {} : { notes: replay.notes }),
        current: 'Go on.',
      },
    );
    const second = scriptedModel([{ text: 'Deploying.' }]);
    // AI SDK 7 takes the system prompt only as `system`/`instructions`, never among the messages.
    const system = built.messages.filter((message) => message.role === 'system');
    const rest = built.messages.filter((message) => message.role !== 'system');
    await generateText({
      model: second,
      system: system.map((message) => String(message.content)).join('\n\n'),
      messages: toAiSdkMessages(rest).messages,
    });
    const sent = JSON.stringify(second.doGenerateCalls[0]?.prompt);
    expect(sent).toContain('Goal: Finish the migration');
    expect(sent).toContain('context-reset record=');
    expect(sent).toContain('Step 12');
    expect(sent).not.toContain('Step 11');
  });
});
