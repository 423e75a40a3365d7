import { textOf } from '../core/content.js';
import type { Message } from '../core/message.js';

/**
 * Everything a model can read in a request, as one string: each message's text, reasoning and tool
 * call arguments, one message per line block. Graders and the scripted agent search it verbatim.
 */
export function visibleText(messages: readonly Message[]): string {
  const blocks: string[] = [];
  for (const message of messages) {
    blocks.push(textOf(message.content));
    if (message.reasoning !== undefined) blocks.push(message.reasoning);
    for (const call of message.toolCalls ?? []) blocks.push(`${call.name} ${call.arguments}`);
  }
  return blocks.join('\n');
}
