import { describe, expect, it } from 'vitest';
import { assistant, system, tool, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { ContextBuilder } from '../presets/context-builder.js';
import { ContextPipeline } from './context-pipeline.js';
import type { ContextFilter } from './contracts.js';

/** `chars` characters of short numbered words (about one token per two characters). */
function fileText(chars: number): string {
  return Array.from({ length: Math.ceil(chars / 6) }, (_, index) => `w${(index * 7919) % 10_007} `)
    .join('')
    .slice(0, chars);
}

function conversation(turns: number): Message[] {
  const out: Message[] = [];
  for (let turn = 0; turn < turns; turn += 1)
    out.push(user(`q${turn}`, { id: `u${turn}` }), assistant(`a${turn}`, { id: `a${turn}` }));
  return out;
}

/** A filter that rewrites the newest user message with `rewrite` (`undefined`: drops it). */
function newestUser(rewrite: (message: Message) => Message | undefined): ContextFilter {
  return {
    id: 'lose-newest',
    apply(messages) {
      const at = messages.findLastIndex((message) => message.role === 'user');
      const target = messages[at] as Message;
      const next = rewrite(target);
      const out = messages.filter((_, index) => index !== at || next !== undefined);
      if (next !== undefined) out[at] = next;
      return {
        messages: out,
        decisions: [{ type: 'message-drop', stage: 'lose-newest', reason: 'test', messageIds: [target.id] }],
      };
    },
  };
}

describe('context-loss warnings', () => {
  it('warns when a large read_file result in the newest turn makes the governor snip the whole history', async () => {
    const history = [
      system('s', { id: 's' }),
      ...conversation(40),
      user('read it', { id: 'ur' }),
      assistant('', { id: 'ar', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }] }),
      tool(fileText(200_000), { id: 'tr', toolCallId: 'c1', name: 'read_file' }),
      user('and now?', { id: 'un' }),
    ];
    const governor = new ContextGovernor({ contextWindowTokens: 20_000, onOverBudget: 'keep' });
    const { messages, trace } = await governor.prepareForModel(history);
    expect(messages.map((message) => message.id)).toEqual(['s', 'un']);
    expect(trace.warnings).toEqual([
      {
        type: 'history-dropped',
        check: 'context-loss',
        message: expect.stringMatching(
          /^None of the 83 history messages is sent \(snip-history dropped 83\)/,
        ),
        details: { historyMessages: 83, stages: { 'snip-history': 83 } },
      },
    ]);
  });

  it('stays quiet when the budget keeps some of the history, and when there is none', async () => {
    const governor = new ContextGovernor({ contextWindowTokens: 6_000, maxOutputTokens: 0 });
    const long = conversation(60).map((message) => ({ ...message, content: fileText(600) }));
    const snipped = await governor.prepareForModel([system('s'), ...long, user('now?')]);
    expect(snipped.messages.length).toBeLessThan(long.length);
    expect(snipped.trace.warnings).toBeUndefined();
    const fresh = await ContextBuilder.forChat({}).build({ current: 'hello' });
    expect(fresh.trace.warnings).toBeUndefined();
  });

  it('counts a history message merged into the current one as sent', async () => {
    const { messages, trace } = await ContextBuilder.forAgent({
      workspace: '/nonexistent-ctxloom-workspace',
      recentHistory: false,
      skills: { builtinDir: null },
    }).build({ history: [user('first half', { id: 'h1' })], current: 'second half' });
    expect(messages.at(-1)?.metadata?.['mergedFrom']).toBe('h1');
    expect(trace.warnings).toBeUndefined();
  });

  it('warns when a filter drops or empties the newest user message, naming the stage', async () => {
    const history = [system('s'), ...conversation(2)];
    const dropped = await new ContextPipeline({
      filters: [newestUser(() => undefined)],
    }).transform([...history, user('question', { id: 'q' })]);
    expect(dropped.trace.warnings).toMatchObject([
      {
        type: 'newest-turn-dropped',
        check: 'context-loss',
        message: expect.stringContaining('The newest user message (q) was dropped by lose-newest'),
        details: { messageId: 'q', outcome: 'dropped', stages: { 'lose-newest': 1 } },
      },
    ]);
    const emptied = await new ContextPipeline({
      filters: [newestUser((message) => ({ ...message, content: '  ' }))],
    }).transform([...history, user('question', { id: 'q' })]);
    expect(emptied.trace.warnings).toMatchObject([
      { type: 'newest-turn-dropped', details: { messageId: 'q', outcome: 'emptied' } },
    ]);
  });

  it('keeps the warning on a build reused from the last one', async () => {
    const cut: ContextFilter = {
      id: 'cut',
      apply: (messages) => ({
        messages: messages.slice(-1),
        decisions: [
          {
            type: 'message-drop',
            stage: 'cut',
            reason: 'test',
            messageIds: messages.slice(0, -1).map((message) => message.id),
          },
        ],
      }),
    };
    const pipeline = new ContextPipeline({
      providers: [{ id: 'history', getMessages: (input) => input.history ?? [] }],
      filters: [cut],
      reuseUnchangedBuilds: true,
    });
    const input = { history: [...conversation(3), user('now', { id: 'now' })] };
    const first = await pipeline.build(input);
    const again = await pipeline.build(input);
    expect(first.trace.warnings?.map((warning) => warning.type)).toEqual(['history-dropped']);
    expect(again.trace.warnings).toEqual(first.trace.warnings);
  });
});
