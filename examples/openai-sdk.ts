/**
 * ctxloom with the official `openai` SDK: a tool loop on the chat completions API and one on the
 * Responses API. The history is kept in the SDK's own format; before each request ctxloom reads it,
 * governs it and writes it back (unchanged messages are the very same objects, so reasoning items,
 * `extra_content` and anything else the API returned go back untouched). Shown in docs/openai.md;
 * test/examples/openai-sdk.test.ts runs it against local scripted servers.
 * In your project, import from 'ctxloom' instead of '../src/index.js'.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { FunctionTool, ResponseInputItem } from 'openai/resources/responses/responses';
import {
  ContextGovernor,
  fromOpenAIChatMessages,
  fromOpenAIResponsesInput,
  type ToolDefinition,
  toOpenAIChatMessages,
  toOpenAIResponsesInput,
} from '../src/index.js';

/** Where the example runs: the OpenAI API or a compatible server. */
export type ExampleOptions = { readonly baseURL: string; readonly apiKey: string };

const definitions: readonly ToolDefinition[] = [
  {
    name: 'grep',
    description: 'Search the project',
    parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
  },
];

function runTool(name: string, args: string): string {
  const { pattern } = JSON.parse(args) as { pattern: string };
  return name === 'grep' ? `src/a.ts: ${pattern}\n${'src/a.ts: export const answer = 42;\n'.repeat(2_000)}` : `unknown tool ${name}`;
}

/** A chat completions tool loop: the history is `ChatCompletionMessageParam[]` all along. */
export async function runChatCompletions(options: ExampleOptions, question: string): Promise<string | null> {
  const client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey });
  const governor = new ContextGovernor({ contextWindowTokens: 128_000, maxOutputTokens: 4_096 });
  const tools: ChatCompletionTool[] = definitions.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description ?? '', parameters: tool.parameters ?? {} },
  }));
  const history: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a careful engineer.' },
    { role: 'user', content: question },
  ];
  const inflightStartIndex = history.length; // what the loop adds may be compacted, never the history
  const compactedToolCallIds = new Set<string>(); // one per run, kept across its steps
  for (let step = 0; step < 10; step += 1) {
    const read = fromOpenAIChatMessages(history);
    const governed = await governor.prepareForModel(read.messages, { tools: definitions, inflightStartIndex, compactedToolCallIds });
    const { messages } = toOpenAIChatMessages(governed.messages, { origins: read.origins });
    const completion = await client.chat.completions.create({ model: 'gpt-5', messages, tools });
    const reply = completion.choices[0]?.message;
    if (reply === undefined) return null;
    history.push(reply);
    if (reply.tool_calls === undefined || reply.tool_calls.length === 0) return reply.content;
    for (const call of reply.tool_calls) {
      if (call.type !== 'function') continue;
      history.push({ role: 'tool', tool_call_id: call.id, content: runTool(call.function.name, call.function.arguments) });
    }
  }
  return null;
}

/** A Responses API tool loop, stateless (`store: false`): reasoning items go back as they came. */
export async function runResponses(options: ExampleOptions, question: string): Promise<string> {
  const client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey });
  const governor = new ContextGovernor({ contextWindowTokens: 400_000, maxOutputTokens: 16_384 });
  const tools: FunctionTool[] = definitions.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description ?? null,
    parameters: tool.parameters ?? {},
    strict: false,
  }));
  const input: ResponseInputItem[] = [{ role: 'user', content: question }];
  const compactedToolCallIds = new Set<string>();
  for (let step = 0; step < 10; step += 1) {
    const read = fromOpenAIResponsesInput(input);
    const governed = await governor.prepareForModel(read.messages, { tools: definitions, inflightStartIndex: 1, compactedToolCallIds });
    const { items } = toOpenAIResponsesInput(governed.messages, { origins: read.origins });
    const response = await client.responses.create({
      model: 'gpt-5',
      instructions: 'You are a careful engineer.',
      input: items,
      tools,
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    const calls = response.output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
    for (const item of response.output) if (item.type === 'reasoning' || item.type === 'message' || item.type === 'function_call') input.push(item);
    if (calls.length === 0) return response.output_text;
    for (const call of calls) input.push({ type: 'function_call_output', call_id: call.call_id, output: runTool(call.name, call.arguments) });
  }
  return '';
}
