import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { anthropicRequestSchema } from '../../test/fixtures/schemas/anthropic-messages-request.js';
import { openAIChatRequestMessagesSchema } from '../../test/fixtures/schemas/openai-chat-request.js';
import { responsesInputProblems } from '../../test/helpers/responses-input-problems.js';
import type { Message } from '../core/message.js';
import { fromAnthropicMessages } from './from-anthropic-messages.js';
import { fromOpenAIChatMessages } from './from-openai-chat-messages.js';
import { fromOpenAIResponsesInput } from './from-openai-responses-input.js';
import {
  anthropicRequestArbitrary,
  openAIChatArbitrary,
  openAIResponsesArbitrary,
} from './native-arbitraries.js';
import { toAnthropicMessages } from './to-anthropic-messages.js';
import { toOpenAIChatMessages } from './to-openai-chat-messages.js';
import { toOpenAIResponsesInput } from './to-openai-responses-input.js';

/** JSON with every object's keys sorted: what "equal" means for a request. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, field: unknown) =>
    field !== null && typeof field === 'object' && !Array.isArray(field)
      ? Object.fromEntries(Object.entries(field).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : field,
  );
}

/** What a store or a new process gives back: the messages as JSON, nothing else. */
function throughJson(messages: readonly Message[]): Message[] {
  return JSON.parse(JSON.stringify(messages)) as Message[];
}

describe('from → JSON → to gives the input back exactly, from the messages alone', () => {
  test.prop([anthropicRequestArbitrary], { numRuns: 300 })('Anthropic (system included)', (request) => {
    const read = fromAnthropicMessages(request);
    const back = toAnthropicMessages(throughJson(read.messages));
    const written = {
      ...(back.system === undefined ? {} : { system: back.system }),
      messages: back.messages,
    };
    expect(canonical(written)).toBe(canonical(request));
    expect(back.warnings).toEqual([]);
  });

  test.prop([openAIChatArbitrary], { numRuns: 300 })('OpenAI chat', (messages) => {
    const back = toOpenAIChatMessages(throughJson(fromOpenAIChatMessages(messages).messages));
    expect(canonical(back.messages)).toBe(canonical(messages));
    expect(back.warnings).toEqual([]);
  });

  test.prop([openAIResponsesArbitrary], { numRuns: 300 })('OpenAI Responses', (input) => {
    const back = toOpenAIResponsesInput(throughJson(fromOpenAIResponsesInput(input).messages));
    expect(canonical(back.items)).toBe(canonical(input));
    expect(back.warnings).toEqual([]);
  });
});

const issues = (result: { success: boolean; error?: { issues: unknown } }): unknown =>
  result.success ? [] : result.error?.issues;

/** Reasoning and provider parts that the target cannot take: each must be named in a warning. */
function foreignParts(messages: readonly Message[], format: string): number {
  let count = 0;
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'provider' && part.format !== format) count += 1;
      if (part.type === 'reasoning' && format !== 'anthropic' && part.provider === 'anthropic') count += 1;
      if (part.type === 'reasoning' && format !== 'openai-responses' && part.provider === 'openai')
        count += 1;
    }
  }
  return count;
}

const leftOut = (warnings: readonly { readonly type: string }[]): number =>
  warnings.filter((warning) => warning.type === 'unsupported-part').length;

function checkAll(messages: readonly Message[], from: string): void {
  const anthropic = toAnthropicMessages(messages);
  // A request read from the same format keeps the caller's own blocks and keys (checked by the round trip).
  if (anthropic.messages.length > 0 && from !== 'anthropic') {
    const request = {
      ...(anthropic.system === undefined ? {} : { system: anthropic.system }),
      messages: anthropic.messages,
    };
    expect(issues(anthropicRequestSchema.safeParse(request))).toEqual([]);
  }
  const chat = toOpenAIChatMessages(messages);
  // The native fields of a chat message read from chat are the caller's own; across formats none exist.
  if (from !== 'openai-chat')
    expect(issues(openAIChatRequestMessagesSchema.safeParse(chat.messages))).toEqual([]);
  const responses = toOpenAIResponsesInput(messages);
  if (from !== 'openai-responses') expect(responsesInputProblems(responses.items)).toEqual([]);
  if (from !== 'anthropic')
    expect(leftOut(anthropic.warnings)).toBeGreaterThanOrEqual(foreignParts(messages, 'anthropic'));
  if (from !== 'openai-chat')
    expect(leftOut(chat.warnings)).toBeGreaterThanOrEqual(foreignParts(messages, 'openai-chat'));
  if (from !== 'openai-responses')
    expect(leftOut(responses.warnings)).toBeGreaterThanOrEqual(foreignParts(messages, 'openai-responses'));
}

describe('across formats: never a shape the target refuses, and what is left out is named', () => {
  test.prop([anthropicRequestArbitrary], { numRuns: 150 })('from Anthropic', (request) => {
    checkAll(throughJson(fromAnthropicMessages(request).messages), 'anthropic');
  });

  test.prop([openAIChatArbitrary], { numRuns: 150 })('from OpenAI chat', (messages) => {
    checkAll(throughJson(fromOpenAIChatMessages(messages).messages), 'openai-chat');
  });

  test.prop([openAIResponsesArbitrary], { numRuns: 150 })('from OpenAI Responses', (input) => {
    checkAll(throughJson(fromOpenAIResponsesInput(input).messages), 'openai-responses');
  });

  test.prop([fc.constant(null)])('the generators cover every kind', () => {
    const kinds = new Set<string>();
    fc.sample(anthropicRequestArbitrary, 60).forEach((request) => {
      for (const message of request.messages)
        if (typeof message.content !== 'string')
          for (const block of message.content ?? []) kinds.add(block.type);
    });
    expect([...kinds].sort()).toEqual(
      [
        'compaction',
        'document',
        'image',
        'redacted_thinking',
        'search_result',
        'server_tool_use',
        'text',
        'thinking',
        'tool_result',
        'tool_use',
        'web_search_tool_result',
      ].sort(),
    );
  });
});
