import { describe, expect, it } from 'vitest';
import { ContextError } from '../core/errors.js';
import { assistant, user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { ContextBuilder } from '../presets/context-builder.js';
import { ContextPipeline } from './context-pipeline.js';
import type { MessageProvider } from './contracts.js';

const generateId = createSequentialIdGenerator('v');
const history: MessageProvider = { id: 'history', getMessages: (input) => input.history ?? [] };

async function invalidInput(run: () => Promise<unknown>): Promise<ContextError> {
  try {
    await run();
  } catch (error) {
    if (ContextError.isInstance(error) && error.code === 'INVALID_INPUT') return error;
    throw error;
  }
  throw new Error('expected INVALID_INPUT');
}

// The tests hand over what plain JavaScript callers could: values the types would refuse.
function untyped<T>(value: unknown): T {
  return value as T;
}

describe('build input validation', () => {
  const builder = ContextBuilder.forChat({ systemPrompt: 'Be brief.' });

  it('refuses a history that is not an array and says what it got', async () => {
    const error = await invalidInput(() => builder.build(untyped({ history: 'hello' })));
    expect(error.message).toBe(
      'build: invalid input at history: expected an array of messages, got the string "hello".',
    );
    expect(error.details).toMatchObject({ path: 'history', received: 'the string "hello"' });
  });

  it('refuses a current message that is neither text nor parts', async () => {
    const error = await invalidInput(() => builder.build(untyped({ current: 123 })));
    expect(error.message).toContain('at current: expected a string or an array of content parts');
    expect(error.message).toContain('got the number 123');
  });

  it('names the bad role with its index', async () => {
    const messages = [user('hi', { generateId }), { id: 'x', role: 'usr', content: 'hello' }];
    const error = await invalidInput(() => builder.build(untyped({ history: messages })));
    expect(error.message).toContain(
      'at history[1].role: expected one of "system", "user", "assistant", "tool"',
    );
    expect(error.message).toContain('got the string "usr"');
  });

  it('checks what a caller pushed to the same history array since the last build', async () => {
    const own = ContextBuilder.forChat({ systemPrompt: 'Be brief.' });
    const messages: unknown[] = [user('hi', { generateId }), assistant('hello', { generateId })];
    await own.build(untyped({ history: messages }));
    messages.push({ id: 'y', role: 'usr', content: 'again' });
    const error = await invalidInput(() => own.build(untyped({ history: messages })));
    expect(error.message).toContain('at history[2].role');
  });

  it('checks a reused history array whose old part changed (a sliding window) in full', async () => {
    const own = ContextBuilder.forChat({ systemPrompt: 'Be brief.' });
    const messages: unknown[] = [
      user('one', { generateId }),
      assistant('two', { generateId }),
      user('three', { generateId }),
    ];
    await own.build(untyped({ history: messages }));
    // Two old messages out, two new ones in: the same array, as long as before, new at old positions.
    messages.splice(0, 2);
    messages.push({ id: 'bad', role: 'usr', content: 'four' }, user('five', { generateId }));
    const error = await invalidInput(() => own.build(untyped({ history: messages })));
    expect(error.message).toContain('at history[1].role');
    // The same, shifted by one and one longer.
    const slid: unknown[] = [user('a', { generateId }), assistant('b', { generateId })];
    await own.build(untyped({ history: slid }));
    slid.shift();
    slid.push(user('c', { generateId }), { id: 'worse', role: 'user', content: 7 });
    const shifted = await invalidInput(() => own.build(untyped({ history: slid })));
    expect(shifted.message).toContain('at history[2].content');
  });

  it('refuses numeric content instead of crashing', async () => {
    const error = await invalidInput(() =>
      builder.build(untyped({ history: [{ id: 'a', role: 'user', content: 42 }] })),
    );
    expect(error.details).toMatchObject({ path: 'history[0].content', received: 'the number 42' });
  });

  it('names a bad part and a bad tool call field', async () => {
    const part = await invalidInput(() =>
      builder.build(
        untyped({
          current: [
            { type: 'text', text: 'a' },
            { type: 'txt', text: 'b' },
          ],
        }),
      ),
    );
    expect(part.details['path']).toBe('current[1].type');
    const call = await invalidInput(() =>
      builder.build(
        untyped({
          history: [
            { id: 'a', role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'x', arguments: {} }] },
          ],
        }),
      ),
    );
    expect(call.details).toMatchObject({
      path: 'history[0].toolCalls[0].arguments',
      received: 'an empty object',
    });
  });

  it('checks the other input fields', async () => {
    const cases: readonly [Record<string, unknown>, string][] = [
      [{ currentRole: 'system' }, 'currentRole'],
      [{ media: ['a.png', 3] }, 'media[1]'],
      [{ runtimeContext: [{ source: 'time' }] }, 'runtimeContext[0].content'],
      [{ tools: [{ description: 'x' }] }, 'tools[0].name'],
      [{ sessionKey: 7 }, 'sessionKey'],
      [{ summary: { text: 'x' } }, 'summary.lastActive'],
      [{ state: 'x' }, 'state'],
      [{ signal: true }, 'signal'],
    ];
    for (const [input, path] of cases) {
      const error = await invalidInput(() => builder.build(untyped(input)));
      expect(error.details['path']).toBe(path);
    }
    await expect(invalidInput(() => builder.build(untyped('hi')))).resolves.toMatchObject({
      details: { path: 'input' },
    });
  });

  it('checks the messages of transform and of prepareForModel', async () => {
    const pipeline = new ContextPipeline();
    const error = await invalidInput(() => pipeline.transform(untyped([{ id: 'a', role: 'user' }])));
    expect(error.message).toBe(
      'transform: invalid input at messages[0].content: expected a string or an array of content parts, got undefined.',
    );
    const governor = new ContextGovernor();
    const governed = await invalidInput(() => governor.prepareForModel(untyped('hello')));
    expect(governed.details).toMatchObject({ path: 'messages', received: 'the string "hello"' });
  });

  it('accepts what the factories make, tool messages without a call id included (the repair filters drop them)', async () => {
    const messages: readonly Message[] = [
      user([{ type: 'image', url: 'data:image/png;base64,AA==' }], { generateId }),
      assistant('', { generateId, toolCalls: [{ id: 'c1', name: '', arguments: '{' }] }),
      { id: 't', role: 'tool', content: 'r' },
    ];
    const pipeline = new ContextPipeline({ providers: [history] });
    const { messages: out } = await pipeline.build({ history: messages, current: 'next' });
    expect(out).toHaveLength(3);
  });

  it('checks each message object once, so replayed history costs nothing on later builds', async () => {
    let reads = 0;
    const counted = new Proxy(user('hi', { generateId }), {
      get(target, key, receiver) {
        if (key === 'role') reads += 1;
        return Reflect.get(target, key, receiver);
      },
    });
    const pipeline = new ContextPipeline();
    // Newer messages after it: the context-loss check reads the newest ones, not an old message.
    const newer = [assistant('ok', { generateId }), user('tail', { generateId })];
    await pipeline.transform([counted, ...newer]);
    const afterFirst = reads;
    expect(afterFirst).toBeGreaterThan(0);
    await pipeline.transform([counted, ...newer]);
    await pipeline.transform([counted, ...newer, user('more', { generateId })]);
    expect(reads).toBe(afterFirst);
  });

  it('reports a non-number maxTokens with its type', () => {
    expect(() => ContextBuilder.forChat({ maxInputTokens: untyped('8000') })).toThrow(
      'maxInputTokens must be a finite number ≥ 0 (the input budget in tokens), got the string "8000"',
    );
  });
});
