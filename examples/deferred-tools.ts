/**
 * Deferred tools with the official SDKs: an agent with a few tools of its own and dozens of MCP tools
 * that are not sent in full. The model searches them (ctxloom's BM25 or a regular expression), loads
 * what it needs, and calls it; the `tools` of every request stay byte-identical, so the prompt cache
 * keeps the tools prefix. The history and the loaded tools live in a session store, so the next turn
 * (another process) and a compaction keep them. Shown in docs/deferred-tools.md;
 * test/examples/deferred-tools.test.ts runs it against local scripted servers.
 * In your project, import from 'ctxloom' instead of '../src/index.js'.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import {
  anthropicDeferredTools,
  carryLoadedTools,
  fromAnthropicMessages,
  fromOpenAIResponsesInput,
  handleDeferredToolCall,
  type Message,
  openAIResponsesDeferredTools,
  openAIToolSearchOutput,
  readLoadedTools,
  type SessionStore,
  saveLoadedTools,
  sessionCompactions,
  sessionView,
  type ToolCall,
  type ToolRegistry,
  toAnthropicMessages,
  toOpenAIResponsesInput,
} from '../src/index.js';

/** Where the example runs, and where it keeps the session. */
export type DeferredExampleOptions = {
  readonly baseURL: string;
  readonly apiKey: string;
  readonly registry: ToolRegistry;
  readonly store: SessionStore;
  readonly sessionKey: string;
  /** Runs a tool of the registry (yours: an MCP client call, say). */
  readonly runTool: (call: ToolCall) => Promise<string>;
};

const SYSTEM = 'You are a careful assistant. Search for the tools you need before you use them.';

/** What the model sees now: the session's view, with the loaded tools carried past any compaction. */
async function currentView(
  options: DeferredExampleOptions,
  mechanism: 'anthropic-tool-search' | 'anthropic-inline' | 'openai-tool-search',
): Promise<{ readonly messages: readonly Message[]; readonly loaded: readonly string[] }> {
  const session = await options.store.load(options.sessionKey);
  const records = sessionCompactions(session);
  const loaded = readLoadedTools(session.metadata);
  const view = sessionView(session.messages, records);
  return { messages: carryLoadedTools(view, { registry: options.registry, mechanism, loaded, records }), loaded };
}

/** Appends messages under ids unique in the session (`m<position>`: adapters number what they read from 0). */
async function appendStamped(options: DeferredExampleOptions, messages: readonly Message[]): Promise<void> {
  const { firstIndex = 0 } = await options.store.load(options.sessionKey, { lastMessages: 0 });
  const stamped = messages.map((message, index) => ({ ...message, id: `m${firstIndex + index}` }));
  await options.store.append(options.sessionKey, stamped);
}

/**
 * The Anthropic loop: `anthropic-tool-search` (deferred tools sent with `defer_loading`, loaded by
 * `tool_reference` blocks) or `anthropic-inline` (beta: loaded by `tool_addition` blocks). Returns the
 * model's final text.
 */
export async function runAnthropicDeferredAgent(
  options: DeferredExampleOptions & { readonly mechanism: 'anthropic-tool-search' | 'anthropic-inline' },
  question: string,
): Promise<string> {
  const client = new Anthropic({ baseURL: options.baseURL, apiKey: options.apiKey });
  const tools = anthropicDeferredTools(options.registry, { mechanism: options.mechanism });
  await appendStamped(options, [{ id: 'question', role: 'user', content: question }]);
  for (let step = 0; step < 10; step += 1) {
    const { messages, loaded } = await currentView(options, options.mechanism);
    const request = toAnthropicMessages([{ id: 'system', role: 'system', content: SYSTEM }, ...messages], {
      cacheBreakpoints: { system: { type: 'ephemeral' } },
    });
    const body = {
      model: 'claude-sonnet-4-6',
      max_tokens: 4_096,
      messages: request.messages,
      ...(request.system === undefined ? {} : { system: request.system }),
      // The same array on every request: deferred tools never change it.
      tools: tools as unknown as Anthropic.Messages.ToolUnion[],
    };
    const response =
      options.mechanism === 'anthropic-inline'
        ? // Inline tool additions are a beta: the request's messages carry `tool_addition` blocks.
          await client.beta.messages.create({
            ...(body as unknown as Anthropic.Beta.Messages.MessageCreateParamsNonStreaming),
            betas: ['inline-tools-2026-09-15'],
          })
        : await client.messages.create(body);
    const answer = fromAnthropicMessages({
      messages: [{ role: 'assistant', content: response.content as Anthropic.Messages.ContentBlock[] }],
    }).messages;
    await appendStamped(options, answer);
    const calls = answer.flatMap((message) => message.toolCalls ?? []);
    if (calls.length === 0) return response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    await answerCalls(options, { calls, loaded, mechanism: options.mechanism });
  }
  return '';
}

