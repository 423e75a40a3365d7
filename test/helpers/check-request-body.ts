/**
 * Checks on the request bodies a scripted server received: what the provider would reject, and the
 * tokens of the whole prompt (system, messages and tools) as the governor counts them.
 */
import { fromAnthropicMessages } from '../../src/adapters/from-anthropic-messages.js';
import { fromOpenAIChatMessages } from '../../src/adapters/from-openai-chat-messages.js';
import { validateToolCallIntegrity } from '../../src/core/tool-call-integrity.js';
import type { ToolDefinition } from '../../src/core/tool-definition.js';
import { estimatePromptTokens } from '../../src/filters/estimate-prompt-tokens.js';
import type { TokenCounter } from '../../src/tokens/token-counter.js';
import { anthropicRequestViolations } from './scripted-anthropic-server.js';

type Body = Record<string, unknown>;
type Json = Readonly<Record<string, unknown>>;

/** What OpenAI would reject in a chat completions body: pairing, empty tool names, illegal names. */
export function openAIChatViolations(body: Body): string[] {
  const messages = (body['messages'] ?? []) as Json[];
  const problems = validateToolCallIntegrity(fromOpenAIChatMessages(messages).messages).map(
    (issue) => issue.message,
  );
  messages.forEach((message, index) => {
    const name = message['name'];
    if (name !== undefined && !/^[a-zA-Z0-9_-]{1,64}$/.test(String(name)))
      problems.push(`messages[${index}].name ${String(name)}`);
    for (const call of (message['tool_calls'] ?? []) as Json[]) {
      if (!(call['function'] as Json | undefined)?.['name'])
        problems.push(`messages[${index}]: a tool call without a name`);
    }
  });
  return problems;
}

/** What the Messages API would reject in a body (see `anthropicRequestViolations`). */
export { anthropicRequestViolations };

/** The prompt tokens of an OpenAI chat completions body, counted like the governor counts. */
export function openAIChatBodyTokens(body: Body, counter: TokenCounter): number {
  const tools = ((body['tools'] ?? []) as Json[]).map((tool): ToolDefinition => {
    const fn = tool['function'] as Json;
    return {
      name: String(fn['name']),
      description: String(fn['description'] ?? ''),
      parameters: (fn['parameters'] ?? {}) as Json,
    };
  });
  return estimatePromptTokens(counter, {
    messages: fromOpenAIChatMessages((body['messages'] ?? []) as Json[]).messages,
    tools,
  });
}

/** The prompt tokens of an Anthropic Messages body, counted like the governor counts. */
export function anthropicBodyTokens(body: Body, counter: TokenCounter): number {
  const tools = ((body['tools'] ?? []) as Json[]).map(
    (tool): ToolDefinition => ({
      name: String(tool['name']),
      description: String(tool['description'] ?? ''),
      parameters: (tool['input_schema'] ?? {}) as Json,
    }),
  );
  const read = fromAnthropicMessages({
    system: body['system'],
    messages: (body['messages'] ?? []) as Json[],
  });
  return estimatePromptTokens(counter, { messages: read.messages, tools });
}
