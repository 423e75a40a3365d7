import { describe, expect, it } from 'vitest';
import {
  AGENT_SYSTEM_PROMPT,
  type DrivenRequest,
  driveDeferredConversation,
} from '../../test/fixtures/deferred-tools/drive-deferred-conversation.js';
import { EAGER_TOOLS, MCP_TOOLS } from '../../test/fixtures/deferred-tools/mcp-tools.js';
import type { PromptCacheRequest } from '../adapters/prompt-cache-request.js';
import type { AnthropicCacheInput } from '../adapters/to-prompt-cache-request.js';
import {
  anthropicPromptCacheRequest,
  openAIPromptCacheRequest,
  simulatePromptCache,
} from '../cache/index.js';
import { TiktokenTokenCounter } from '../tokens/index.js';
import {
  anthropicDeferredTools,
  createToolRegistry,
  DEFERRED_TOOL_MECHANISMS,
  type DeferredToolMechanism,
  neutralDeferredTools,
  openAIResponsesDeferredTools,
} from './index.js';

const counter = await TiktokenTokenCounter.create({ encoding: 'o200k_base' });
const registry = createToolRegistry({ tools: EAGER_TOOLS, deferred: MCP_TOOLS });

function providerOf(mechanism: DeferredToolMechanism): 'anthropic' | 'openai' {
  return mechanism.startsWith('anthropic') ? 'anthropic' : 'openai';
}

function cacheRequest(
  mechanism: DeferredToolMechanism,
  request: DrivenRequest,
  at: number,
): PromptCacheRequest {
  if (providerOf(mechanism) === 'anthropic') {
    return anthropicPromptCacheRequest(
      { tools: request.tools, ...request.body } as unknown as AnthropicCacheInput,
      { tokenCounter: counter, at, model: 'claude-sonnet-4-5' },
    );
  }
  const messages = (request.body['messages'] ?? request.body['input']) as readonly object[];
  return openAIPromptCacheRequest({ tools: request.tools, messages }, { tokenCounter: counter, at });
}

/** Share of the tools blocks of requests 2.. that the simulated cache served (the tools prefix hit rate). */
function toolsPrefixHitRate(mechanism: DeferredToolMechanism, requests: readonly DrivenRequest[]): number {
  const cacheRequests = requests.map((request, index) => cacheRequest(mechanism, request, index * 10_000));
  const simulation = simulatePromptCache(cacheRequests, { provider: providerOf(mechanism) });
  let read = 0;
  let total = 0;
  for (const [index, request] of cacheRequests.entries()) {
    if (index === 0) continue;
    const toolTokens = request.blocks
      .filter((block) => block.area === 'tools')
      .reduce((sum, block) => sum + block.tokens, 0);
    read += Math.min(simulation.requests[index]?.cacheReadTokens ?? 0, toolTokens);
    total += toolTokens;
  }
  return total === 0 ? 1 : read / total;
}

describe('deferred tools keep the tools prefix byte-stable (60 MCP-like tools)', () => {
  it.each(DEFERRED_TOOL_MECHANISMS)(
    '%s: the same tools bytes before and after loading, 100%% tools-prefix cache hits',
    (mechanism) => {
      const requests = driveDeferredConversation(registry, mechanism);
      expect(requests).toHaveLength(5);
      // Tools really were loaded along the way: none at first, both at the end.
      expect(requests[0]?.loaded).toEqual([]);
      expect(requests.at(-1)?.loaded).toEqual(
        expect.arrayContaining(['jira__create_issue', 'weather__get_forecast']),
      );
      const bytes = new Set(requests.map((request) => JSON.stringify(request.tools)));
      expect(bytes.size).toBe(1);
      expect(toolsPrefixHitRate(mechanism, requests)).toBe(1);
    },
  );

  it('a tool list that grows as tools load (the naive way) misses the cache: the measure can fail', () => {
    const requests = driveDeferredConversation(registry, 'openai-tool-search').map((request) => ({
      ...request,
      tools: [
        ...openAIResponsesDeferredTools(registry),
        ...request.loaded.map((name) => ({
          type: 'function',
          name,
          parameters: registry.deferredTool(name)?.parameters,
        })),
      ],
    }));
    expect(new Set(requests.map((request) => JSON.stringify(request.tools))).size).toBeGreaterThan(1);
    expect(toolsPrefixHitRate('openai-tool-search', requests)).toBeLessThan(1);
  });

  it('saves most of the tool tokens of every request against sending all 60 (exact o200k counts)', () => {
    const all = counter.countTools([...EAGER_TOOLS, ...MCP_TOOLS]);
    const neutral = counter.countTools(neutralDeferredTools(registry));
    const inline = counter.countText(
      JSON.stringify(anthropicDeferredTools(registry, { mechanism: 'anthropic-inline' })),
    );
    // Anthropic tool search sends the deferred definitions with defer_loading: true, kept out of the prompt.
    const native = counter.countText(
      JSON.stringify(anthropicDeferredTools(registry).filter((tool) => tool['defer_loading'] !== true)),
    );
    const responses = counter.countText(JSON.stringify(openAIResponsesDeferredTools(registry)));
    const figures = { all, neutral, inline, native, responses };
    // The figures the docs quote (docs/deferred-tools.md): a change to the fixture or the tools shows here.
    expect(figures).toMatchInlineSnapshot(`
      {
        "all": 8859,
        "inline": 561,
        "native": 561,
        "neutral": 638,
        "responses": 594,
      }
    `);
    for (const value of [neutral, inline, native, responses]) expect(value / all).toBeLessThan(0.1);
    expect(counter.countText(AGENT_SYSTEM_PROMPT)).toBeGreaterThan(1024);
  });
});
