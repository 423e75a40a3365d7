/** A ctxloom message as the LangChain message the peers' benchmarks hand to `trimMessages`. */
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { textOf } from '../src/core/index.js';
import type { Message } from '../src/index.js';

export function toLangChain(message: Message): BaseMessage {
  const content = textOf(message.content);
  switch (message.role) {
    case 'system':
      return new SystemMessage(content);
    case 'user':
      return new HumanMessage(content);
    case 'tool':
      return new ToolMessage({ content, tool_call_id: message.toolCallId ?? '' });
    case 'assistant':
      return new AIMessage({
        content,
        tool_calls: (message.toolCalls ?? []).map((call) => ({
          id: call.id,
          name: call.name,
          args: JSON.parse(call.arguments) as Record<string, unknown>,
          type: 'tool_call' as const,
        })),
      });
  }
}
