import { describe, expect, it } from 'vitest';
import type { Message } from '../core/message.js';
import { fromAnthropicMessages } from './from-anthropic-messages.js';
import { fromOpenAIChatMessages } from './from-openai-chat-messages.js';
import { toAnthropicMessages } from './to-anthropic-messages.js';
import { toOpenAIChatMessages } from './to-openai-chat-messages.js';

/** JSON.parse makes an own "__proto__" field; a copy by assignment would set the prototype and lose it. */
const parse = (text: string): unknown => JSON.parse(text);
/** JSON with keys sorted at every level (own keys, "__proto__" included). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(Reflect.get(value, key))}`).join(',')}}`;
}
const viaJson = (messages: readonly Message[]): readonly Message[] => JSON.parse(JSON.stringify(messages));

describe('native fields named __proto__', () => {
  it('survive Anthropic from → JSON → to', () => {
    const request = parse(
      '{"messages":[{"role":"user","content":[{"type":"text","text":"hi","__proto__":{"tag":1}}]}]}',
    ) as { messages: unknown[] };
    const back = toAnthropicMessages(viaJson(fromAnthropicMessages(request).messages)).messages;
    expect(canonical(back)).toBe(canonical(request.messages));
  });

  it('survive OpenAI chat from → JSON → to', () => {
    const messages = parse('[{"role":"user","content":"hi","__proto__":{"tag":1}}]') as unknown[];
    const back = toOpenAIChatMessages(viaJson(fromOpenAIChatMessages(messages).messages)).messages;
    expect(canonical(back)).toBe(canonical(messages));
  });
});
