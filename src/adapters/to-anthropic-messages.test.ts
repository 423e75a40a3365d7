import { describe, expect, it } from 'vitest';
import { richAnthropicRequest } from '../../test/fixtures/anthropic/rich-request.js';
import { anthropicRequestSchema } from '../../test/fixtures/schemas/anthropic-messages-request.js';
import { assistant, system, tool, user } from '../core/factories.js';
import type { Message, ToolCall } from '../core/message.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { fromAnthropicMessages } from './from-anthropic-messages.js';
import { toAnthropicMessages } from './to-anthropic-messages.js';

describe('toAnthropicMessages', () => {
  it('hoists system, puts tool results first in the next user turn and merges same roles', () => {
    const result = toAnthropicMessages([
      system('one'),
      system('two'),
      user('hi'),
      assistant('let me look', {
        toolCalls: [
          { id: 'call:1', name: 'exec', arguments: '{"cmd":"ls"}' },
          { id: 'c2', name: 'grep', arguments: '[1]' },
        ],
      }),
      tool('a.md', { toolCallId: 'call:1', name: 'exec' }),
      tool(
        [
          { type: 'text', text: 'match' },
          { type: 'image', url: 'https://example.test/x.png' },
        ],
        { toolCallId: 'c2', name: 'grep' },
      ),
      user('thanks'),
      assistant('ok'),
    ]);
    expect(result.system).toBe('one\n\ntwo');
    expect(result.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'let me look' },
          { type: 'tool_use', id: 'call_1', name: 'exec', input: { cmd: 'ls' } },
          { type: 'tool_use', id: 'c2', name: 'grep', input: { value: [1] } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'a.md' },
          {
            type: 'tool_result',
            tool_use_id: 'c2',
            content: [
              { type: 'text', text: 'match' },
              { type: 'image', source: { type: 'url', url: 'https://example.test/x.png' } },
            ],
          },
          { type: 'text', text: 'thanks' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    ]);
    expect(result.warnings.map((warning) => warning.message)).toEqual([
      'tool call id "call:1" sent as call_1',
      'tool arguments are not a JSON object; sent as { value }',
    ]);
    expect(
      anthropicRequestSchema.safeParse({ system: result.system, messages: result.messages }).success,
    ).toBe(true);
  });

  it('starts with a user turn, sends base64 images and PDFs, fills empty turns', () => {
    const result = toAnthropicMessages([
      assistant('hello'),
      user([
        { type: 'image', url: 'data:image/jpeg;base64,/9j/4AAQ', mediaType: 'image/jpeg' },
        { type: 'file', url: 'data:application/pdf;base64,JVBERi0=', mediaType: 'application/pdf' },
      ]),
      assistant(''),
      user('  '),
    ]);
    expect(result.system).toBeUndefined();
    expect(result.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: '(conversation continued)' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
          { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: '(empty)' }] },
      { role: 'user', content: [{ type: 'text', text: '(empty)' }] },
    ]);
    expect(anthropicRequestSchema.safeParse({ messages: result.messages }).success).toBe(true);
  });
});

