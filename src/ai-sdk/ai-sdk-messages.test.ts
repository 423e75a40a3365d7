import { type ModelMessage, modelMessageSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { richAiSdkHistory } from '../../test/fixtures/ai-sdk/rich-history.js';
import { isToolError } from '../adapters/tool-error.js';
import { ContextError } from '../core/errors.js';
import { assistant, system, tool, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { fromAiSdkMessages } from './from-ai-sdk-messages.js';
import { toAiSdkMessages } from './to-ai-sdk-messages.js';

const original = [
  system('s', { id: 's', metadata: { section: 'persona' } }),
  user(
    [
      { type: 'text', text: 'see' },
      { type: 'image', url: 'data:image/png;base64,iVBO', mediaType: 'image/png', path: '/tmp/a.png' },
    ],
    { id: 'u' },
  ),
  assistant('', {
    id: 'a',
    reasoning: 'hm',
    toolCalls: [
      { id: 'c1', name: 'exec', arguments: '{"cmd": "ls"}' },
      { id: 'c2', name: 'grep', arguments: 'not json' },
    ],
  }),
  tool('out', { id: 't1', toolCallId: 'c1', name: 'exec' }),
  tool(
    [
      { type: 'text', text: 'img' },
      { type: 'image', url: 'data:image/png;base64,AAAA', mediaType: 'image/png' },
    ],
    { id: 't2', toolCallId: 'c2', name: 'grep' },
  ),
  assistant('done', { id: 'z' }),
];

describe('AI SDK adapters', () => {
  it('produce valid ModelMessages and round-trip exactly', () => {
    const there = toAiSdkMessages(original);
    expect(there.warnings).toEqual([]);
    for (const message of there.messages) expect(modelMessageSchema.safeParse(message).success).toBe(true);
    expect(there.messages[2]).toMatchObject({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'hm' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'exec', input: { cmd: 'ls' } },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'grep', input: {} },
      ],
    });
    expect(there.messages[3]).toMatchObject({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'exec', output: { type: 'text', value: 'out' } },
      ],
    });
    expect(fromAiSdkMessages(there.messages).messages).toEqual(original);
  });

  it('reads plain AI SDK messages (several results in one tool message, json output, URL images)', () => {
    const { messages, warnings } = fromAiSdkMessages([
      { role: 'user', content: [{ type: 'image', image: new URL('https://example.test/a.png') }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'a' },
          { type: 'tool-call', toolCallId: 'k1', toolName: 'f', input: { q: 1 } },
          { type: 'tool-call', toolCallId: 'k2', toolName: 'g', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'k1',
            toolName: 'f',
            output: { type: 'json', value: { ok: true } },
          },
          { type: 'tool-result', toolCallId: 'k2', toolName: 'g', output: { type: 'text', value: 'fine' } },
        ],
      },
    ]);
    // The ids were made by the reader (not carried), and the second result shared the first's tool message.
    const made = { native: { 'ai-sdk': { generatedId: true } } };
    expect(messages).toEqual([
      {
        id: 'ai-sdk-0',
        role: 'user',
        content: [{ type: 'image', url: 'https://example.test/a.png' }],
        ...made,
      },
      {
        id: 'ai-sdk-1',
        role: 'assistant',
        content: 'a',
        toolCalls: [
          { id: 'k1', name: 'f', arguments: '{"q":1}' },
          { id: 'k2', name: 'g', arguments: '{}' },
        ],
        ...made,
      },
      {
        id: 'ai-sdk-2',
        role: 'tool',
        content: '{"ok":true}',
        toolCallId: 'k1',
        name: 'f',
        output: 'json',
        ...made,
      },
      {
        id: 'ai-sdk-2-2',
        role: 'tool',
        content: 'fine',
        toolCallId: 'k2',
        name: 'g',
        native: { 'ai-sdk': { generatedId: true, joinsPrevious: true } },
      },
    ]);
    expect(warnings).toEqual([]);
  });
});

