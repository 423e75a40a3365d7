import { describe, expect, it } from 'vitest';
import { EAGER_TOOLS, MCP_TOOLS } from '../../test/fixtures/deferred-tools/mcp-tools.js';
import { fromAnthropicMessages } from '../adapters/index.js';
import type { ContextError } from '../core/errors.js';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import { catchError } from '../testing/catch-error.js';
import { visibleLoadedTools } from './carry-loaded-tools.js';
import { anthropicDeferredTools } from './deferred-request-tools.js';
import { handleDeferredToolCall } from './handle-deferred-tool-call.js';
import { openAIToolSearchOutput } from './openai-tool-search-output.js';
import { saveLoadedTools } from './save-loaded-tools.js';
import { createToolRegistry } from './tool-registry.js';

const registry = createToolRegistry({ tools: EAGER_TOOLS, deferred: MCP_TOOLS });

describe('createToolRegistry', () => {
  it('searches deferred tools by words (BM25) and by /regex/, at most maxResults, over parameter names too', () => {
    const jira = registry.search('create a jira issue');
    expect(jira.type === 'matches' && jira.mode).toBe('bm25');
    expect(jira.type === 'matches' && jira.matches[0]?.name).toBe('jira__create_issue');
    const slack = registry.search('/^slack__/');
    expect(slack.type === 'matches' && slack.matches.map((match) => match.name)).toEqual([
      'slack__post_message',
      'slack__list_channels',
      'slack__get_channel_history',
      'slack__add_reaction',
      'slack__get_user_profile',
    ]);
    // A parameter name only ("thread_ts" is a parameter of slack__post_message).
    const parameter = registry.search('thread_ts', { limit: 1 });
    expect(parameter.type === 'matches' && parameter.matches.map((match) => match.name)).toEqual([
      'slack__post_message',
    ]);
    // Name matches rank before description matches under a regex.
    const forecast = registry.search('/forecast/i', { limit: 3 });
    expect(forecast.type === 'matches' && forecast.matches.map((match) => match.score)).toEqual([2, 2]);
    // Eager tools are not searched.
    const eager = registry.search('/read_file/');
    expect(eager.type === 'matches' && eager.matches).toEqual([]);
    expect(registry.search('refund', { limit: 99 }).type).toBe('matches');
  });

  it('refuses a bad pattern, an over-long pattern and unknown flags as an invalid query, not a throw', () => {
    expect(registry.search('/(unclosed/')).toMatchObject({
      type: 'invalid-query',
      message: expect.stringMatching(/Not a valid regular expression/),
    });
    expect(registry.search(`/${'a'.repeat(201)}/`)).toMatchObject({
      type: 'invalid-query',
      message: expect.stringMatching(/201 characters/),
    });
    expect(registry.search('/a/g')).toMatchObject({
      type: 'invalid-query',
      message: expect.stringMatching(/flag g/),
    });
  });

  it('rejects unknown options, duplicate names (the search tools included) and a bad maxResults', () => {
    expect(
      (catchError(() => createToolRegistry({ deferred: [], maxResult: 3 } as never)) as ContextError).code,
    ).toBe('INVALID_OPTIONS');
    const duplicate = catchError(() =>
      createToolRegistry({ tools: [{ name: 'x' }], deferred: [{ name: 'x' }] }),
    ) as ContextError;
    expect(duplicate.message).toMatch(/two tools named "x"/);
    const clash = catchError(() =>
      createToolRegistry({ deferred: [{ name: 'tool_search' }] }),
    ) as ContextError;
    expect(clash.message).toMatch(/searchToolName/);
    expect(
      (catchError(() => createToolRegistry({ deferred: [], maxResults: 0 })) as ContextError).message,
    ).toMatch(/positive integer/);
  });
});

