import { describe, expect, it } from 'vitest';
import { DEFAULT_PROMPTS } from '../config/prompt-defaults.js';
import { assistant, system, tool, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { ContextPipeline } from '../pipeline/context-pipeline.js';
import {
  HISTORY_SEMANTICS,
  SELF_TOOL_PLAN,
  StateHistoryProvider,
  TOOL_OBSERVATION,
} from './state-history-provider.js';
import { StaticPromptProvider } from './static-prompt-provider.js';
import { testBuildContext } from './test-context.js';

const history: readonly Message[] = [
  user('List the files', { id: 'u1' }),
  assistant('Let me look.', {
    id: 'a1',
    toolCalls: [{ id: 'call_1', name: 'list_dir', arguments: { path: '.' } }],
  }),
  tool('README.md\nsrc', {
    id: 't1',
    toolCallId: 'call_1',
    name: 'list_dir',
    metadata: { toolResult: { entries: ['README.md', 'src'] } },
  }),
  assistant('There is a README and a src folder.', { id: 'a2' }),
];

describe('StateHistoryProvider', () => {
  it('emits the history unchanged by default, as a new array', async () => {
    const messages = await new StateHistoryProvider().getMessages({ history }, testBuildContext());
    expect(messages).toEqual(history);
    expect(messages).not.toBe(history);
  });

  it('emits nothing without history', async () => {
    expect(await new StateHistoryProvider({ annotate: true }).getMessages({}, testBuildContext())).toEqual(
      [],
    );
  });

  it('annotates tool plans and tool receipts and inserts the History semantics message first', async () => {
    const provider = new StateHistoryProvider({ annotate: true });
    const messages = await provider.getMessages({ history }, testBuildContext());
    expect(messages.map((message) => message.id)).toEqual(['p-1', 'u1', 'a1', 't1', 'a2']);
    expect(messages[0]).toEqual({
      id: 'p-1',
      role: 'system',
      content: DEFAULT_PROMPTS.historySemanticsPrompt,
      metadata: { semanticKind: HISTORY_SEMANTICS },
    });
    const plan = messages[2];
    expect(plan?.content).toBe(
      [
        'This assistant message records your own previous tool-call decision. It is part of the history, not a new request.',
        'Tool calls:',
        '- list_dir({"path":"."}) [call id: call_1]',
        'Your words at the time:',
        'Let me look.',
      ].join('\n'),
    );
    expect(plan?.toolCalls).toEqual(history[1]?.toolCalls);
    expect(plan?.metadata?.['semanticKind']).toBe(SELF_TOOL_PLAN);
    const receipt = messages[3];
    expect(JSON.parse(String(receipt?.content))).toEqual({
      note: expect.stringContaining('Execution receipt'),
      tool: 'list_dir',
      toolCallId: 'call_1',
      result: { entries: ['README.md', 'src'] },
      output: 'README.md\nsrc',
    });
    expect(receipt).toMatchObject({ toolCallId: 'call_1', metadata: { semanticKind: TOOL_OBSERVATION } });
    expect(messages[4]).toBe(history[3]);
    expect(validateToolCallIntegrity(messages)).toEqual([]);
  });

  it('uses the tool text as the result when metadata.toolResult is true', async () => {
    const receipts = await new StateHistoryProvider({ annotate: true }).getMessages(
      { history: [tool('42', { id: 't', toolCallId: 'c', metadata: { toolResult: true } })] },
      testBuildContext(),
    );
    expect(JSON.parse(String(receipts[1]?.content))).toMatchObject({ tool: null, result: '42' });
  });

  it('adds no semantics message when nothing was annotated', async () => {
    const plain = [user('hi', { id: 'u' }), assistant('hello', { id: 'a' })];
    const messages = await new StateHistoryProvider({ annotate: true }).getMessages(
      { history: plain },
      testBuildContext(),
    );
    expect(messages).toEqual(plain);
  });

  it('uses an overridden semantics prompt', async () => {
    const provider = new StateHistoryProvider({ annotate: true, semanticsPrompt: 'Custom semantics.' });
    const [first] = await provider.getMessages({ history }, testBuildContext());
    expect(first?.content).toBe('Custom semantics.');
    expect(() => new StateHistoryProvider({ semanticsPrompt: ' ' })).toThrow(/blank/);
  });

  it('runs the working-memory view before annotating', async () => {
    const seen: Message[][] = [];
    const provider = new StateHistoryProvider({
      annotate: true,
      workingMemory: {
        buildView: async (messages) => {
          seen.push([...messages]);
          return messages.slice(1, 3);
        },
      },
    });
    const messages = await provider.getMessages({ history }, testBuildContext());
    expect(seen).toEqual([[...history]]);
    expect(messages.map((message) => message.id)).toEqual(['p-1', 'a1', 't1']);
  });

  it('places the semantics message after the other system parts in a build', async () => {
    const builder = new ContextPipeline({
      providers: [
        new StaticPromptProvider({ id: 'persona', text: 'You are terse.' }),
        new StateHistoryProvider({ annotate: true }),
      ],
    });
    const { messages } = await builder.build({
      history: [system('Earlier summary', { id: 's' }), ...history],
    });
    expect(messages.map((message) => [message.role, message.metadata?.['section']])).toEqual([
      ['system', 'persona'],
      ['system', 'history'],
      ['system', 'history'],
      ['user', 'history'],
      ['assistant', 'history'],
      ['tool', 'history'],
      ['assistant', 'history'],
    ]);
  });
});
