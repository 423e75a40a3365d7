/**
 * ctxloom with the official `@anthropic-ai/sdk`: a tool loop with extended thinking and prompt
 * caching. The history stays in the SDK's own format; before each request ctxloom reads it, governs
 * it and writes it back: unchanged messages are the very same objects (thinking blocks keep their
 * signatures), and cache breakpoints go on the tools and the system prompt. Shown in
 * docs/anthropic.md; test/examples/anthropic-sdk.test.ts runs it against a local scripted server.
 * In your project, import from 'ctxloom' instead of '../src/index.js'.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { ContextGovernor, fromAnthropicMessages, type ToolDefinition, toAnthropicMessages } from '../src/index.js';

/** Where the example runs: the Anthropic API or a compatible server. */
export type ExampleOptions = { readonly baseURL: string; readonly apiKey: string };

const definitions: readonly ToolDefinition[] = [
  {
    name: 'grep',
    description: 'Search the project',
    parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
  },
];

const SYSTEM = 'You are a careful engineer. Search before you answer.';

/** Runs the loop until the model answers; returns its text. */
export async function runAnthropicAgent(options: ExampleOptions, question: string): Promise<string> {
  const client = new Anthropic({ baseURL: options.baseURL, apiKey: options.apiKey });
  const governor = new ContextGovernor({ contextWindowTokens: 200_000, maxOutputTokens: 8_192 });
  const messages: MessageParam[] = [{ role: 'user', content: question }];
  const compactedToolCallIds = new Set<string>();
  for (let step = 0; step < 10; step += 1) {
    const read = fromAnthropicMessages({ system: SYSTEM, messages });
    const governed = await governor.prepareForModel(read.messages, { tools: definitions, inflightStartIndex: 2, compactedToolCallIds });
    const request = toAnthropicMessages(governed.messages, {
      origins: read.origins,
      tools: definitions,
      cacheBreakpoints: { tools: { type: 'ephemeral' }, system: { type: 'ephemeral' } },
    });
    const response = await client.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 8_192,
      thinking: { type: 'enabled', budget_tokens: 2_048 },
      messages: request.messages,
      ...(request.system === undefined ? {} : { system: request.system }),
      ...(request.tools === undefined ? {} : { tools: request.tools }),
    });
    messages.push({ role: 'assistant', content: response.content });
    const calls = response.content.flatMap((block) => (block.type === 'tool_use' ? [block] : []));
    if (calls.length === 0) return response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    messages.push({
      role: 'user',
      content: calls.map((call) => ({ type: 'tool_result' as const, tool_use_id: call.id, content: grep(call.input) })),
    });
  }
  return '';
}

function grep(input: unknown): string {
  const pattern = typeof input === 'object' && input !== null && 'pattern' in input ? String(input.pattern) : '';
  return `src/a.ts: ${pattern}\n${'src/a.ts: export const answer = 42;\n'.repeat(2_000)}`;
}
