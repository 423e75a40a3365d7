/**
 * The packed-tarball smoke test for `ctxloom/ai-sdk` (scripts/smoke-tarball.sh runs it in a fresh
 * project with `ai` installed): a two-step `generateText` tool loop against the AI SDK's mock model,
 * every step governed by `createPrepareStep`. The tool's 60 KB output is over the governor's limit,
 * so the second request carries a shortened result; the script fails loudly if it does not.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { ContextGovernor } from 'ctxloom';
import { createPrepareStep } from 'ctxloom/ai-sdk';

const workspace = await mkdtemp(join(tmpdir(), 'ctxloom-ai-sdk-smoke-'));
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const prompts: string[] = [];
let call = 0;
const model = new MockLanguageModelV3({
  doGenerate: async (options) => {
    prompts.push(JSON.stringify(options.prompt));
    call += 1;
    const content =
      call === 1
        ? [{ type: 'tool-call' as const, toolCallId: 'call_1', toolName: 'exec', input: '{"cmd":"npm test"}' }]
        : [{ type: 'text' as const, text: 'All green.' }];
    return { content, finishReason: { unified: call === 1 ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [] };
  },
});

const tools = {
  exec: tool({
    description: 'Run a shell command',
    inputSchema: jsonSchema<{ cmd: string }>({ type: 'object', properties: { cmd: { type: 'string' } } }),
    execute: async ({ cmd }) => `$ ${cmd}\n${'log line\n'.repeat(6_000)}`,
  }),
};

const governor = new ContextGovernor({ contextWindowTokens: 32_000, maxOutputTokens: 1_024, workspace, sessionKey: 'smoke' });
const result = await generateText({
  model,
  system: 'You are a careful engineer.',
  tools,
  prompt: 'Run the tests.',
  stopWhen: stepCountIs(3),
  prepareStep: createPrepareStep({ governor }, { tools, system: 'You are a careful engineer.' }),
});

const second = prompts[1] ?? '';
if (result.text !== 'All green.' || prompts.length !== 2 || second.length > 40_000 || !second.includes('call_1')) {
  throw new Error(`ai-sdk smoke failed: ${prompts.length} requests, second request ${second.length} chars`);
}
process.stdout.write(`ctxloom/ai-sdk: ${prompts.length} governed steps, second request ${second.length} chars\n`);
