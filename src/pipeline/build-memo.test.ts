import { describe, expect, it } from 'vitest';
import { user } from '../core/factories.js';
import type { ContentPart, Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import type { BuildInput } from './build-input.js';
import { ContextPipeline } from './context-pipeline.js';
import type { ContextFilter, MessageProvider } from './contracts.js';

/** A provider that makes a new system message (with a new id) every build, from a text it is told. */
function prompt(source: { text: string }): MessageProvider {
  return {
    id: 'prompt',
    getMessages: (_input, context) => [{ id: context.generateId(), role: 'system', content: source.text }],
  };
}

const history: MessageProvider = { id: 'history', getMessages: (input) => input.history ?? [] };

/** A filter that counts its runs and drops nothing. */
function counting(): ContextFilter & { runs: number } {
  const filter = {
    id: 'counting',
    runs: 0,
    apply(messages: readonly Message[]) {
      filter.runs += 1;
      return { messages, decisions: [] };
    },
  };
  return filter;
}

function pipeline(source: { text: string }, filter: ContextFilter, reuse = true): ContextPipeline {
  return new ContextPipeline({
    providers: [prompt(source), history],
    filters: [filter],
    reuseUnchangedBuilds: reuse,
  });
}

describe('reuseUnchangedBuilds', () => {
  const turns = [user('hi', { id: 'u1' }), user('more', { id: 'u2' })];

  it('reuses the last result when the providers give the same messages (new generated ids aside)', async () => {
    const filter = counting();
    const builder = pipeline({ text: 'Be brief.' }, filter);
    const first = await builder.build({ history: turns, tools: [{ name: 'exec' }] });
    const again = await builder.build({ history: [...turns], tools: [{ name: 'exec' }] });
    expect(filter.runs).toBe(1);
    expect(again.messages).toBe(first.messages);
    expect(again.trace.totalTokens).toBe(first.trace.totalTokens);
    expect(again.trace.stages.find((stage) => stage.id === 'counting')?.durationMs).toBe(0);
  });

  it('does not take one input object (or one tools array) changed between builds for the same input', async () => {
    const filter = counting();
    const builder = pipeline({ text: 'Be brief.' }, filter);
    const tools = [{ name: 'exec' }];
    const input: { history: readonly Message[]; tools: { name: string }[]; sessionKey?: string } = {
      history: turns,
      tools,
    };
    await builder.build(input);
    tools.push({ name: 'read_file' });
    const moreTools = await builder.build(input);
    expect(filter.runs).toBe(2);
    input.sessionKey = 'other';
    await builder.build(input);
    expect(filter.runs).toBe(3);
    expect(moreTools.trace.toolTokens).toBeGreaterThan(0);
  });

  it('runs the filters again when a provider, a history message or the input changed', async () => {
    const filter = counting();
    const source = { text: 'Be brief.' };
    const builder = pipeline(source, filter);
    await builder.build({ history: turns });
    source.text = 'Be kind.';
    const edited = await builder.build({ history: turns });
    expect(edited.messages[0]?.content).toBe('Be kind.');
    await builder.build({ history: [turns[0] as Message, user('more', { id: 'u3' })] });
    await builder.build({ history: [turns[0] as Message, user('more', { id: 'u3' })], sessionKey: 'other' });
    expect(filter.runs).toBe(4);
  });

  it('does not take a history array the caller pushed to or spliced for the same history (a provider returning it as it is)', async () => {
    const filter = counting();
    const builder = pipeline({ text: 'Be brief.' }, filter);
    const owned: Message[] = [user('first', { id: 'f1' })];
    const first = await builder.build({ history: owned });
    owned.push(user('second', { id: 'f2' }), user('answer two', { id: 'f3' }));
    const pushed = await builder.build({ history: owned });
    expect(filter.runs).toBe(2);
    expect(pushed.messages).not.toBe(first.messages);
    expect(pushed.messages.map((message) => message.content)).toEqual([
      'Be brief.',
      'first',
      'second',
      'answer two',
    ]);
    // A sliding window: as long as before, the old part changed.
    owned.splice(0, 1);
    owned.push(user('third', { id: 'f4' }));
    const slid = await builder.build({ history: owned });
    expect(filter.runs).toBe(3);
    expect(slid.messages.map((message) => message.content)).toEqual([
      'Be brief.',
      'second',
      'answer two',
      'third',
    ]);
    // A remembered array that changed since is not compared with a new one either (it lost what it held).
    owned.splice(0, 1);
    owned.push(user('fourth', { id: 'f5' }));
    const copied = await builder.build({ history: [...owned] });
    expect(filter.runs).toBe(4);
    expect(copied.messages.map((message) => message.content)).toEqual([
      'Be brief.',
      'answer two',
      'third',
      'fourth',
    ]);
  });

  it('takes tool definitions and parts as immutable: one replaced by a new object in the same array is seen', async () => {
    const filter = counting();
    const builder = pipeline({ text: 'Be brief.' }, filter);
    const tools: ToolDefinition[] = [{ name: 'exec', parameters: { type: 'object' } }];
    const current: ContentPart[] = [{ type: 'text', text: 'hello' }];
    await builder.build({ history: turns, tools, current });
    tools[0] = { name: 'exec', parameters: { type: 'object', required: ['command'] } };
    await builder.build({ history: turns, tools, current });
    current[0] = { type: 'text', text: 'hello again' };
    await builder.build({ history: turns, tools, current });
    expect(filter.runs).toBe(3);
    await builder.build({ history: turns, tools, current });
    expect(filter.runs).toBe(3);
  });

  it("builds again when a provider that gave nothing now fails, and shows this build's provider decisions", async () => {
    const filter = counting();
    const memory = { fail: false, note: 'MEMORY.md is empty' };
    const flaky: MessageProvider = {
      id: 'memory',
      getMessages: () => {
        if (memory.fail) throw new Error('EACCES: permission denied, open MEMORY.md');
        return {
          messages: [],
          decisions: [{ type: 'section-skip', stage: 'memory', reason: memory.note, messageIds: [] }],
        };
      },
    };
    const builder = new ContextPipeline({
      providers: [prompt({ text: 'Be brief.' }), flaky, history],
      filters: [filter],
      reuseUnchangedBuilds: true,
    });
    await builder.build({ history: turns });
    memory.note = 'MEMORY.md is blank';
    const noted = await builder.build({ history: turns });
    expect(filter.runs).toBe(1);
    expect(noted.trace.stages[1]?.decisions.map((entry) => entry.reason)).toEqual(['MEMORY.md is blank']);
    memory.fail = true;
    const failed = await builder.build({ history: turns });
    expect(filter.runs).toBe(2);
    expect(failed.trace.stages[1]?.error?.message).toContain('EACCES');
    expect(failed.trace.stages[1]?.decisions).toEqual([]);
    // A failed build is not remembered; once the provider recovers, the next build runs too.
    memory.fail = false;
    const recovered = await builder.build({ history: turns });
    expect(filter.runs).toBe(3);
    expect(recovered.trace.stages[1]?.error).toBeUndefined();
  });

  it('never reuses a build with loop state, and is off by default', async () => {
    const filter = counting();
    const builder = pipeline({ text: 'Be brief.' }, filter);
    const state: BuildInput['state'] = { loop: { step: 1 } };
    await builder.build({ history: turns, state });
    await builder.build({ history: turns, state });
    expect(filter.runs).toBe(2);
    const plain = counting();
    const off = pipeline({ text: 'Be brief.' }, plain, false);
    await off.build({ history: turns });
    await off.build({ history: turns });
    expect(plain.runs).toBe(2);
  });
});
