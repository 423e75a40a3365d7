import { textOf } from '../core/content.js';
import type { ToolCall } from '../core/message.js';
import type { ChatModel, ChatRequest, ChatResult } from '../llm/chat-model.js';
import { visibleText } from './visible-text.js';

const TASK = /^TASK \S+: .*call (\S+) on `([^`]+)`/;
const QUESTION = /^QUESTION (\S+): what is the current (\S+)\?/;

/**
 * The scripted agent of the eval, as a {@link ChatModel}: it reads the request the way a careless
 * but literal model would. Asked to make a call (`TASK …: call X on \`Y\``), it makes it unless a
 * rule forbidding exactly that call is visible; asked for a value (`QUESTION …: what is the current
 * KEY?`), it answers with the last visible `KEY = \`value\`` or, when none is visible, calls
 * `recall` with the key. Anything else gets `Done.`. Deterministic; ignores tools and temperature.
 */
export class ScriptedAgentModel implements ChatModel {
  readonly specificationVersion = 'v1';
  readonly id = 'scripted:agent';

  async generate(request: ChatRequest): Promise<ChatResult> {
    const latest = [...request.messages].reverse().find((message) => message.role === 'user');
    const asked = latest === undefined ? '' : textOf(latest.content);
    const visible = visibleText(request.messages);
    const task = TASK.exec(asked);
    if (task !== null) {
      const [, name = '', target = ''] = task;
      if (visible.includes(`never call ${name} on \`${target}\``)) {
        return reply(`I will not call ${name} on ${target}: a rule forbids it.`);
      }
      return reply('', [{ id: 'agent_call', name, arguments: JSON.stringify({ target }) }]);
    }
    const question = QUESTION.exec(asked);
    if (question !== null) {
      const [, , key = ''] = question;
      const value = lastStatedValue(visible, key);
      if (value !== undefined) return reply(value);
      return reply('', [{ id: 'agent_recall', name: 'recall', arguments: JSON.stringify({ target: key }) }]);
    }
    return reply('Done.');
  }
}

/** The value of the last `key = \`value\`` in `text`, if any. */
export function lastStatedValue(text: string, key: string): string | undefined {
  const marker = `${key} = \``;
  const at = text.lastIndexOf(marker);
  if (at < 0) return undefined;
  const start = at + marker.length;
  const end = text.indexOf('`', start);
  return end < 0 ? undefined : text.slice(start, end);
}

function reply(text: string, toolCalls: readonly ToolCall[] = []): ChatResult {
  return { text, finishReason: toolCalls.length > 0 ? 'tool-calls' : 'stop', toolCalls, usage: {} };
}
