import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { Message } from '../core/message.js';
import { richMessageArbitrary } from '../testing/message-format-2-arbitraries.js';
import { fromNanobotDict, toNanobotDict } from './nanobot-message.js';

const SIGNED = { type: 'reasoning', text: 'Think.', provider: 'anthropic', signature: 'c2ln' } as const;
const REDACTED = { type: 'reasoning', text: '', provider: 'anthropic', redactedData: 'ZGF0YQ==' } as const;

function lineOf(message: Message): Record<string, unknown> {
  return JSON.parse(JSON.stringify(toNanobotDict(message)));
}

function reread(message: Message): Message | string {
  return fromNanobotDict(lineOf(message), 'unused');
}

describe('message format 2 in nanobot lines', () => {
  it("writes an assistant's leading Anthropic thinking as nanobot's thinking_blocks", () => {
    const message: Message = {
      id: 'a1',
      role: 'assistant',
      content: [SIGNED, REDACTED, { type: 'text', text: 'Done.' }],
      toolCalls: [{ id: 'toolu_1', name: 'exec', arguments: '{}' }],
    };
    expect(lineOf(message)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Done.' }],
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'exec', arguments: '{}' } }],
      thinking_blocks: [
        { type: 'thinking', thinking: 'Think.', signature: 'c2ln' },
        { type: 'redacted_thinking', data: 'ZGF0YQ==' },
      ],
      id: 'a1',
      _ctxloom_fields: { thinkingBlocks: true },
    });
    expect(reread(message)).toEqual(message);
  });

  it('moves reasoning and provider parts nanobot does not know out of content, keeping their places', () => {
    const compaction = {
      type: 'provider',
      format: 'anthropic',
      kind: 'compaction',
      value: { type: 'compaction', content: 's', encrypted_content: 'ZW5j' },
    } as const;
    const openai = { type: 'reasoning', text: 'r', provider: 'openai', encryptedContent: 'gAAA' } as const;
    const message: Message = {
      id: 'a2',
      role: 'assistant',
      content: [
        compaction,
        {
          type: 'text',
          text: 'one',
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        },
        openai,
        { type: 'text', text: 'two' },
      ],
      native: { 'openai-chat': { refusal: null } },
    };
    const line = lineOf(message);
    expect(line['content']).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'two' },
    ]);
    expect(line['thinking_blocks']).toBeUndefined();
    expect(line['_ctxloom_fields']).toEqual({
      message: { native: { 'openai-chat': { refusal: null } } },
      parts: [
        { at: 0, part: compaction },
        { at: 2, part: openai },
      ],
      partFields: [
        { at: 1, fields: { providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } } },
      ],
    });
    expect(reread(message)).toEqual(message);
  });

  it('keeps thinking nanobot wrote itself in metadata.nanobot, and reasoning parts beside it in _ctxloom_fields', () => {
    const dict = {
      role: 'assistant',
      content: 'ok',
      thinking_blocks: [{ type: 'thinking', thinking: 'hm', signature: 'sig' }],
    };
    const message = fromNanobotDict(dict, 'n1');
    if (typeof message === 'string') throw new Error(message);
    expect(message.content).toBe('ok');
    expect(message.metadata).toEqual({ nanobot: { thinking_blocks: dict.thinking_blocks } });
    const withPart: Message = { ...message, content: [SIGNED, { type: 'text', text: 'ok' }] };
    const line = lineOf(withPart);
    expect(line['thinking_blocks']).toEqual(dict.thinking_blocks);
    expect(reread(withPart)).toEqual(withPart);
  });

  it('reads a _ctxloom_fields that does not fit the line as an unknown field', () => {
    const dict = {
      role: 'assistant',
      content: 'text, not parts',
      _ctxloom_fields: { parts: [{ at: 5, part: SIGNED }] },
    };
    const message = fromNanobotDict(dict, 'x');
    expect(message).toEqual({
      id: 'x',
      role: 'assistant',
      content: 'text, not parts',
      metadata: { nanobot: { _ctxloom_fields: dict._ctxloom_fields } },
    });
    if (typeof message !== 'string') expect(toNanobotDict(message)).toEqual({ ...dict, id: 'x' });
  });

  test.prop([richMessageArbitrary()])(
    'round-trips every message format 2 field, and content holds only blocks nanobot knows',
    (message) => {
      const line = lineOf(message);
      const content = line['content'];
      if (Array.isArray(content))
        for (const block of content) expect(['text', 'image_url', 'file']).toContain(block.type);
      expect(fromNanobotDict(line, 'unused')).toEqual(JSON.parse(JSON.stringify(message)));
    },
  );

  test.prop([richMessageArbitrary(), fc.boolean()])(
    'writes thinking_blocks only in the shapes nanobot and LiteLLM store',
    (message) => {
      const blocks = lineOf(message)['thinking_blocks'];
      if (blocks === undefined) return;
      expect(message.role).toBe('assistant');
      for (const block of blocks as Record<string, unknown>[])
        expect(Object.keys(block).sort()).toEqual(
          block['type'] === 'thinking' ? ['signature', 'thinking', 'type'] : ['data', 'type'],
        );
    },
  );
});
