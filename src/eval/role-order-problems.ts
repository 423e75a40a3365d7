import type { Message } from '../core/message.js';

/**
 * The role-order rules every provider enforces on a request, as sentences (empty when it obeys
 * them): system messages only at the start, and the request ending with a user message or a tool
 * result for the model to answer. (A conversation opening on an assistant message is legal for
 * OpenAI, and ctxloom's Anthropic adapter inserts a user turn before it.)
 */
export function roleOrderProblems(messages: readonly Message[]): readonly string[] {
  const problems: string[] = [];
  let start = 0;
  while (messages[start]?.role === 'system') start += 1;
  const late = messages.findIndex((message, index) => index >= start && message.role === 'system');
  if (late >= 0) problems.push(`system message at index ${late} after the conversation started`);
  if (start === messages.length) problems.push('no message after the system prompt');
  const last = messages.at(-1);
  if (last !== undefined && last.role !== 'user' && last.role !== 'tool')
    problems.push(`the request ends with a ${last.role} message`);
  return problems;
}