/** Answers tool calls: searches load tools (stored in the session), other calls run. */
async function answerCalls(
  options: DeferredExampleOptions,
  run: {
    readonly calls: readonly ToolCall[];
    readonly loaded: readonly string[];
    readonly mechanism: 'anthropic-tool-search' | 'anthropic-inline' | 'openai-tool-search';
  },
): Promise<void> {
  let loaded = run.loaded;
  const results: Message[] = [];
  for (const call of run.calls) {
    const outcome = handleDeferredToolCall(call, { registry: options.registry, mechanism: run.mechanism, loaded });
    if (outcome.type === 'search') {
      loaded = await saveLoadedTools(options.store, { sessionKey: options.sessionKey, names: outcome.loaded });
      results.push(...outcome.messages);
    } else if (outcome.type === 'invalid') {
      results.push(...outcome.messages);
    } else {
      const target = outcome.type === 'call' ? outcome.call : call;
      results.push({ id: `${call.id}-result`, role: 'tool', toolCallId: call.id, name: call.name, content: await options.runTool(target) });
    }
  }
  // Tool results first, then what follows them (inline tool additions).
  const ordered = [...results.filter((message) => message.role === 'tool'), ...results.filter((message) => message.role !== 'tool')];
  await appendStamped(options, ordered);
}

/**
 * The OpenAI Responses loop: a client-executed `tool_search` tool; ctxloom answers each
 * `tool_search_call` with a `tool_search_output` listing the loaded tools. Returns the final text.
 */
export async function runOpenAIDeferredAgent(options: DeferredExampleOptions, question: string): Promise<string> {
  const client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey });
  const tools = openAIResponsesDeferredTools(options.registry);
  await appendStamped(options, [{ id: 'question', role: 'user', content: question }]);
  for (let step = 0; step < 10; step += 1) {
    const { messages, loaded } = await currentView(options, 'openai-tool-search');
    const response = await client.responses.create({
      model: 'gpt-5.1',
      instructions: SYSTEM,
      input: toOpenAIResponsesInput(messages).items as OpenAI.Responses.ResponseInput,
      // The same array on every request: deferred tools never change it.
      tools: tools as unknown as OpenAI.Responses.Tool[],
    });
    const answer = fromOpenAIResponsesInput(response.output as OpenAI.Responses.ResponseInput).messages;
    await appendStamped(options, answer);
    let current = loaded;
    const outputs: Message[] = [];
    for (const item of response.output) {
      if (item.type !== 'tool_search_call' || item.execution !== 'client') continue;
      const outcome = openAIToolSearchOutput(item, { registry: options.registry, loaded: current });
      current = await saveLoadedTools(options.store, { sessionKey: options.sessionKey, names: outcome.loaded });
      outputs.push(outcome.message);
    }
    if (outputs.length > 0) await appendStamped(options, outputs);
    const calls = answer.flatMap((message) => message.toolCalls ?? []);
    if (calls.length > 0) await answerCalls(options, { calls, loaded: current, mechanism: 'openai-tool-search' });
    if (outputs.length === 0 && calls.length === 0) return response.output_text;
  }
  return '';
}
