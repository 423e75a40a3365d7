import { describe, expect, it } from 'vitest';
import { textOf } from '../core/content.js';
import type { Message } from '../core/message.js';
import { createScriptedSummarizer } from '../testing/scripted-summarizer.js';
import { EstimatingTokenCounter } from '../tokens/estimating-token-counter.js';
import { compactionStrategy } from './compaction-strategy.js';
import { generateScenario } from './generate-scenario.js';
import { EVAL_TOOLS } from './scenario-text.js';

const history: Message[] = Array.from({ length: 30 }, (_, index) => ({
  id: `m${index}`,
  role: index % 2 === 0 ? 'user' : 'assistant',
  content: `message ${index} ${'word '.repeat(80)}`,
}));
const counter = new EstimatingTokenCounter();
const fixedTokens =
  counter.countTools(EVAL_TOOLS) +
  counter.countMessage({ id: 'eval-system', role: 'system', content: 'You are a careful agent.' });
const historyTokens = counter.countMessages(history) + fixedTokens;

async function started(
  options: Parameters<typeof compactionStrategy>[0],
  summarizer: 'lossy' | 'failing' = 'lossy',
) {
  const strategy = compactionStrategy(options);
  return strategy.start({
    scenario: generateScenario({ family: 'facts-updates', turns: 20, seed: 1 }),
    systemPrompt: 'You are a careful agent.',
    // The request takes about 70% of the budget: over a background ratio of 0.5, under 0.8.
    budgetTokens: Math.round(historyTokens / 0.7),
    tools: EVAL_TOOLS,
    tokenCounter: counter,
    summariser: createScriptedSummarizer(summarizer),
  });
}

const call = (turn: number, messages: readonly Message[]) => ({
  history: messages,
  user: { id: `u${turn}`, role: 'user' as const, content: `request ${turn}` },
  inflight: [],
  turn,
  step: 0,
});

describe('compactionStrategy', () => {
  it("pins the user's messages: a summary replaces the rest, the user's words stay verbatim", async () => {
    // Short user messages, long answers: the pins fit the room the target leaves them.
    const chat = history.map((message) =>
      message.role === 'user' ? { ...message, content: `rule ${message.id}: answer in French` } : message,
    );
    const run = await started({ compaction: { trigger: 0.4, target: 0.35, maxOutputTokens: 200 } });
    const sent = await run.messagesFor(call(1, chat));
    const state = run.compactions?.();
    expect(state?.records).toHaveLength(1);
    expect(sent.some((message) => textOf(message.content).includes('<conversation-summary>'))).toBe(true);
    const replaced = new Set(state?.records[0]?.replaces);
    expect(replaced.size).toBeGreaterThan(0);
    const users = chat.filter((message) => message.role === 'user');
    expect(users.some((message) => replaced.has(message.id))).toBe(false);
    const sentIds = new Set(sent.map((message) => message.id));
    expect(users.every((message) => sentIds.has(message.id))).toBe(true);
  });

  it('background: the turn goes on with the full view, the record is swapped in at the next turn', async () => {
    const run = await started({ compaction: { background: { startAt: 0.6 }, maxOutputTokens: 200 } });
    const first = await run.messagesFor(call(1, history));
    expect(first.map((message) => message.id)).toContain('m0');
    expect(run.compactions?.().records).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    const grown = [...history, call(1, history).user];
    const second = await run.messagesFor(call(2, grown));
    const [record] = run.compactions?.().records ?? [];
    expect(record?.trigger).toBe('background');
    expect(second.map((message) => message.id)).not.toContain('m1');
  });

  it('background: a record whose span changed meanwhile (a rewind) is discarded, not applied', async () => {
    const run = await started({ compaction: { background: { startAt: 0.6 }, maxOutputTokens: 200 } });
    await run.messagesFor(call(1, history));
    await new Promise((resolve) => setTimeout(resolve, 0));
    const rewound = history.slice(0, 4);
    const sent = await run.messagesFor(call(2, rewound));
    expect(run.compactions?.()).toMatchObject({ records: [], discardedBackgroundCompactions: 1 });
    expect(sent.map((message) => message.id)).toEqual(['eval-system', 'm0', 'm1', 'm2', 'm3', 'u2']);
  });

  it('a failing summariser changes nothing and is counted', async () => {
    const run = await started({ compaction: { trigger: 0.5, target: 0.3, maxOutputTokens: 200 } }, 'failing');
    const sent = await run.messagesFor(call(1, history));
    expect(run.compactions?.()).toMatchObject({
      records: [],
      failedAttempts: 1,
      failedAttemptsThatChanged: 0,
    });
    expect(sent.map((message) => message.id)).toContain('m0');
  });

  it('refuses a compaction option the run gives (the summariser) and names it', () => {
    expect(() => compactionStrategy({ compaction: { summarizer: {} } } as never)).toThrow(/summarizer/);
  });

  it('refuses a trigger at or under the target when a run starts (the library checks the values)', async () => {
    await expect(started({ compaction: { trigger: 0.4, target: 0.5 } })).rejects.toThrow(/trigger/);
  });
});
