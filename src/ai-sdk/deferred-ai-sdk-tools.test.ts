/**
 * Deferred tools through an AI SDK tool loop (AI SDK 6 on Node 20, 7 on Node 24): the model searches
 * 60 deferred MCP-like tools, loads one and calls it through `call_tool`; every step sends the same
 * tool list, the loaded set is stored in the session and comes back in a new loop.
 */
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AGENT_SYSTEM_PROMPT } from '../../test/fixtures/deferred-tools/drive-deferred-conversation.js';
import { EAGER_TOOLS, MCP_TOOLS } from '../../test/fixtures/deferred-tools/mcp-tools.js';
import { openAIPromptCacheRequest, simulatePromptCache } from '../cache/index.js';
import { readLoadedTools } from '../context-tools/loaded-tools.js';
import { saveLoadedTools } from '../context-tools/save-loaded-tools.js';
import { createToolRegistry } from '../context-tools/tool-registry.js';
import type { ContextError } from '../core/errors.js';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import { TiktokenTokenCounter } from '../tokens/index.js';
import { deferredAiSdkTools } from './deferred-ai-sdk-tools.js';

const registry = createToolRegistry({ tools: EAGER_TOOLS.slice(0, 1), deferred: MCP_TOOLS });
const counter = await TiktokenTokenCounter.create({ encoding: 'o200k_base' });

type Call = { readonly name: string; readonly input: unknown };

/** AI SDK tools for the registry: each deferred tool records its calls. */
function aiTools(calls: Call[]) {
  const entries = [...registry.tools, ...registry.deferred].map((definition) => [
    definition.name,
    tool({
      description: definition.description ?? '',
      inputSchema: jsonSchema<Record<string, unknown>>(definition.parameters ?? {}),
      execute: async (input) => {
        calls.push({ name: definition.name, input });
        return { ok: true, tool: definition.name };
      },
    }),
  ]);
  return Object.fromEntries(entries) as Record<string, ReturnType<typeof tool>>;
}

