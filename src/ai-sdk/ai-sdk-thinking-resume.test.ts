/**
 * Issue #25: an AI SDK tool loop with Anthropic extended thinking stops after a tool ran, its history
 * goes through `fromAiSdkMessages` into a session store (JSONL, SQLite, PostgreSQL when reachable,
 * memory), and a new process loads it, converts it with `toAiSdkMessages` and finishes the loop
 * against a scripted Messages API that refuses, as the real API does, a continued tool loop whose last
 * assistant turn lacks its signed thinking block, or carries a wrong signature. AI SDK 6 with
 * `@ai-sdk/anthropic` 3 on Node 20; AI SDK 7 with its Anthropic provider 4 on Node 24.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, type ModelMessage, stepCountIs, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  anthropicThinkingViolations,
  thinkingSignature,
} from '../../test/helpers/anthropic-thinking-rules.js';
import { PG_URL, pgQuery, requirePostgres } from '../../test/helpers/pg-test-server.js';
import {
  type ScriptedAnthropicServer,
  startScriptedAnthropicServer,
} from '../../test/helpers/scripted-anthropic-server.js';
import { JsonlSessionStore } from '../sessions/jsonl-session-store.js';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import { PostgresSessionStore } from '../sessions/postgres-session-store.js';
import type { SessionStore } from '../sessions/session-store.js';
import { SqliteSessionStore } from '../sessions/sqlite-session-store.js';
import { fromAiSdkMessages } from './from-ai-sdk-messages.js';
import { toAiSdkMessages } from './to-ai-sdk-messages.js';

const WORKER = fileURLToPath(new URL('../../test/fixtures/workers/ai-sdk-resume-worker.ts', import.meta.url));
/** The AI SDK major this run resolves `ai` to: 7 under Node 24 (vitest.node24.config.ts), else 6. */
const MAJOR = Number(process.versions.node.split('.')[0]) >= 22 ? '7' : '6';
const SCHEMA = `ctxloom_ai_resume_${process.pid}`;
const THINKING = { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } } as const;
const lookup = tool({
  description: 'Look a word up',
  inputSchema: z.object({ q: z.string() }),
  execute: async ({ q }) => ({ hits: q.length }),
});

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-ai-resume-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await pgQuery(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
});

function thinking(text: string) {
  return { type: 'thinking' as const, thinking: text, signature: thinkingSignature(text) };
}

/** Turn 1 (a thinking tool call), then the resumed turn: another thinking tool call, then the answer. */
function server(): Promise<ScriptedAnthropicServer> {
  return startScriptedAnthropicServer(
    [
      {
        kind: 'reply',
        content: [
          thinking('I should look up "alpha".'),
          { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'alpha' } },
        ],
      },
      {
        kind: 'reply',
        content: [
          thinking('Now "be".'),
          { type: 'tool_use', id: 'toolu_2', name: 'lookup', input: { q: 'be' } },
        ],
      },
      { kind: 'reply', content: [{ type: 'text', text: 'alpha has 5 letters, be 2.' }] },
    ],
    { check: anthropicThinkingViolations },
  );
}

/** Turn 1 in this process: one step (a signed thinking block and a tool call), the tool runs, the loop stops. */
async function firstTurn(scripted: ScriptedAnthropicServer): Promise<ModelMessage[]> {
  const messages: ModelMessage[] = [{ role: 'user', content: 'How long are alpha and be?' }];
  const result = await generateText({
    model: createAnthropic({ baseURL: scripted.baseURL, apiKey: 'test-key' })('claude-sonnet-4-5'),
    messages,
    tools: { lookup },
    stopWhen: stepCountIs(1),
    providerOptions: THINKING,
  });
  return [...messages, ...result.response.messages];
}

type Backend = {
  readonly name: 'jsonl' | 'sqlite' | 'postgres' | 'memory';
  readonly target: () => string;
  readonly open: () => SessionStore;
};
const BACKENDS: readonly Backend[] = [
  {
    name: 'jsonl',
    target: () => path.join(dir, 'sessions'),
    open: () => new JsonlSessionStore({ dir: path.join(dir, 'sessions') }),
  },
  {
    name: 'sqlite',
    target: () => path.join(dir, 'db.sqlite'),
    open: () => new SqliteSessionStore({ path: path.join(dir, 'db.sqlite') }),
  },
  {
    name: 'postgres',
    target: () => PG_URL,
    open: () => new PostgresSessionStore({ connectionString: PG_URL, schema: SCHEMA }),
  },
];

