import { describe, expect, it } from 'vitest';
import { assistant, createSequentialIdGenerator, system, tool, user } from '../core/index.js';
import { type ContextFilter, ContextPipeline, type MessageProvider, SimpleTokenCounter } from '../index.js';
import { inspectContext } from './inspect-context.js';

const generateId = createSequentialIdGenerator('m');
const counter = new SimpleTokenCounter();
const agents = '## AGENTS.md\n\nAlways run the tests before you commit.';
const soul = '## SOUL.md\n\nCalm, precise, a little dry. '.repeat(5);
const parts = [
  'You are a helpful agent.',
  `${agents}\n\n${soul}`,
  '# Tool Usage Notes\n\nRead before you write.',
];
const sections = ['identity', 'bootstrap-files', 'tool-contract'];

/** Joins the system parts into one message the way the agent preset's join filter does. */
const joined: MessageProvider = {
  id: 'system-prompt',
  getMessages: () => [
    system(parts.join('\n\n---\n\n'), {
      generateId,
      metadata: { parts: parts.map((text, index) => ({ section: sections[index], chars: text.length })) },
    }),
  ],
};
const history: MessageProvider = { id: 'history', getMessages: (input) => input.history ?? [] };
const current: MessageProvider = {
  id: 'current-message',
  getMessages: () => [user('What next?', { generateId })],
};
const dropOld: ContextFilter = {
  id: 'drop-old',
  apply: (messages) => ({
    messages: messages.filter((message) => message.id !== 'old'),
    decisions: [
      { type: 'message-drop', stage: 'drop-old', reason: 'older than the budget', messageIds: ['old'] },
    ],
  }),
};

describe('inspectContext', () => {
  it('splits the joined system prompt into its parts and files, and adds up exactly', async () => {
    const pipeline = new ContextPipeline({
      providers: [joined, history, current],
      filters: [dropOld],
      tokenCounter: counter,
    });
    const big = 'x'.repeat(4_000);
    const { messages, trace } = await pipeline.build({
      history: [
        user('old question', { id: 'old' }),
        assistant('', {
          id: 'a1',
          toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'a' } }],
        }),
        tool(big, { id: 't1', toolCallId: 'call_1', name: 'read_file' }),
      ],
      tools: [{ name: 'read_file', description: 'Reads a file.' }],
    });
    const inspection = inspectContext({
      messages,
      trace,
      tools: [{ name: 'read_file', description: 'Reads a file.' }],
      contextWindowTokens: 8_000,
      maxOutputTokens: 1_000,
      model: 'gpt-4o',
      tokenCounter: counter,
    });
    const byName = new Map(inspection.categories.map((category) => [category.name, category]));
    expect([...byName.keys()]).toEqual([
      'Identity',
      'AGENTS.md',
      'SOUL.md',
      'Tool contract',
      'Memory',
      'Skills',
      'Recent history',
      'Summary',
      'Tool schemas',
      'History',
      'Current message',
      'Reserved output',
      'Free space',
    ]);
    expect(inspection.usedTokens).toBe(trace.totalTokens);
    const systemTokens = counter.countMessage(messages[0] ?? user(''));
    const systemParts = ['Identity', 'AGENTS.md', 'SOUL.md', 'Tool contract'].map(
      (name) => byName.get(name)?.tokens ?? 0,
    );
    expect(systemParts.reduce((a, b) => a + b, 0)).toBe(systemTokens);
    expect(byName.get('SOUL.md')?.tokens).toBeGreaterThan(byName.get('AGENTS.md')?.tokens ?? 0);
    expect(byName.get('Tool schemas')?.tokens).toBe(
      counter.countTools([{ name: 'read_file', description: 'Reads a file.' }]),
    );
    expect(byName.get('Current message')?.tokens).toBe(counter.countMessage(user('What next?')));
    expect(byName.get('Reserved output')).toMatchObject({ kind: 'reserved', tokens: 1_000, percent: 12.5 });
    expect(byName.get('Free space')?.tokens).toBe(8_000 - inspection.usedTokens - 1_000);
    expect(inspection.warnings).toEqual([
      {
        type: 'large-item',
        message: 'tool result of read_file (call_1) takes 1,009 tokens (12.6% of the window).',
        tokens: 1_009,
        messageId: 't1',
      },
    ]);
    expect(inspection.decisions).toEqual([
      { type: 'message-drop', stage: 'drop-old', reason: 'older than the budget', messageIds: ['old'] },
    ]);
  });

  it('splits a plain bootstrap system message per file and warns when the context overflows', () => {
    const message = {
      ...system(`${agents}\n\n${soul}`, { generateId }),
      metadata: { section: 'bootstrap-files' },
    };
    const inspection = inspectContext({
      messages: [message],
      contextWindowTokens: 50,
      maxOutputTokens: 10,
      tokenCounter: counter,
    });
    const files = inspection.categories.filter((category) => category.id.startsWith('file:'));
    expect(files.map((file) => file.name)).toEqual(['AGENTS.md', 'SOUL.md']);
    expect(files.reduce((sum, file) => sum + file.tokens, 0)).toBe(counter.countMessage(message));
    expect(inspection.warnings[0]?.type).toBe('over-window');
    expect(inspection.categories.at(-1)).toMatchObject({ name: 'Free space', tokens: 0 });
  });

  it('rejects a negative window with INVALID_OPTIONS', () => {
    expect(() => inspectContext({ messages: [], contextWindowTokens: -1 })).toThrow(/contextWindowTokens/);
  });
});
