/**
 * The context tools through the official OpenAI and Anthropic SDKs, pointed at scripted local
 * servers: the model's tool calls are answered by `openAIContextTools` / `anthropicContextTools`, and
 * each result is checked in the next request the server receives.
 */
import { rm } from 'node:fs/promises';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  contextToolsFixture,
  FACT,
  failingMetadataStore,
  SESSION_KEY,
} from '../../test/helpers/context-tools-session.js';
import {
  type ScriptedAnthropicReply,
  startScriptedAnthropicServer,
} from '../../test/helpers/scripted-anthropic-server.js';
import { type ScriptedReply, startScriptedOpenAIServer } from '../../test/helpers/scripted-openai-server.js';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import { sessionCompactions } from '../sessions/session-compactions.js';
import { createScriptedSummarizer } from '../testing/scripted-summarizer.js';
import { anthropicContextTools } from './anthropic-context-tools.js';
import { createContextTools } from './create-context-tools.js';
import { openAIContextTools } from './openai-context-tools.js';

const workspaces: string[] = [];
afterEach(async () => {
  for (const dir of workspaces.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** The script both providers follow: name and input of each call, then a final answer. */
const CALLS: readonly { readonly name: string; readonly input: object }[] = [
  { name: 'recall', input: { query: '/port \\d{4}/' } },
  { name: 'expand', input: { id: 'cmp-1' } },
  { name: 'compact_now', input: {} },
  { name: 'compact_now', input: { instructions: 'keep ports' } },
  { name: 'memory', input: { command: 'create', path: '/memories/%2e%2e/escape.md', file_text: 'x' } },
  { name: 'new_context', input: { goal: 'Finish the migration', open_tasks: ['deploy'] } },
];

async function setUp(options: { readonly failingNotes?: boolean } = {}) {
  const inner = new MemorySessionStore();
  const { store, failing } = failingMetadataStore(inner);
  const fixture = await contextToolsFixture({ store, turns: 30 });
  workspaces.push(fixture.workspace);
  failing.isOn = options.failingNotes === true;
  let used = 100;
  const tools = createContextTools({
    workspace: fixture.workspace,
    store,
    sessionKey: SESSION_KEY,
    summarizer: createScriptedSummarizer('faithful'),
    compactFloorTokens: 20_000,
    usedTokens: () => used,
    compaction: { keepRecent: 1000 },
  });
  return { tools, inner, setUsed: (value: number) => (used = value) };
}

function expectScriptResults(results: readonly { readonly text: string; readonly isError: boolean }[]): void {
  expect(results[0]?.text).toContain(FACT);
  expect(results[1]?.text).toContain(`Checked: ${FACT}.`);
  expect(results[2]).toMatchObject({ isError: true });
  expect(results[2]?.text).toContain('under the 20000-token floor');
  expect(results[3]?.text).toMatch(/Compacted: record/);
  expect(results[4]?.isError).toBe(true);
  expect(results[5]?.text).toContain('New context');
}

describe('the context tools through the OpenAI SDK', () => {
  it('answers every call of a chat-completions tool loop', async () => {
    const { tools, inner, setUsed } = await setUp();
    const script: ScriptedReply[] = [
      ...CALLS.map(
        (call, index): ScriptedReply => ({
          kind: 'reply',
          content: null,
          finishReason: 'tool_calls',
          toolCalls: [{ id: `call_${index}`, name: call.name, arguments: JSON.stringify(call.input) }],
        }),
      ),
      { kind: 'reply', content: 'Staging uses port 6543.' },
    ];
    const server = await startScriptedOpenAIServer(script);
    try {
      const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'test', maxRetries: 0 });
      await runOpenAILoop(client, { openai: openAIContextTools(tools), setUsed });
      expect(server.requests[0]?.['tools']).toHaveLength(tools.definitions.length);
      const results = server.requests.slice(1).map((body) => {
        const last = (body['messages'] as { role: string; content: string }[]).at(-1);
        return { text: last?.content ?? '', isError: (last?.content ?? '').startsWith('Error: ') };
      });
      expectScriptResults(results);
      expect(sessionCompactions(await inner.load(SESSION_KEY)).map((record) => record.kind)).toEqual([
        'summary',
        'summary',
        'notes',
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('the context tools through the Anthropic SDK', () => {
  it('answers every tool_use, with the memory tool as the native memory_20250818 type', async () => {
    const { tools, setUsed } = await setUp();
    const script: ScriptedAnthropicReply[] = [
      ...CALLS.map(
        (call, index): ScriptedAnthropicReply => ({
          kind: 'reply',
          content: [
            {
              type: 'tool_use',
              id: `toolu_${index}`,
              name: call.name,
              input: call.input as Record<string, unknown>,
            },
          ],
          stopReason: 'tool_use',
        }),
      ),
      { kind: 'reply', content: [{ type: 'text', text: 'Staging uses port 6543.' }] },
    ];
    const server = await startScriptedAnthropicServer(script);
    try {
      const client = new Anthropic({ baseURL: server.origin, apiKey: 'test', maxRetries: 0 });
      const anthropic = anthropicContextTools(tools);
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Which port?' }];
      for (let step = 0; step < 10; step += 1) {
        if (step === 3) setUsed(90_000);
        const reply = await client.messages.create({
          model: 'claude-test',
          max_tokens: 1000,
          messages,
          tools: [...anthropic.tools],
        });
        messages.push({ role: 'assistant', content: reply.content });
        const uses = reply.content.filter((block) => block.type === 'tool_use');
        if (uses.length === 0) break;
        messages.push({
          role: 'user',
          content: await Promise.all(uses.map((block) => anthropic.execute(block))),
        });
      }
      expect(server.violations.flat()).toEqual([]);
      const sent = server.requests[0]?.['tools'] as Record<string, unknown>[];
      expect(sent.find((tool) => tool['name'] === 'memory')).toEqual({
        type: 'memory_20250818',
        name: 'memory',
      });
      const results = server.requests.slice(1).map((body) => {
        const last = (body['messages'] as { content: { content: string; is_error?: boolean }[] }[]).at(-1);
        const block = last?.content[0];
        return { text: block?.content ?? '', isError: block?.is_error === true };
      });
      expectScriptResults(results);
    } finally {
      await server.close();
    }
  });

  it('refuses new_context when the notes write fails, and the session is unchanged', async () => {
    const { tools, inner } = await setUp({ failingNotes: true });
    const before = await inner.load(SESSION_KEY);
    const server = await startScriptedAnthropicServer([
      {
        kind: 'reply',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'new_context', input: { goal: 'Ship' } }],
        stopReason: 'tool_use',
      },
      { kind: 'reply', content: [{ type: 'text', text: 'ok' }] },
    ]);
    try {
      const client = new Anthropic({ baseURL: server.origin, apiKey: 'test', maxRetries: 0 });
      const anthropic = anthropicContextTools(tools, { isNativeMemory: false });
      const first = await client.messages.create({
        model: 'claude-test',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'go' }],
        tools: [...anthropic.tools],
      });
      const use = first.content.find((block) => block.type === 'tool_use');
      if (use === undefined) throw new Error('no tool_use');
      const result = await anthropic.execute(use);
      expect(result.is_error).toBe(true);
      expect(result.content).toContain('new_context refused');
      expect(await inner.load(SESSION_KEY)).toEqual(before);
    } finally {
      await server.close();
    }
  });
});

/** A chat-completions tool loop whose tool calls the context tools answer (usage raised before step 3). */
async function runOpenAILoop(
  client: OpenAI,
  loop: { readonly openai: ReturnType<typeof openAIContextTools>; readonly setUsed: (value: number) => void },
): Promise<void> {
  const { openai } = loop;
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Which port?' }];
  for (let step = 0; step < 10; step += 1) {
    if (step === 3) loop.setUsed(90_000);
    const completion = await client.chat.completions.create({
      model: 'gpt-test',
      messages,
      tools: [...openai.tools],
    });
    const message = completion.choices[0]?.message;
    if (message === undefined) throw new Error('no choice');
    messages.push(message);
    const calls = (message.tool_calls ?? []).filter((call) => call.type === 'function');
    if (calls.length === 0) return;
    for (const call of calls) {
      expect(openai.handles(call)).toBe(true);
      messages.push(await openai.execute(call));
    }
  }
}