describe('handleDeferredToolCall', () => {
  const search = { id: 's1', name: 'tool_search', arguments: '{"query":"/__create_issue$/","limit":2}' };

  it('neutral: a search loads its matches and returns their definitions; call_tool forwards a loaded tool', () => {
    const outcome = handleDeferredToolCall(search, {
      registry: registry,
      mechanism: 'neutral',
      loaded: ['github__create_issue'],
    });
    if (outcome.type !== 'search') throw new Error(outcome.type);
    expect(outcome.matches.map((match) => match.name)).toEqual([
      'github__create_issue',
      'jira__create_issue',
    ]);
    expect(outcome.added).toEqual(['jira__create_issue']);
    expect(outcome.loaded).toEqual(['github__create_issue', 'jira__create_issue']);
    const [result] = outcome.messages;
    expect(result).toMatchObject({
      role: 'tool',
      toolCallId: 's1',
      name: 'tool_search',
      metadata: { loadedTools: ['github__create_issue', 'jira__create_issue'] },
    });
    const payload = JSON.parse(String(result?.content)) as {
      loaded: { name: string; parameters: unknown }[];
    };
    expect(payload.loaded[1]).toEqual(registry.deferredTool('jira__create_issue'));
    const call = {
      id: 'c1',
      name: 'call_tool',
      arguments: '{"name":"jira__create_issue","arguments":{"project_key":"ENG"}}',
    };
    expect(
      handleDeferredToolCall(call, { registry: registry, mechanism: 'neutral', loaded: outcome.loaded }),
    ).toEqual({
      type: 'call',
      call: { id: 'c1', name: 'jira__create_issue', arguments: '{"project_key":"ENG"}' },
    });
  });

  it('refuses call_tool for a tool not loaded or unknown, and bad arguments, with an error result', () => {
    const call = (args: string) => ({ id: 'c2', name: 'call_tool', arguments: args });
    const notLoaded = handleDeferredToolCall(call('{"name":"stripe__create_refund","arguments":{}}'), {
      registry: registry,
      mechanism: 'neutral',
      loaded: [],
    });
    expect(notLoaded).toMatchObject({
      type: 'invalid',
      reason: expect.stringMatching(/not loaded.*\/\^stripe__create_refund\$\//),
    });
    expect(notLoaded.type === 'invalid' && notLoaded.messages[0]).toMatchObject({
      role: 'tool',
      toolCallId: 'c2',
      metadata: { isError: true },
    });
    expect(
      handleDeferredToolCall(call('{"name":"nope","arguments":{}}'), {
        registry: registry,
        mechanism: 'neutral',
        loaded: [],
      }),
    ).toMatchObject({ reason: expect.stringMatching(/no tool named "nope"/) });
    expect(
      handleDeferredToolCall(call('{"name":"x"}'), { registry: registry, mechanism: 'neutral', loaded: [] })
        .type,
    ).toBe('invalid');
    expect(
      handleDeferredToolCall(
        { ...search, arguments: 'not json' },
        { registry: registry, mechanism: 'neutral', loaded: [] },
      ).type,
    ).toBe('invalid');
    expect(
      handleDeferredToolCall(
        { ...search, arguments: '{"query":"/(/"}' },
        { registry: registry, mechanism: 'neutral', loaded: [] },
      ).type,
    ).toBe('invalid');
    // Eager tools through call_tool are forwarded too.
    expect(
      handleDeferredToolCall(call('{"name":"read_file","arguments":{"path":"a"}}'), {
        registry: registry,
        mechanism: 'neutral',
        loaded: [],
      }).type,
    ).toBe('call');
  });

  it('native mechanisms: a deferred tool called before it was loaded is refused, after it is left to the caller', () => {
    const direct = { id: 'd1', name: 'jira__create_issue', arguments: '{}' };
    expect(
      handleDeferredToolCall(direct, { registry: registry, mechanism: 'anthropic-tool-search', loaded: [] })
        .type,
    ).toBe('invalid');
    expect(
      handleDeferredToolCall(direct, {
        registry: registry,
        mechanism: 'anthropic-tool-search',
        loaded: ['jira__create_issue'],
      }),
    ).toEqual({ type: 'other' });
    expect(
      handleDeferredToolCall(
        { id: 'e', name: 'read_file', arguments: '{}' },
        { registry: registry, mechanism: 'neutral', loaded: [] },
      ),
    ).toEqual({ type: 'other' });
  });

  it('anthropic-tool-search answers with tool_reference blocks; anthropic-inline with tool_addition blocks', () => {
    const native = handleDeferredToolCall(search, {
      registry: registry,
      mechanism: 'anthropic-tool-search',
      loaded: [],
    });
    expect(native.type === 'search' && native.messages[0]?.content).toEqual([
      { type: 'text', text: 'Loaded: github__create_issue, jira__create_issue.' },
      {
        type: 'provider',
        format: 'anthropic',
        kind: 'tool_reference',
        value: { type: 'tool_reference', tool_name: 'github__create_issue' },
      },
      {
        type: 'provider',
        format: 'anthropic',
        kind: 'tool_reference',
        value: { type: 'tool_reference', tool_name: 'jira__create_issue' },
      },
    ]);
    const inline = handleDeferredToolCall(search, {
      registry: registry,
      mechanism: 'anthropic-inline',
      loaded: [],
    });
    if (inline.type !== 'search') throw new Error(inline.type);
    expect(inline.messages.map((message) => message.role)).toEqual(['tool', 'user']);
    expect(inline.messages[1]?.content).toEqual([
      expect.objectContaining({
        kind: 'tool_addition',
        value: {
          type: 'tool_addition',
          tool: {
            type: 'tool_definition',
            definition: expect.objectContaining({
              name: 'github__create_issue',
              input_schema: expect.objectContaining({ type: 'object' }),
            }),
          },
        },
      }),
      expect.objectContaining({ kind: 'tool_addition' }),
    ]);
  });

  it('a search with no match loads nothing and says so', () => {
    const outcome = handleDeferredToolCall(
      { ...search, arguments: '{"query":"zzzz qqqq"}' },
      { registry: registry, mechanism: 'neutral', loaded: ['a'] },
    );
    expect(outcome).toMatchObject({ type: 'search', matches: [], added: [], loaded: ['a'] });
  });

  it('rejects unknown options of handleDeferredToolCall, openAIToolSearchOutput and saveLoadedTools', async () => {
    const call = { id: 'x', name: 'tool_search', arguments: '{"query":"a"}' };
    const bad = { registry, mechanism: 'neutral', loaded: [], mechansim: 'neutral' } as never;
    expect((catchError(() => handleDeferredToolCall(call, bad)) as ContextError).message).toMatch(
      /Unknown option "?mechansim/,
    );
    const item = { type: 'tool_search_call', call_id: 'c', arguments: { query: 'a' } } as const;
    expect(
      (
        catchError(() =>
          openAIToolSearchOutput(item, { registry, loaded: [], limit: 1 } as never),
        ) as ContextError
      ).code,
    ).toBe('INVALID_OPTIONS');
    const store = new MemorySessionStore();
    await expect(saveLoadedTools(store, { sessionKey: 's', names: [], name: 'x' } as never)).rejects.toThrow(
      /Unknown option/,
    );
  });

  it("reads what Anthropic's server-side search loaded from the response, and offers its server tool when asked", () => {
    const answer = fromAnthropicMessages({
      messages: [
        {
          role: 'assistant',
          content: [
            {
              type: 'server_tool_use',
              id: 'srvtoolu_1',
              name: 'tool_search_tool_regex',
              input: { query: 'jira' },
            },
            {
              type: 'tool_search_tool_result',
              tool_use_id: 'srvtoolu_1',
              content: {
                type: 'tool_search_tool_search_result',
                tool_references: [{ type: 'tool_reference', tool_name: 'jira__create_issue' }],
              },
            },
          ],
        },
      ],
    }).messages;
    expect([...visibleLoadedTools(answer)]).toEqual(['jira__create_issue']);
    const tools = anthropicDeferredTools(registry, { serverSearch: 'regex' });
    expect(tools.filter((tool) => tool['defer_loading'] === true)).toHaveLength(60);
    expect(tools).toContainEqual({ type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' });
    expect(
      anthropicDeferredTools(registry, { mechanism: 'anthropic-inline' }).map((tool) => tool['name']),
    ).toEqual([...EAGER_TOOLS.map((tool) => tool.name), 'tool_search']);
  });
});