describe('Anthropic adapters are lossless', () => {
  it('give back every message and the system as the same objects when nothing changed', async () => {
    const request = richAnthropicRequest();
    const read = fromAnthropicMessages(request);
    const governed = await new ContextGovernor({ contextWindowTokens: 100_000 }).prepareForModel(
      read.messages,
    );
    const back = toAnthropicMessages(governed.messages, { origins: read.origins });
    expect(back.system).toBe(request.system);
    expect(back.messages).toHaveLength(request.messages.length);
    back.messages.forEach((message, index) => {
      expect(message).toBe(request.messages[index]);
    });
  });

  it('read thinking, failed results and media', () => {
    const { messages, warnings } = fromAnthropicMessages(richAnthropicRequest());
    expect(messages.map((message) => [message.id, message.role])).toEqual([
      ['anthropic-system-0', 'system'],
      ['anthropic-system-1', 'system'],
      ['anthropic-0', 'user'],
      ['anthropic-1', 'assistant'],
      ['anthropic-2', 'tool'],
      ['anthropic-2-2', 'tool'],
      ['anthropic-3', 'assistant'],
      ['anthropic-4', 'user'],
    ]);
    const assistantContent = messages[3]?.content;
    expect(Array.isArray(assistantContent) ? assistantContent.map((part) => part.type) : []).toEqual([
      'reasoning',
      'reasoning',
      'provider',
      'provider',
      'text',
    ]);
    expect(Array.isArray(assistantContent) ? assistantContent[0] : undefined).toMatchObject({
      type: 'reasoning',
      text: 'I should search first.',
      provider: 'anthropic',
    });
    expect(messages[3]).toMatchObject({
      toolCalls: [
        { id: 'toolu_1', name: 'exec', arguments: '{"cmd":"npm test"}' },
        { id: 'toolu_2', name: 'read_file', arguments: '{"path":"a.ts"}' },
      ],
    });
    expect(messages[4]).toMatchObject({ content: 'exit 1', name: 'exec', output: 'error-text' });
    expect(messages[2]?.content).toEqual([
      { type: 'text', text: 'Check the screenshot and the spec, then run the tests.' },
      { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=', mediaType: 'image/png' },
      {
        type: 'file',
        url: 'data:application/pdf;base64,JVBERi0=',
        mediaType: 'application/pdf',
        filename: 'spec.pdf',
      },
    ]);
    expect(warnings).toEqual([]);
  });

  it('re-emit a changed message with only what changed: signatures, server blocks and markers stay', () => {
    const request = richAnthropicRequest();
    const read = fromAnthropicMessages(request);
    const edited = read.messages.map((message): Message => {
      if (message.id === 'anthropic-2-2') return { ...message, content: 'compacted' };
      if (message.id === 'anthropic-1')
        return {
          ...message,
          toolCalls: [
            { ...(message.toolCalls?.[0] as ToolCall), arguments: '{"cmd":"npm t"}' },
            message.toolCalls?.[1] as ToolCall,
          ],
        };
      return message;
    });
    const back = toAnthropicMessages(edited, { origins: read.origins });
    expect(back.system).toBe(request.system);
    for (const index of [0, 3, 4]) expect(back.messages[index]).toBe(request.messages[index]);
    const assistantBlocks = (request.messages[1] as { content: Record<string, unknown>[] }).content;
    expect(back.messages[1]).toEqual({
      role: 'assistant',
      content: [
        ...assistantBlocks.slice(0, 5),
        { ...assistantBlocks[5], input: { cmd: 'npm t' } },
        assistantBlocks[6],
      ],
    });
    const results = (request.messages[2] as { content: Record<string, unknown>[] }).content;
    expect(back.messages[2]).toEqual({
      role: 'user',
      content: [results[0], { ...results[1], content: 'compacted' }],
    });
  });

  it('set cache breakpoints on the last tool, the system blocks and named messages, at most four', () => {
    const result = toAnthropicMessages(
      [
        system('persona', { id: 's1' }),
        system('tools doc', { id: 's2' }),
        user('hi', { id: 'u1' }),
        assistant('yo', { id: 'a1' }),
        user('more', { id: 'u2' }),
      ],
      {
        tools: [
          { name: 'exec', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } },
          { name: 'grep' },
        ],
        cacheBreakpoints: {
          tools: { type: 'ephemeral', ttl: '1h' },
          system: { type: 'ephemeral' },
          messages: { u1: { type: 'ephemeral' }, a1: { type: 'ephemeral' }, u2: { type: 'ephemeral' } },
        },
      },
    );
    expect(result.tools).toEqual([
      { name: 'exec', input_schema: { type: 'object', properties: { cmd: { type: 'string' } } } },
      { name: 'grep', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(result.system).toEqual([
      { type: 'text', text: 'persona' },
      { type: 'text', text: 'tools doc', cache_control: { type: 'ephemeral' } },
    ]);
    expect(result.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: [{ type: 'text', text: 'yo', cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: [{ type: 'text', text: 'more', cache_control: { type: 'ephemeral' } }] },
    ]);
    expect(result.warnings).toEqual([
      {
        type: 'repaired',
        index: 0,
        message: '1 cache_control breakpoint(s) removed from the start: the API takes at most 4',
      },
    ]);
    expect(
      anthropicRequestSchema.safeParse({ system: result.system, messages: result.messages }).error?.issues ??
        [],
    ).toEqual([]);
  });

  it('mark failed results, and leave out reasoning it cannot sign', () => {
    const result = toAnthropicMessages([
      user('go'),
      assistant('', { reasoning: 'hmm', toolCalls: [{ id: 'c', name: 'exec', arguments: '{}' }] }),
      tool('boom', { toolCallId: 'c', metadata: { isError: true } }),
    ]);
    expect(result.messages[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'c', content: 'boom', is_error: true }],
    });
    expect(result.warnings.map((warning) => warning.message)).toEqual([
      'reasoning left out (Anthropic takes thinking only with the signature the model returned)',
    ]);
  });

  it('never put a stray tool_result first', () => {
    const result = toAnthropicMessages([
      system('s'),
      user('a'),
      tool('stray', { toolCallId: 'x' }),
      assistant('b'),
      user('c'),
    ]);
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(result.warnings.map((warning) => warning.message)).toEqual([
      'tool result answers no call (x); dropped',
    ]);
    expect(
      anthropicRequestSchema.safeParse({ system: result.system, messages: result.messages }).success,
    ).toBe(true);
  });

  it('name the path of what is not an Anthropic request', () => {
    expect(() => fromAnthropicMessages({ messages: [{ role: 'system', content: 'x' }] })).toThrow(
      'Invalid Anthropic input at messages[0].role: expected user or assistant, received "system" (string).',
    );
    expect(() => fromAnthropicMessages({ messages: [{ role: 'user', content: [{ text: 'x' }] }] })).toThrow(
      'at messages[0].content[0]: expected a content block with a string type, received an object with keys text.',
    );
    expect(() => fromAnthropicMessages({ system: 5, messages: [] })).toThrow(
      'at system: expected a string or an array of text blocks',
    );
  });
});

describe('toAnthropicMessages cache option', () => {
  const long = 'stable system prompt text '.repeat(400);

  it('plans breakpoints on the system prompt and the conversation with cache: auto', () => {
    const messages = [system(long), user('first question'), assistant('answer'), user('second question')];
    const result = toAnthropicMessages(messages, { cache: 'auto' });
    expect(Array.isArray(result.system)).toBe(true);
    expect(result.system).toEqual([{ type: 'text', text: long, cache_control: { type: 'ephemeral' } }]);
    const marked = result.messages.flatMap((message, index) =>
      typeof message.content === 'string'
        ? []
        : message.content.flatMap((block) =>
            'cache_control' in block && block.cache_control !== undefined ? [index] : [],
          ),
    );
    expect(marked).toEqual([0, 2]);
    expect(result.cachePlan?.markers.map((marker) => marker.kind)).toEqual(['system', 'carried', 'tail']);
  });

  it('adds no markers by default or with cache: off, and none below the minimum length', () => {
    const messages = [system(long), user('q')];
    expect(toAnthropicMessages(messages).system).toBe(long);
    expect(toAnthropicMessages(messages, { cache: 'off' }).cachePlan).toBeUndefined();
    const short = toAnthropicMessages([system('short'), user('q')], {
      cache: { model: 'claude-sonnet-4-5' },
    });
    expect(short.system).toBe('short');
    expect(short.cachePlan?.markers).toEqual([]);
  });

  it('gives the stable prefix the 1 h lifetime when asked and keeps the previous anchors', () => {
    const first = [system(long), user('first question')];
    const a = toAnthropicMessages(first, { cache: { ttl: '1h' } });
    const b = toAnthropicMessages([...first, assistant('answer'), user('next')], {
      cache: { ttl: '1h', ...(a.cachePlan === undefined ? {} : { previous: a.cachePlan }) },
    });
    expect(b.system).toEqual([{ type: 'text', text: long, cache_control: { type: 'ephemeral', ttl: '1h' } }]);
    expect(b.cachePlan?.markers.find((marker) => marker.kind === 'carried')?.key).toBe(
      a.cachePlan?.markers.find((marker) => marker.kind === 'tail')?.key,
    );
  });
});
