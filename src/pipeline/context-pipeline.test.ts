import { describe, expect, it } from 'vitest';
import { ContextError } from '../core/errors.js';
import { system, user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import { sectionOf } from '../core/message.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { ContextPipeline } from './context-pipeline.js';
import type { ContextFilter, MessageProvider } from './contracts.js';

const generateId = createSequentialIdGenerator('m');
const persona: MessageProvider = { id: 'persona', getMessages: () => [system('Be brief.', { generateId })] };
const history: MessageProvider = {
  id: 'history',
  getMessages: (input) => input.history ?? [],
};

describe('ContextPipeline', () => {
  it('runs providers in order and tags each message with its section', async () => {
    const pipeline = new ContextPipeline({ providers: [persona, history] });
    const { messages, trace } = await pipeline.build({ history: [user('hi', { generateId })] });
    expect(messages.map((message) => sectionOf(message))).toEqual(['persona', 'history']);
    expect(trace.stages.map((stage) => [stage.id, stage.kind, stage.messagesIn, stage.messagesOut])).toEqual([
      ['persona', 'provider', 0, 1],
      ['history', 'provider', 1, 2],
    ]);
    expect(trace.sections.map((section) => section.section)).toEqual(['persona', 'history']);
    expect(trace.totalTokens).toBe(trace.sections.reduce((sum, section) => sum + section.tokens, 0));
  });

  it('splits a joined message among its parts in the section totals, adding up exactly', async () => {
    const joined: MessageProvider = {
      id: 'joined',
      getMessages: () => [
        {
          ...system('a'.repeat(300) + 'b'.repeat(100), { generateId }),
          metadata: {
            section: 'system-prompt',
            parts: [
              { section: 'identity', chars: 300 },
              { section: 'memory', chars: 100 },
            ],
          },
        },
      ],
    };
    const tokenCounter = new SimpleTokenCounter();
    const { trace } = await new ContextPipeline({ providers: [joined, history], tokenCounter }).build({
      history: [user('hi', { generateId })],
    });
    expect([trace.tokenCounter, trace.tokenCounterKind]).toEqual(['simple', 'estimate']);
    expect(trace.sections).toEqual([
      { section: 'identity', messages: 1, tokens: 78, partOf: 'system-prompt' },
      { section: 'memory', messages: 0, tokens: 26, partOf: 'system-prompt' },
      { section: 'history', messages: 1, tokens: 5 },
    ]);
    expect(trace.sections.reduce((sum, section) => sum + section.tokens, 0)).toBe(trace.totalTokens);
  });

  it('records the decisions a provider returns with its block', async () => {
    const explained: MessageProvider = {
      id: 'files',
      getMessages: () => ({
        messages: [system('## A.md\n\na', { generateId })],
        decisions: [{ type: 'section-skip', stage: 'files', reason: 'B.md is missing', messageIds: [] }],
      }),
    };
    const { messages, trace } = await new ContextPipeline({ providers: [explained] }).build();
    expect(messages).toHaveLength(1);
    expect(trace.stages[0]?.decisions.map((entry) => entry.reason)).toEqual(['B.md is missing']);
  });

  it('keeps the identity of tagged history messages from one build to the next', async () => {
    const pipeline = new ContextPipeline({ providers: [persona, history] });
    const past = [user('hi', { generateId })];
    const first = await pipeline.build({ history: past });
    const second = await pipeline.build({ history: [...past, user('more', { generateId })] });
    expect(second.messages[1]).toBe(first.messages[1]);
    expect(second.messages[2]?.metadata?.['section']).toBe('history');
  });

  it('tags a block that only grew for its new messages, and a changed block anew', async () => {
    const pipeline = new ContextPipeline({ providers: [history] });
    const list = [user('one', { generateId }), user('two', { generateId })];
    const first = await pipeline.build({ history: list });
    list.push(user('three', { generateId }));
    const grown = await pipeline.build({ history: list });
    expect(grown.messages.slice(0, 2)).toEqual(first.messages);
    expect(grown.messages[0]).toBe(first.messages[0]);
    expect(grown.messages.map((message) => sectionOf(message))).toEqual(['history', 'history', 'history']);
    // A new array with an old message replaced: the replacement is tagged, the others kept.
    const edited = [list[0], user('TWO', { generateId }), list[2]];
    const again = await pipeline.build({ history: edited as typeof list });
    expect(again.messages.map((message) => [message.content, sectionOf(message)])).toEqual([
      ['one', 'history'],
      ['TWO', 'history'],
      ['three', 'history'],
    ]);
    expect(again.messages[0]).toBe(first.messages[0]);
    // The same array spliced (not only grown) is tagged anew too.
    list.splice(1, 1);
    const spliced = await pipeline.build({ history: list });
    expect(spliced.messages.map((message) => message.content)).toEqual(['one', 'three']);
  });

  it('records a failing provider in the trace and goes on', async () => {
    const broken: MessageProvider = {
      id: 'broken',
      getMessages: () => {
        throw new Error('disk on fire');
      },
    };
    const { messages, trace } = await new ContextPipeline({ providers: [broken, persona] }).build();
    expect(messages).toHaveLength(1);
    expect(trace.stages[0]?.error).toEqual({ code: 'UNEXPECTED', message: 'disk on fire' });
  });

  it('fails the build when a correctness filter throws', async () => {
    const strict: ContextFilter = {
      id: 'strict',
      apply: () => {
        throw new ContextError({ code: 'TOOL_CALL_INTEGRITY', message: 'broken tail' });
      },
    };
    await expect(
      new ContextPipeline({ providers: [persona], filters: [strict] }).build(),
    ).rejects.toMatchObject({
      code: 'TOOL_CALL_INTEGRITY',
    });
  });

  it('transform runs only the filters and leaves the input unchanged', async () => {
    const input = [system('a', { generateId }), user('b', { generateId })];
    const snapshot = structuredClone(input);
    const dropFirst: ContextFilter = {
      id: 'drop-first',
      apply: (messages) => ({
        messages: messages.slice(1),
        decisions: [
          { type: 'message-drop', stage: 'drop-first', reason: 'test', messageIds: [messages[0]?.id ?? ''] },
        ],
      }),
    };
    const { messages, trace } = await new ContextPipeline({
      providers: [persona],
      filters: [dropFirst],
    }).transform(input);
    expect(messages).toEqual([input[1]]);
    expect(input).toEqual(snapshot);
    expect(trace.stages).toHaveLength(1);
    expect(trace.stages[0]?.decisions).toHaveLength(1);
  });

  it('throws ABORTED when the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      new ContextPipeline({ providers: [persona] }).build({ signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
