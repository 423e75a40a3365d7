/**
 * ctxloom in an AI SDK tool loop (AI SDK 6 or 7), two ways: `createPrepareStep` governs every step of
 * `generateText` (or `streamText`, `ToolLoopAgent`), `ctxloomMiddleware` every model call. Shown in
 * docs/ai-sdk.md; test/examples/ai-sdk-agent.test.ts runs it against a local scripted Anthropic server.
 * In your project, import from 'ctxloom' and 'ctxloom/ai-sdk' instead of '../src/…'.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { z } from 'zod';
import { createPrepareStep, ctxloomMiddleware } from '../src/ai-sdk/index.js';
import { ContextGovernor } from '../src/index.js';

/** Where the example runs: the Anthropic API (or a compatible server) and a folder for offloaded results. */
export type ExampleOptions = { readonly baseURL: string; readonly apiKey: string; readonly workspace: string };

const tools = {
  read_file: tool({
    description: 'Read a file of the project',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => `// ${path}\nexport const answer = 42;\n`,
  }),
  exec: tool({
    description: 'Run a shell command',
    inputSchema: z.object({ cmd: z.string() }),
    execute: async ({ cmd }) => `$ ${cmd}\n${'log line\n'.repeat(20_000)}`, // 180 KB: offloaded, never sent whole
  }),
};

const system = {
  role: 'system' as const,
  content: 'You are a careful engineer. Read before you change anything.',
  // Kept as it is by ctxloom: Anthropic caches the system prompt.
  providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
};

/** The governor: a 200k window, 8k reserved for the answer, big results offloaded to the workspace. */
function governor(workspace: string): ContextGovernor {
  return new ContextGovernor({ contextWindowTokens: 200_000, maxOutputTokens: 8_192, workspace, sessionKey: 'example' });
}

/** A tool loop of up to 10 steps, each step governed by `prepareStep`. */
export async function runWithPrepareStep(options: ExampleOptions, messages: ModelMessage[]) {
  const anthropic = createAnthropic({ baseURL: options.baseURL, apiKey: options.apiKey });
  return generateText({
    model: anthropic('claude-sonnet-4-5'),
    system,
    tools,
    messages,
    stopWhen: stepCountIs(10),
    // Pass the same tools and system: ctxloom counts them against the budget.
    prepareStep: createPrepareStep({ governor: governor(options.workspace) }, { tools, system }),
  });
}

/** The same loop with the governor as a language model middleware: it governs every call of the model. */
export async function runWithMiddleware(options: ExampleOptions, messages: ModelMessage[]) {
  const anthropic = createAnthropic({ baseURL: options.baseURL, apiKey: options.apiKey });
  const model = wrapLanguageModel({
    model: anthropic('claude-sonnet-4-5'),
    middleware: ctxloomMiddleware({ governor: governor(options.workspace) }),
  });
  return generateText({ model, system, tools, messages, stopWhen: stepCountIs(10) });
}
