/**
 * ctxloom's search as the `search` of AI SDK 7's `toolSearch()`; under AI SDK 7 (Node 24 config) a loop
 * shows the SDK's own mechanism: the discovered tool joins the tool list of the next step.
 */
import * as ai from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { MCP_TOOLS } from '../../test/fixtures/deferred-tools/mcp-tools.js';
import { createToolRegistry } from '../context-tools/tool-registry.js';
import { aiSdkToolSearch } from './ai-sdk-tool-search.js';

const registry = createToolRegistry({ deferred: MCP_TOOLS });
const search = aiSdkToolSearch(registry);
const eligible = MCP_TOOLS.map((tool) => ({ name: tool.name, description: tool.description ?? '' }));

describe('aiSdkToolSearch', () => {
  it('ranks the eligible tools by BM25 (parameter names included) or a regex, and only those', () => {
    expect(search({ query: 'create a jira issue', tools: eligible })[0]).toBe('jira__create_issue');
    expect(search({ query: 'thread_ts', tools: eligible })[0]).toBe('slack__post_message');
    expect(search({ query: '/^weather__get_(forecast|air)/', tools: eligible })).toEqual([
      'weather__get_forecast',
      'weather__get_air_quality',
    ]);
    expect(
      search({ query: 'jira', tools: eligible.filter((tool) => tool.name.startsWith('slack')) }),
    ).toEqual([]);
    expect(search({ query: '/(/', tools: eligible })).toEqual([]);
  });

  // AI SDK 7 only (`toolSearch` is new in 7): run with vitest.node24.config.ts.
  const toolSearch = (ai as Record<string, unknown>)['toolSearch'] as
    | ((options: { search: typeof search }) => object)
    | undefined;
  it.skipIf(toolSearch === undefined)(
    "AI SDK 7: the SDK's toolSearch uses ctxloom's ranking, and its tool list grows with what it discovers",
    async () => {
      const seen: string[][] = [];
      let step = 0;
      const model = new MockLanguageModelV3({
        doGenerate: async (options) => {
          seen.push((options.tools ?? []).map((tool) => tool.name));
          step += 1;
          const content =
            step === 1
              ? [
                  {
                    type: 'tool-call' as const,
                    toolCallId: 'c1',
                    toolName: 'tool_search',
                    input: '{"query":"create a jira issue"}',
                  },
                ]
              : [{ type: 'text' as const, text: 'done' }];
          return {
            content,
            finishReason: { unified: step === 1 ? 'tool-calls' : 'stop', raw: undefined },
            usage: {
              inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: 1, text: 1, reasoning: 0 },
            },
            warnings: [],
          } as never;
        },
      });
      const deferred = Object.fromEntries(
        MCP_TOOLS.slice(12, 18).map((definition) => [
          definition.name,
          {
            description: definition.description,
            inputSchema: ai.jsonSchema(definition.parameters ?? {}),
            deferLoading: true,
            execute: async () => 'ok',
          },
        ]),
      );
      await ai.generateText({
        model,
        tools: { tool_search: toolSearch?.({ search }), ...deferred } as never,
        prompt: 'File a bug.',
        stopWhen: ai.stepCountIs(3) as never,
      });
      expect(seen[0]).toEqual(['tool_search']);
      expect(seen[1]).toContain('jira__create_issue');
    },
  );
});
