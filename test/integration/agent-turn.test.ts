import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistant, tool, user } from '../../src/core/index.js';
import {
  ContextBuilder,
  JsonlSessionStore,
  type Message,
  SimpleTokenCounter,
  type TokenCounter,
} from '../../src/index.js';
import { replaySession } from '../../src/sessions/index.js';

let root = '';
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ctxloom-agent-turn-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A counter that counts the texts and messages it is asked to count (what no cache answered). */
function countingCounter(): TokenCounter & { counted: number } {
  const inner = new SimpleTokenCounter();
  const counter = {
    specificationVersion: 'v1' as const,
    id: 'counting',
    counted: 0,
    countText: (text: string) => {
      counter.counted += 1;
      return inner.countText(text);
    },
    countMessage: (message: Message) => {
      counter.counted += 1;
      return inner.countMessage(message);
    },
    countMessages: (messages: readonly Message[]) => inner.countMessages(messages),
    countTools: (tools: Parameters<TokenCounter['countTools']>[0]) => inner.countTools(tools),
  };
  return counter;
}

function session(turns: number): Message[] {
  return Array.from({ length: turns }, (_, turn) => [
    user(`question ${turn} `.repeat(20)),
    assistant('', { toolCalls: [{ id: `call_${turn}`, name: 'exec', arguments: '{"cmd":"ls"}' }] }),
    tool(`output ${turn} `.repeat(60), { toolCallId: `call_${turn}`, name: 'exec' }),
    assistant(`answer ${turn} `.repeat(40)),
  ]).flat();
}

describe('an agent turn through the JSONL store (load, replaySession, build)', () => {
  it('counts only what is new and sends the old messages as the same objects', async () => {
    const workspace = path.join(root, 'agent');
    const store = new JsonlSessionStore({ dir: path.join(root, 'sessions') });
    await store.append('cli:direct', session(150));
    const counter = countingCounter();
    const budget = { tokenCounter: counter, contextWindowTokens: 32_000, maxOutputTokens: 4_000 };
    const builder = ContextBuilder.forAgent({
      workspace,
      platform: { os: 'linux', arch: 'x64', nodeVersion: '20.20.2' },
      skills: { builtinDir: null },
      recentHistory: false,
      ...budget,
    });
    const turn = async (current: string) => {
      const replayed = replaySession(await store.load('cli:direct'), budget);
      return builder.build({ ...replayed, current, sessionKey: 'cli:direct' });
    };

    const first = await turn('what next?');
    const countedFirst = counter.counted;
    await store.append('cli:direct', [user('what next?'), assistant('the tests')]);
    counter.counted = 0;
    const second = await turn('and then?');

    expect(countedFirst).toBeGreaterThan(150);
    // The two new messages, the new current message and the system prompt's parts at most.
    expect(counter.counted).toBeLessThan(15);
    const before = new Map(first.messages.map((message) => [message.id, message]));
    const old = second.messages.slice(1, -3);
    expect(old.length).toBeGreaterThan(20);
    for (const message of old) expect(message).toBe(before.get(message.id));
    // What a builder and a store that remember nothing send for the same turn.
    const fresh = ContextBuilder.forAgent({
      workspace,
      platform: { os: 'linux', arch: 'x64', nodeVersion: '20.20.2' },
      skills: { builtinDir: null },
      recentHistory: false,
      ...budget,
    });
    const stored = await new JsonlSessionStore({
      dir: path.join(root, 'sessions'),
      cachedSessionBytes: 0,
    }).load('cli:direct');
    const whole = await fresh.build({
      ...replaySession(stored, budget),
      current: 'and then?',
      sessionKey: 'cli:direct',
    });
    expect(second.messages.slice(1, -1)).toEqual(whole.messages.slice(1, -1));
  });
});
