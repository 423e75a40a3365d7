import type { Message, TokenCounter } from '../../src/index.js';
import { SimpleTokenCounter } from '../../src/index.js';

/**
 * A chars/4 counter that counts how often it is asked to count a text, a message or a tool list:
 * what no cache in front of it answered. `calls` can be reset between the phases of a test.
 */
export function countingTokenCounter(): TokenCounter & { calls: number } {
  const inner = new SimpleTokenCounter();
  const counter = {
    specificationVersion: 'v1' as const,
    id: 'counting',
    kind: 'exact' as const,
    calls: 0,
    countText: (text: string) => {
      counter.calls += 1;
      return inner.countText(text);
    },
    countMessage: (message: Message) => {
      counter.calls += 1;
      return inner.countMessage(message);
    },
    countMessages: (messages: readonly Message[]) => inner.countMessages(messages),
    countTools: (tools: Parameters<TokenCounter['countTools']>[0]) => {
      counter.calls += 1;
      return inner.countTools(tools);
    },
  };
  return counter;
}
