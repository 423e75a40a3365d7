import { describe, expect, it } from 'vitest';
import {
  type DeferredExampleOptions,
  runAnthropicDeferredAgent,
  runOpenAIDeferredAgent,
} from '../../examples/deferred-tools.js';
import {
  appendCompaction,
  compactHistory,
  createToolRegistry,
  MemorySessionStore,
  readLoadedTools,
  type SessionStore,
} from '../../src/index.js';
import { createScriptedSummarizer } from '../../src/testing/index.js';
import { EAGER_TOOLS, MCP_TOOLS } from '../fixtures/deferred-tools/mcp-tools.js';
import { anthropicDeferredToolViolations } from '../helpers/deferred-tool-checks.js';
import { startScriptedAnthropicServer } from '../helpers/scripted-anthropic-server.js';
import { startScriptedToolSearchServer } from '../helpers/scripted-tool-search-server.js';

const registry = createToolRegistry({ tools: EAGER_TOOLS, deferred: MCP_TOOLS });
const JIRA = { project_key: 'ENG', summary: 'Checkout fails on Safari', issue_type: 'Bug' };

function options(baseURL: string, store: SessionStore, ran: string[]): DeferredExampleOptions {
  return {
    baseURL,
    apiKey: 'test',
    registry,
    store,
    sessionKey: 'agent',
    runTool: async (call) => {
      ran.push(call.name);
      return JSON.stringify({ ok: true, key: `ENG-${100 + ran.length}` });
    },
  };
}

/** Compacts the whole session but its newest few tokens (the searches that loaded tools go into the summary). */
async function compactSession(store: SessionStore): Promise<void> {
  const session = await store.load('agent');
  const result = await compactHistory(session.messages, {
    summarizer: createScriptedSummarizer('faithful'),
    keepRecent: 30,
  });
  if (result.record === undefined) throw new Error(result.detail);
  await appendCompaction(store, { sessionKey: 'agent', record: result.record });
}

describe('deferred tools with the official SDK clients (docs/deferred-tools.md)', () => {
  it.each(['anthropic-tool-search', 'anthropic-inline'] as const)(
    '@anthropic-ai/sdk, %s: search, load, call; after a compaction the loaded tool still runs; tools never change',
    async (mechanism) => {
      const state: { first?: string } = {};
      const server = await startScriptedAnthropicServer(
        [
          {
            kind: 'reply',
            content: [
              {
                type: 'tool_use',
                id: 'toolu_1',
                name: 'tool_search',
                input: { query: 'create a jira issue', limit: 1 },
              },
            ],
          },
          {
            kind: 'reply',
            content: [{ type: 'tool_use', id: 'toolu_2', name: 'jira__create_issue', input: JIRA }],
          },
          { kind: 'reply', content: [{ type: 'text', text: 'Filed ENG-101.' }] },
          {
            kind: 'reply',
            content: [
              {
                type: 'tool_use',
                id: 'toolu_3',
                name: 'jira__create_issue',
                input: { ...JIRA, summary: 'Again' },
              },
            ],
          },
          { kind: 'reply', content: [{ type: 'text', text: 'Filed ENG-102.' }] },
        ],
        { check: (body) => anthropicDeferredToolViolations(body, state) },
      );
      try {
        const store = new MemorySessionStore();
        const ran: string[] = [];
        const run = { ...options(server.origin, store, ran), mechanism };
        expect(await runAnthropicDeferredAgent(run, 'File the Safari checkout bug in Jira.')).toBe(
          'Filed ENG-101.',
        );
        expect(readLoadedTools((await store.load('agent')).metadata)).toEqual(['jira__create_issue']);
        await compactSession(store);
        expect(await runAnthropicDeferredAgent(run, 'File another one.')).toBe('Filed ENG-102.');
        expect(server.violations.flat()).toEqual([]);
        expect(ran).toEqual(['jira__create_issue', 'jira__create_issue']);
        expect(new Set(server.requests.map((request) => JSON.stringify(request['tools']))).size).toBe(1);
        // The fourth request comes after the compaction: the tool is loaded again by the carry.
        const afterCompaction = JSON.stringify(server.requests[3]?.['messages']);
        expect(afterCompaction).not.toContain('"id":"toolu_1"');
        expect(afterCompaction).toContain('ctxloom-carry-');
        expect(afterCompaction).toMatch(
          mechanism === 'anthropic-inline' ? /"tool_addition"/ : /"tool_reference"/,
        );
      } finally {
        await server.close();
      }
    },
  );

  it('the checks catch a deferred tool called before it was loaded', () => {
    const problems = anthropicDeferredToolViolations(
      {
        tools: [{ name: 'x', defer_loading: true }],
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] },
        ],
      },
      {},
    );
    expect(problems).toEqual(['messages[1]: tool_use of x, a tool not loaded at that point']);
  });

  it('openai Responses client: tool_search_call answered with tool_search_output; after a compaction the tool still runs', async () => {
    const server = await startScriptedToolSearchServer([
      [
        {
          type: 'tool_search_call',
          id: 'ts_1',
          call_id: 'search-1',
          execution: 'client',
          status: 'completed',
          arguments: { query: 'create a jira issue', limit: 1 },
        },
      ],
      [
        {
          type: 'function_call',
          id: 'fc_1',
          call_id: 'call-1',
          name: 'jira__create_issue',
          arguments: JSON.stringify(JIRA),
          status: 'completed',
        },
      ],
      [
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Filed ENG-101.', annotations: [] }],
        },
      ],
      [
        {
          type: 'function_call',
          id: 'fc_2',
          call_id: 'call-2',
          name: 'jira__create_issue',
          arguments: JSON.stringify(JIRA),
          status: 'completed',
        },
      ],
      [
        {
          type: 'message',
          id: 'msg_2',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Filed ENG-102.', annotations: [] }],
        },
      ],
    ]);
    try {
      const store = new MemorySessionStore();
      const ran: string[] = [];
      const run = options(server.baseURL, store, ran);
      expect(await runOpenAIDeferredAgent(run, 'File the Safari checkout bug in Jira.')).toBe(
        'Filed ENG-101.',
      );
      expect(readLoadedTools((await store.load('agent')).metadata)).toEqual(['jira__create_issue']);
      await compactSession(store);
      expect(await runOpenAIDeferredAgent(run, 'File another one.')).toBe('Filed ENG-102.');
      expect(server.violations.flat()).toEqual([]);
      expect(ran).toEqual(['jira__create_issue', 'jira__create_issue']);
      expect(new Set(server.requests.map((request) => JSON.stringify(request['tools']))).size).toBe(1);
      expect(JSON.stringify(server.requests[1]?.['input'])).toContain('"type":"tool_search_output"');
      // After the compaction the original search is summarised away and the carry loads the tool again.
      const afterCompaction = JSON.stringify(server.requests[3]?.['input']);
      expect(afterCompaction).not.toContain('"call_id":"search-1"');
      expect(afterCompaction).toContain('ctxloom-carry-');
    } finally {
      await server.close();
    }
  });
});