describe('AI SDK adapters are lossless', () => {
  it('give back every message as the same object when nothing changed', async () => {
    const history = richAiSdkHistory();
    const read = fromAiSdkMessages(history);
    const governed = await new ContextGovernor({ contextWindowTokens: 200_000 }).prepareForModel(
      read.messages,
    );
    const back = toAiSdkMessages(governed.messages, { origins: read.origins });
    expect(back.warnings).toEqual([]);
    expect(back.messages).toHaveLength(history.length);
    back.messages.forEach((message, index) => {
      expect(message).toBe(history[index]);
    });
  });

  it('read every output type, typing failures, and keep the pairing', () => {
    const { messages } = fromAiSdkMessages(richAiSdkHistory());
    const tools = messages.filter((message) => message.role === 'tool');
    expect(
      tools.map((message) => [message.toolCallId, message.name, message.content, message.output]),
    ).toEqual([
      ['toolu_1', 'read_file', 'export {};', undefined],
      ['toolu_2', 'exec', 'exit 1', 'error-text'],
      ['toolu_3', 'grep', '{"matches":2}', 'json'],
      ['toolu_4', 'exec', 'destructive', 'execution-denied'],
      [
        'toolu_5',
        'screenshot',
        [
          { type: 'text', text: 'shot' },
          { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=', mediaType: 'image/png' },
        ],
        undefined,
      ],
      ['toolu_6', 'lint', '{"errors":3}', 'error-json'],
    ]);
    expect(tools.map(isToolError)).toEqual([false, true, false, false, false, true]);
    expect(messages[2]?.content).toEqual([
      { type: 'reasoning', text: 'The user wants a check.', provider: 'anthropic', signature: 'sig-abc' },
      { type: 'reasoning', text: '', provider: 'anthropic', redactedData: 'redacted-xyz' },
      { type: 'text', text: 'Let me look.' },
    ]);
  });

  it('re-emit a changed message with only the changed fields, keeping every other object', () => {
    const history = richAiSdkHistory();
    const read = fromAiSdkMessages(history);
    const edited = read.messages.map((message): Message => {
      if (message.toolCallId === 'toolu_3') return { ...message, content: 'compacted' };
      if (message.toolCallId === 'toolu_1') return { ...message, content: 'shorter' };
      return message;
    });
    const back = toAiSdkMessages(edited, { origins: read.origins });
    back.messages.forEach((message, index) => {
      if (index !== 3) expect(message).toBe(history[index]);
    });
    const tool = back.messages[3] as Extract<ModelMessage, { role: 'tool' }>;
    const source = history[3] as Extract<ModelMessage, { role: 'tool' }>;
    expect(tool.content[1]).toBe(source.content[1]);
    expect(tool.content[0]).toEqual({ ...source.content[0], output: { type: 'text', value: 'shorter' } });
    expect(tool.content[2]).toEqual({
      ...source.content[2],
      output: { type: 'text', value: 'compacted' },
    });
    expect(back.warnings).toEqual([
      {
        type: 'converted',
        index: 5,
        message:
          'json tool output of toolu_3 sent as text: its content (changed by a stage) is no longer JSON',
      },
    ]);
    for (const message of back.messages) expect(modelMessageSchema.safeParse(message).success).toBe(true);
  });

  it('keep signatures, cache markers and the parts of an assistant whose call was dropped', () => {
    const history = richAiSdkHistory();
    const read = fromAiSdkMessages(history);
    const edited = read.messages
      .filter((message) => message.toolCallId !== 'toolu_2')
      .map(
        (message): Message =>
          message.id === 'ai-sdk-2'
            ? { ...message, toolCalls: (message.toolCalls ?? []).filter((call) => call.id !== 'toolu_2') }
            : message,
      );
    const back = toAiSdkMessages(edited, { origins: read.origins });
    const source = history[2] as Extract<ModelMessage, { role: 'assistant' }>;
    const parts = source.content as Exclude<typeof source.content, string>;
    expect(back.messages[2]).toEqual({
      ...source,
      content: [parts[0], parts[1], parts[2], parts[3], parts[5]],
    });
    const tool = back.messages[3] as Extract<ModelMessage, { role: 'tool' }>;
    expect(tool.content.map((part) => part.type === 'tool-result' && part.toolCallId)).toEqual([
      'toolu_1',
      'toolu_3',
    ]);
    expect(back.messages[0]).toBe(history[0]);
  });

  it('send the call’s tool name, never an empty one', () => {
    const history: ModelMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'exec', input: {} }] },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c', toolName: '', output: { type: 'text', value: 'ok' } },
        ],
      },
    ];
    const read = fromAiSdkMessages(history);
    const back = toAiSdkMessages(read.messages, { origins: read.origins });
    expect(back.messages[2]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c', toolName: 'exec', output: { type: 'text', value: 'ok' } },
      ],
    });
    expect(back.warnings.map((warning) => warning.type)).toEqual(['repaired']);
    const fresh = toAiSdkMessages([
      assistant('', { toolCalls: [{ id: 'k', name: 'grep', arguments: '{}' }] }),
      tool('found', { toolCallId: 'k' }),
    ]);
    expect(fresh.messages[1]).toMatchObject({ content: [{ toolName: 'grep' }] });
  });

  it('repair an orphan result and an unanswered call, or refuse them', () => {
    const broken = [
      user('hi', { id: 'u' }),
      tool('stray', { id: 'stray', toolCallId: 'nobody' }),
      assistant('', {
        id: 'a',
        toolCalls: [
          { id: 'c1', name: 'exec', arguments: '{}' },
          { id: 'c2', name: '', arguments: '{}' },
        ],
      }),
      user('next', { id: 'u2' }),
    ];
    const { messages, warnings } = toAiSdkMessages(broken, { carryMetadata: false });
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(messages[1]).toMatchObject({ content: [{ type: 'tool-call', toolCallId: 'c1' }] });
    expect(messages[2]).toMatchObject({ content: [{ toolCallId: 'c1', toolName: 'exec' }] });
    expect(warnings.map((warning) => [warning.type, warning.index])).toEqual([
      ['repaired', 1],
      ['repaired', 2],
      ['repaired', 2],
    ]);
    expect(() => toAiSdkMessages(broken, { toolPairing: 'throw' })).toThrowError(
      expect.objectContaining({ code: 'TOOL_CALL_INTEGRITY' }),
    );
  });

  it('replace lone surrogates and say so', () => {
    const { messages, warnings } = toAiSdkMessages([user('bad \uD800 text')], { carryMetadata: false });
    expect(messages[0]).toEqual({ role: 'user', content: 'bad \uFFFD text' });
    expect(warnings).toEqual([
      { type: 'repaired', index: 0, message: '1 lone surrogate(s) replaced with U+FFFD' },
    ]);
  });

  it('name the path of what is not a ModelMessage', () => {
    const bad = [
      { role: 'user', content: 'ok' },
      { role: 'assistant', content: [{ text: 'no type' }] },
    ];
    // Deliberately malformed input, as plain JavaScript could pass it.
    const read = () => fromAiSdkMessages(bad as unknown as ModelMessage[]);
    expect(read).toThrowError(ContextError);
    expect(read).toThrowError(
      'Invalid AI SDK input at messages[1].content[0]: expected a part object with a string type, received an object with keys text.',
    );
  });
});

describe('AI SDK adapters keep odd JSON keys', () => {
  // Found by the round-trip property (seed -82102715): an own "__proto__" field set by assignment
  // becomes the object's prototype, so the call's arguments came back as "{}".
  it('keeps a tool call whose arguments hold a "__proto__" key, through JSON and the AI SDK schema', async () => {
    const messages: readonly Message[] = [
      {
        id: 'm-1',
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"__proto__":null}' }],
      },
      { id: 'm-2', role: 'tool', content: 'ok', toolCallId: 'c1', name: 'read_file' },
    ];
    const sent = toAiSdkMessages(messages).messages;
    for (const message of sent) expect(modelMessageSchema.safeParse(message).success).toBe(true);
    const back = fromAiSdkMessages(JSON.parse(JSON.stringify(sent)) as ModelMessage[]).messages;
    expect(back[0]?.toolCalls?.[0]?.arguments).toBe('{"__proto__":null}');
  });
});
