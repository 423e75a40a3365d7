import { createHash } from 'node:crypto';

/** The signature the scripted server gives a thinking text (and accepts back only for that text). */
export function thinkingSignature(thinking: string): string {
  return `sig-${createHash('sha256').update(thinking).digest('base64url').slice(0, 24)}`;
}

type Block = Record<string, unknown>;

/**
 * What the Messages API refuses when extended thinking is on (`thinking: { type: 'enabled' }`): a tool
 * loop continued (the last user turn answers tool calls) whose last assistant turn does not start with
 * its thinking block, and a thinking block whose signature is not the one issued for its text.
 */
export function anthropicThinkingViolations(body: Record<string, unknown>): string[] {
  const thinking = body['thinking'];
  if (typeof thinking !== 'object' || thinking === null || Reflect.get(thinking, 'type') !== 'enabled')
    return [];
  const messages = Array.isArray(body['messages']) ? (body['messages'] as Block[]) : [];
  const problems: string[] = [];
  messages.forEach((message, index) => {
    const blocks = Array.isArray(message['content']) ? (message['content'] as Block[]) : [];
    blocks.forEach((block, position) => {
      if (block['type'] === 'thinking' && block['signature'] !== thinkingSignature(String(block['thinking'])))
        problems.push(`messages.${index}.content.${position}: Invalid \`signature\` in \`thinking\` block`);
    });
  });
  const last = messages.at(-1);
  const lastBlocks = Array.isArray(last?.['content']) ? (last['content'] as Block[]) : [];
  if (last?.['role'] !== 'user' || !lastBlocks.some((block) => block['type'] === 'tool_result'))
    return problems;
  const assistantIndex = messages.findLastIndex((message) => message['role'] === 'assistant');
  const assistant = messages[assistantIndex];
  const first = Array.isArray(assistant?.['content']) ? (assistant['content'] as Block[])[0] : undefined;
  if (first !== undefined && first['type'] !== 'thinking' && first['type'] !== 'redacted_thinking') {
    problems.push(
      `messages.${assistantIndex}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first['type'])}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns.`,
    );
  }
  return problems;
}
