import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistant, tool, user } from '../../src/core/index.js';
import { ContextBuilder, JsonlSessionStore, type Message } from '../../src/index.js';
import { replaySession } from '../../src/sessions/index.js';
import { countingTokenCounter } from '../helpers/counting-token-counter.js';

let root = '';
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ctxloom-agent-turn-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

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
    const counter = countingTokenCounter();
    const budget = { tokenCounter: counter, contextWindowTokens: 32_000, maxOutputTokens: 4_000 };
    const agent = () =>
      ContextBuilder.forAgent({
        workspace,
        platform: { os: 'linux', arch: 'x64', nodeVersion: '20.20.2' },
        skills: { builtinDir: null },
        recentHistory: false,
        ...budget,
      });
    const builder = agent();
    const turn = async (current: string) => {
      const replayed = replaySession(await store.load('cli:direct'), budget);
      return builder.build({ ...replayed, current, sessionKey: 'cli:direct' });
    };

    const first = await turn('what next?');
    const callsFirst = counter.calls;
    await store.append('cli:direct', [user('what next?'), assistant('the tests')]);
    counter.calls = 0;
    const second = await turn('and then?');

    expect(callsFirst).toBeGreaterThan(150);
    // The two new messages, the new current message and the system prompt's parts at most.
    expect(counter.calls).toBeLessThan(15);
    const before = new Map(first.messages.map((message) => [message.id, message]));
    const old = second.messages.slice(1, -3);
    expect(old.length).toBeGreaterThan(20);
    for (const message of old) expect(message).toBe(before.get(message.id));
    // What a builder and a store that remember nothing send for the same turn.
    const fresh = agent();
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
