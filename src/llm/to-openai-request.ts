import { assertNever } from '../core/assert-never.js';
import type { ContentPart, Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';

/** A message in OpenAI chat-completions shape. */
export type OpenAIChatMessage = { readonly [key: string]: unknown };

/**
 * Converts messages to OpenAI chat-completions messages: parts → `text`/`image_url` blocks (a file part
 * becomes a `[file: name]` text block), `toolCalls` → `tool_calls`, `toolCallId` → `tool_call_id`.
 * Metadata never leaves the process.
 */
export function toOpenAIMessages(messages: readonly Message[]): readonly OpenAIChatMessage[] {
  return messages.map((message) => ({
    role: message.role,
    content: typeof message.content === 'string' ? message.content : message.content.map(toBlock),
    ...(message.name === undefined ? {} : { name: message.name }),
    ...(message.toolCallId === undefined ? {} : { tool_call_id: message.toolCallId }),
    ...((message.toolCalls?.length ?? 0) === 0
      ? {}
      : {
          tool_calls: message.toolCalls?.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          })),
        }),
  }));
}

/** Converts tool definitions to OpenAI `tools` entries. */
export function toOpenAITools(tools: readonly ToolDefinition[]): readonly OpenAIChatMessage[] {
  return tools.map((definition) => ({
    type: 'function',
    function: {
      name: definition.name,
      ...(definition.description === undefined ? {} : { description: definition.description }),
      parameters: definition.parameters ?? { type: 'object', properties: {} },
    },
  }));
}

function toBlock(part: ContentPart): OpenAIChatMessage {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return { type: 'image_url', image_url: { url: part.url } };
    case 'file':
      return { type: 'text', text: `[file: ${part.filename ?? part.path ?? part.mediaType}]` };
    default:
      return assertNever(part);
  }
}
