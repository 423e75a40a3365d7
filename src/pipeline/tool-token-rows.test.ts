import { describe, expect, it } from 'vitest';
import { EAGER_TOOLS, MCP_TOOLS } from '../../test/fixtures/deferred-tools/mcp-tools.js';
import { neutralDeferredTools } from '../context-tools/deferred-request-tools.js';
import { createToolRegistry } from '../context-tools/tool-registry.js';
import { user } from '../core/factories.js';
import { TiktokenTokenCounter } from '../tokens/index.js';
import { ContextPipeline } from './context-pipeline.js';
import type { MessageProvider } from './contracts.js';

const history: MessageProvider = { id: 'history', getMessages: (input) => input.history ?? [] };
const counter = await TiktokenTokenCounter.create({ encoding: 'o200k_base' });

describe('per-tool token cost in the build trace', () => {
  it('lists each sent tool, then each deferred one (not sent, not in the totals), counted alone', async () => {
    const registry = createToolRegistry({ tools: EAGER_TOOLS, deferred: MCP_TOOLS });
    const tools = neutralDeferredTools(registry);
    const pipeline = new ContextPipeline({ providers: [history], tokenCounter: counter });
    const { trace } = await pipeline.build({
      history: [user('hi', { id: 'u' })],
      tools,
      deferredTools: registry.deferred,
    });
    const rows = trace.tools ?? [];
    expect(rows.map((row) => row.name)).toEqual([...tools, ...MCP_TOOLS].map((tool) => tool.name));
    expect(rows.slice(0, tools.length).every((row) => row.deferred === undefined)).toBe(true);
    expect(rows.slice(tools.length).every((row) => row.deferred === true)).toBe(true);
    expect(rows.find((row) => row.name === 'jira__create_issue')?.tokens).toBe(
      counter.countTools([registry.deferredTool('jira__create_issue') ?? { name: '' }]),
    );
    // The sent rows add up to the tools' total within the list's brackets and commas (two tokens a tool); deferred ones are not counted.
    const sent = rows.filter((row) => row.deferred === undefined).reduce((sum, row) => sum + row.tokens, 0);
    expect(Math.abs(sent - trace.toolTokens)).toBeLessThanOrEqual(2 * tools.length);
    expect(trace.toolTokens).toBe(counter.countTools(tools));
    expect(trace.totalTokens).toBe(
      trace.toolTokens + trace.sections.reduce((sum, section) => sum + section.tokens, 0),
    );
  });

  it('has no rows without tools, and rejects deferredTools that are not tool definitions', async () => {
    const pipeline = new ContextPipeline({ providers: [history] });
    expect((await pipeline.build({ history: [user('hi', { id: 'u' })] })).trace.tools).toBeUndefined();
    await expect(pipeline.build({ deferredTools: [{ description: 'x' }] as never })).rejects.toThrow(
      /deferredTools\[0\]\.name/,
    );
  });
});