function runWorker(
  backend: Backend,
  args: { readonly key: string; readonly baseURL: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', WORKER, MAJOR, backend.name, backend.target(), args.key, args.baseURL, SCHEMA],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** The request of the resumed step: its last assistant turn starts with the signed thinking of turn 1. */
function expectResumedRequest(scripted: ScriptedAnthropicServer): void {
  expect(scripted.violations).toEqual([[], [], []]);
  const messages = scripted.requests[1]?.['messages'] as {
    role: string;
    content: Record<string, unknown>[];
  }[];
  expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  expect(messages[1]?.content.map((block) => block['type'])).toEqual(['thinking', 'tool_use']);
  expect(messages[1]?.content[0]).toEqual(thinking('I should look up "alpha".'));
  expect(messages[2]?.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1' });
}

describe.each(BACKENDS)(
  `AI SDK ${MAJOR}: a thinking tool loop saved in the $name store resumes in a new process`,
  (backend) => {
    it('finishes, sending the signed thinking block back', async (context) => {
      if (backend.name === 'postgres') requirePostgres(context);
      const scripted = await server();
      try {
        const key = `resume-${backend.name}`;
        const store = backend.open();
        await store.append(key, fromAiSdkMessages(await firstTurn(scripted)).messages);
        await store.close();
        const run = await runWorker(backend, { key, baseURL: scripted.baseURL });
        expect(run.stderr).toBe('');
        expect(run.code).toBe(0);
        const result = JSON.parse(run.stdout) as { text: string; steps: number; warnings: unknown[] };
        expect(result).toMatchObject({ text: 'alpha has 5 letters, be 2.', steps: 2, warnings: [] });
        expectResumedRequest(scripted);
        const reopened = backend.open();
        const stored = await reopened.load(key);
        await reopened.close();
        // Turn 1 (user, assistant, tool) and the resumed turn (assistant, tool, assistant).
        expect(stored.messages.map((message) => message.role)).toEqual([
          'user',
          'assistant',
          'tool',
          'assistant',
          'tool',
          'assistant',
        ]);
      } finally {
        await scripted.close();
      }
    });
  },
);

describe(`AI SDK ${MAJOR}: the memory store and the Messages API's thinking rules`, () => {
  it('resumes from a memory store in the same process', async () => {
    const scripted = await server();
    try {
      const store = new MemorySessionStore();
      await store.append('memory', fromAiSdkMessages(await firstTurn(scripted)).messages);
      const { messages, warnings } = toAiSdkMessages((await store.load('memory')).messages);
      expect(warnings).toEqual([]);
      const result = await generateText({
        model: createAnthropic({ baseURL: scripted.baseURL, apiKey: 'test-key' })('claude-sonnet-4-5'),
        messages,
        tools: { lookup },
        stopWhen: stepCountIs(5),
        providerOptions: THINKING,
      });
      expect(result.text).toBe('alpha has 5 letters, be 2.');
      expectResumedRequest(scripted);
    } finally {
      await scripted.close();
    }
  });

  it.each([
    ['without its thinking block', 'Expected `thinking` or `redacted_thinking`, but found `tool_use`'],
    ['with a wrong signature', 'Invalid `signature` in `thinking` block'],
  ])('the scripted API refuses a resumed loop %s, as the real one does', async (variant, refusal) => {
    const scripted = await server();
    try {
      const history = await firstTurn(scripted);
      const broken = history.map((message): ModelMessage => {
        if (message.role !== 'assistant' || typeof message.content === 'string') return message;
        const content = message.content.flatMap((part): (typeof message.content)[number][] => {
          if (part.type !== 'reasoning') return [part];
          return variant === 'with a wrong signature'
            ? [{ ...part, providerOptions: { anthropic: { signature: 'forged' } } }]
            : [];
        });
        return { ...message, content };
      });
      const resumed = generateText({
        model: createAnthropic({ baseURL: scripted.baseURL, apiKey: 'test-key' })('claude-sonnet-4-5'),
        messages: toAiSdkMessages(fromAiSdkMessages(broken).messages).messages,
        tools: { lookup },
        stopWhen: stepCountIs(5),
        providerOptions: THINKING,
        maxRetries: 0,
      });
      await expect(resumed).rejects.toThrow(refusal);
    } finally {
      await scripted.close();
    }
  });

  it('leaves out, through the provider, reasoning another provider signed (no thinking block Anthropic refuses)', async () => {
    const scripted = await startScriptedAnthropicServer([
      { kind: 'reply', content: [{ type: 'text', text: 'ok' }] },
    ]);
    try {
      const history: ModelMessage[] = [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            {
              type: 'reasoning',
              text: 'OpenAI reasoning',
              providerOptions: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'gAAAA' } },
            },
            { type: 'reasoning', text: 'unsigned' },
            { type: 'text', text: 'hello' },
          ],
        },
        { role: 'user', content: 'again' },
      ];
      const { messages, warnings } = toAiSdkMessages(
        JSON.parse(JSON.stringify(fromAiSdkMessages(history).messages)),
      );
      expect(warnings).toEqual([]);
      // toAiSdkMessages keeps both reasoning parts (with their options) for the provider to judge.
      expect(messages[1]).toEqual(history[1]);
      await generateText({
        model: createAnthropic({ baseURL: scripted.baseURL, apiKey: 'test-key' })('claude-sonnet-4-5'),
        messages,
        maxRetries: 0,
      });
      expect(scripted.violations).toEqual([[]]);
      const sent = scripted.requests[0]?.['messages'] as { content: { type: string }[] }[];
      expect(sent[1]?.content.map((block) => block.type)).toEqual(['text']);
    } finally {
      await scripted.close();
    }
  });
});
