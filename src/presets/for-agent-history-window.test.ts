import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistant, user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import type { ContextFilter } from '../pipeline/contracts.js';
import { getHistory } from '../sessions/get-history.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { ContextBuilder } from './context-builder.js';
import { agentPresetOptions } from './for-agent.js';

let workspace = '';
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-window-unit-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function agent(historyWindow = true): ContextBuilder {
  return ContextBuilder.forAgent({
    workspace,
    platform: { os: 'linux', arch: 'x64', nodeVersion: '20.20.2' },
    skills: { builtinDir: null },
    includeMemory: false,
    recentHistory: false,
    tokenCounter: new SimpleTokenCounter(),
    contextWindowTokens: 1_000_000,
    governor: { blockLimit: 4_000 },
    historyWindow,
  });
}

/** Messages whose `content` reads are counted: what a turn looks at. */
function watched(count: number, reads: { value: number }): Message[] {
  const generateId = createSequentialIdGenerator('w');
  return Array.from({ length: count }, (_, index) => {
    const message =
      index % 2 === 0
        ? user(`question ${index} `.repeat(10), { generateId })
        : assistant(`answer ${index} `.repeat(30), { generateId });
    return new Proxy(message, {
      get(target, key, receiver) {
        if (key === 'content') reads.value += 1;
        return Reflect.get(target, key, receiver);
      },
    });
  });
}

describe('forAgent history window', () => {
  it('leaves out what the governor would snip and reports it as one range', async () => {
    const reads = { value: 0 };
    const history = watched(2_000, reads);
    const { messages, trace } = await agent().build({ history, current: 'next' });
    const whole = await agent(false).build({ history, current: 'next' });
    expect(messages.slice(1, -1)).toEqual(whole.messages.slice(1, -1));
    const stage = trace.stages.find((item) => item.id === 'history');
    const range = stage?.decisions[0]?.messageRange;
    expect(range?.firstId).toBe(history[0]?.id);
    expect(range?.count).toBeGreaterThan(1_800);
    expect((stage?.messagesOut ?? 0) - (stage?.messagesIn ?? 0)).toBe(2_000 - (range?.count ?? 0));
  });

  it('reads no old message on a turn that appends one, and none when nothing is new', async () => {
    const reads = { value: 0 };
    const history = watched(2_000, reads);
    const builder = agent();
    const first = await builder.build({ history, current: 'next' });
    const kept = first.messages.length;

    reads.value = 0;
    await builder.build({ history: [...history], current: 'next' });
    const nothingNew = reads.value;
    reads.value = 0;
    const grown = [...history, assistant('one more answer'), user('and another question')];
    const next = await builder.build({ history: grown, current: 'next' });
    const plusOne = reads.value;
    // Only the kept window (about `kept` messages) is looked at, never the 2,000-message history.
    expect(nothingNew).toBeLessThan(kept * 12);
    expect(plusOne).toBeLessThan(kept * 12);
    const whole = await agent(false).build({ history: grown, current: 'next' });
    // The first message (the joined system prompt) and the last (the current one) have generated ids.
    expect(next.messages.slice(1, -1)).toEqual(whole.messages.slice(1, -1));
    expect(next.messages.length).toBeGreaterThan(10);
  });

  it('reuses what it learnt on a turn that replays a session kept in memory (getHistory)', async () => {
    const stored = watched(2_000, { value: 0 });
    const session = { messages: stored, lastConsolidated: 0 };
    const builder = agent();
    const first = await builder.build({ history: getHistory(session), current: 'next' });
    stored.push(assistant('one more answer'), user('and another question'));
    const history = getHistory(session);
    const next = await builder.build({ history, current: 'next' });
    // The old messages come back as the objects of the last build: known by identity, not re-read.
    const before = new Map(first.messages.map((message) => [message.id, message]));
    const old = next.messages.slice(1, -3);
    expect(old.length).toBeGreaterThan(10);
    for (const message of old) expect(message).toBe(before.get(message.id));
    const whole = await agent(false).build({ history, current: 'next' });
    expect(next.messages.slice(1, -1)).toEqual(whole.messages.slice(1, -1));
  });

  it('starts over when an old message is edited', async () => {
    const builder = agent();
    const history = watched(600, { value: 0 });
    await builder.build({ history, current: 'next' });
    const editedHistory = [...history];
    editedHistory[1] = { ...(history[1] as Message), content: 'x'.repeat(40_000) };
    const edited = await builder.build({ history: editedHistory, current: 'next' });
    const whole = await agent(false).build({ history: editedHistory, current: 'next' });
    expect(edited.messages.map((message) => message.content)).toEqual(
      whole.messages.map((message) => message.content),
    );
  });

  it('follows a history array the caller pushes to and passes again, turn after turn', async () => {
    const builder = agent();
    const history = watched(1_500, { value: 0 });
    for (let turn = 0; turn < 6; turn += 1) {
      history.push(assistant(`answer ${turn} `.repeat(30)), user(`question ${turn} `.repeat(10)));
      const pushed = await builder.build({ history, current: 'next' });
      const whole = await agent(false).build({ history: [...history], current: 'next' });
      expect(pushed.messages.slice(1, -1)).toEqual(whole.messages.slice(1, -1));
    }
  });

  it('follows a history array the caller slides (old messages spliced out, new ones pushed)', async () => {
    const builder = agent();
    const history = watched(1_500, { value: 0 });
    for (let turn = 0; turn < 4; turn += 1) {
      history.splice(0, 2);
      history.push(assistant(`slid answer ${turn} `.repeat(30)), user(`slid question ${turn} `.repeat(10)));
      const slid = await builder.build({ history, current: 'next' });
      const whole = await agent(false).build({ history: [...history], current: 'next' });
      expect(slid.messages.slice(1, -1)).toEqual(whole.messages.slice(1, -1));
    }
  });

  it('builds again for a history array pushed to in place when a filter reads the whole history (the window emits it as it is)', async () => {
    const options = agentPresetOptions({
      workspace,
      platform: { os: 'linux', arch: 'x64', nodeVersion: '20.20.2' },
      skills: { builtinDir: null },
      includeMemory: false,
      recentHistory: false,
      tokenCounter: new SimpleTokenCounter(),
    });
    const readsAll: ContextFilter = {
      id: 'reads-all',
      readsWholeHistory: true,
      apply: (messages) => ({ messages, decisions: [] }),
    };
    const builder = new ContextBuilder({ ...options, filters: [...(options.filters ?? []), readsAll] });
    const history: Message[] = [user('first'), assistant('answer one')];
    const first = await builder.build({ history, current: 'next' });
    history.push(user('second'), assistant('answer two'));
    const second = await builder.build({ history, current: 'next' });
    expect(second.messages).not.toBe(first.messages);
    expect(second.messages.slice(1).map((message) => message.content)).toEqual([
      'first',
      'answer one',
      'second',
      'answer two',
      'next',
    ]);
  });
});