/** A scripted model: one tool call per step from `steps`, then "done"; records each step's tools and prompt. */
function scriptedModel(steps: readonly { readonly toolName: string; readonly input: unknown }[]) {
  const seen: { tools: string; prompt: string }[] = [];
  let step = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      seen.push({ tools: JSON.stringify(options.tools), prompt: JSON.stringify(options.prompt) });
      const next = steps[step];
      step += 1;
      return {
        content:
          next === undefined
            ? [{ type: 'text' as const, text: 'done' }]
            : [
                {
                  type: 'tool-call' as const,
                  toolCallId: `call-${step}`,
                  toolName: next.toolName,
                  input: JSON.stringify(next.input),
                },
              ],
        finishReason: { unified: next === undefined ? 'stop' : 'tool-calls', raw: undefined },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
  return { model, seen };
}

const JIRA_INPUT = { project_key: 'ENG', summary: 'Checkout fails on Safari', issue_type: 'Bug' };

describe('deferredAiSdkTools in a generateText loop', () => {
  it('searches, loads and calls a deferred tool; every step sends the same tools; the session keeps what was loaded', async () => {
    const store = new MemorySessionStore();
    await store.append('s', [{ id: 'u', role: 'user', content: 'File the Safari bug in Jira.' }]);
    const calls: Call[] = [];
    const deferred = await deferredAiSdkTools({
      registry,
      tools: aiTools(calls),
      onLoad: async (_, added) => {
        await saveLoadedTools(store, { sessionKey: 's', names: added });
      },
    });
    const { model, seen } = scriptedModel([
      { toolName: 'tool_search', input: { query: 'create a jira issue', limit: 2 } },
      { toolName: 'call_tool', input: { name: 'jira__create_issue', arguments: JIRA_INPUT } },
    ]);
    const result = await generateText({
      model,
      tools: deferred.tools,
      system: AGENT_SYSTEM_PROMPT,
      prompt: 'File the Safari bug in Jira.',
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe('done');
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((step) => step.tools)).size).toBe(1);
    // The simulated prompt cache (OpenAI's prefix rules) serves every tools block of steps 2 and 3.
    const requests = seen.map((step, index) =>
      openAIPromptCacheRequest(
        { tools: JSON.parse(step.tools) as object[], messages: JSON.parse(step.prompt) as object[] },
        { tokenCounter: counter, at: index * 1_000 },
      ),
    );
    const simulation = simulatePromptCache(requests, { provider: 'openai' });
    for (const [index, request] of requests.entries()) {
      if (index === 0) continue;
      const toolTokens = request.blocks
        .filter((block) => block.area === 'tools')
        .reduce((sum, block) => sum + block.tokens, 0);
      expect(simulation.requests[index]?.cacheReadTokens ?? 0).toBeGreaterThanOrEqual(toolTokens);
    }
    // Only the eager tool, the search tool and the dispatcher are sent: none of the 60.
    expect((JSON.parse(seen[0]?.tools ?? '[]') as { name: string }[]).map((entry) => entry.name)).toEqual([
      'read_file',
      'tool_search',
      'call_tool',
    ]);
    // The search result carried the loaded tool's schema to the model.
    expect(seen[1]?.prompt).toContain('jira__create_issue');
    expect(seen[1]?.prompt).toContain('project_key');
    expect(calls).toEqual([{ name: 'jira__create_issue', input: JIRA_INPUT }]);
    expect(deferred.loaded()).toEqual(['jira__create_issue', 'jira__get_transitions']);
    expect(readLoadedTools((await store.load('s')).metadata)).toEqual(deferred.loaded());

    // A new loop (a new process) starts from the stored set: the tool runs without a new search.
    const again = await deferredAiSdkTools({
      registry,
      tools: aiTools(calls),
      loaded: readLoadedTools((await store.load('s')).metadata),
    });
    const second = scriptedModel([
      { toolName: 'call_tool', input: { name: 'jira__create_issue', arguments: JIRA_INPUT } },
    ]);
    await generateText({
      model: second.model,
      tools: again.tools,
      prompt: 'Once more.',
      stopWhen: stepCountIs(3),
    });
    expect(calls).toHaveLength(2);
    expect(second.seen[0]?.tools).toBe(seen[0]?.tools);
  });

  it('call_tool refuses a tool not loaded yet and arguments its schema rejects; it validates as the AI SDK does', async () => {
    const calls: Call[] = [];
    const tools = {
      ...aiTools(calls),
      read_file: tool({
        inputSchema: z.object({ path: z.string() }),
        execute: async ({ path }) => `read ${path}`,
      }),
    };
    const deferred = await deferredAiSdkTools({ registry, tools, loaded: ['weather__get_forecast'] });
    const { model, seen } = scriptedModel([
      { toolName: 'call_tool', input: { name: 'jira__create_issue', arguments: JIRA_INPUT } },
      { toolName: 'call_tool', input: { name: 'read_file', arguments: { path: 7 } } },
      { toolName: 'call_tool', input: { name: 'weather__get_forecast', arguments: { days: 'two' } } },
    ]);
    await generateText({ model, tools: deferred.tools, prompt: 'Go.', stopWhen: stepCountIs(5) });
    expect(seen[1]?.prompt).toMatch(/not loaded/);
    expect(seen[2]?.prompt).toMatch(/Invalid arguments for read_file/);
    // A `jsonSchema()` without a validator validates nothing, in a direct AI SDK call as through
    // call_tool: the loaded tool runs (only the not-loaded and the zod-rejected calls did not).
    expect(calls).toEqual([{ name: 'weather__get_forecast', input: { days: 'two' } }]);
  });

  it('rejects a registry tool without an AI SDK tool, a tool the registry lacks, and unknown options', async () => {
    const calls: Call[] = [];
    const { jira__create_issue: _, ...withoutJira } = aiTools(calls);
    await expect(deferredAiSdkTools({ registry, tools: withoutJira })).rejects.toThrow(
      /missing jira__create_issue/,
    );
    await expect(
      deferredAiSdkTools({
        registry,
        tools: { ...aiTools(calls), extra: tool({ inputSchema: z.object({}) }) },
      }),
    ).rejects.toThrow(/not in the registry extra/);
    const error = await deferredAiSdkTools({
      registry,
      tools: aiTools(calls),
      onload: () => {},
    } as never).catch((caught: unknown) => caught);
    expect((error as ContextError).code).toBe('INVALID_OPTIONS');
  });
});
