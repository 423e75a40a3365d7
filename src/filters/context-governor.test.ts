import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assistant, system, tool, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { traceDecisions } from '../pipeline/build-trace.js';
import { ContextBuilder } from '../presets/context-builder.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { ContextGovernor } from './context-governor.js';
import { resolveInputBudget } from './governor-constants.js';
import { GOVERNOR_STATE_KEY } from './governor-run-state.js';

let workspace = '';
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-governor-'));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const call = (id: string, name = 'exec') => ({ id, name, arguments: '{"cmd":"ls"}' });

describe('resolveInputBudget', () => {
  it('is window − output − 1024, the block limit when set, 0 without a window, never negative', () => {
    expect(resolveInputBudget({ contextWindowTokens: 200_000, maxOutputTokens: 8_192 })).toBe(190_784);
    expect(resolveInputBudget({ contextWindowTokens: 10_000 })).toBe(10_000 - 4_096 - 1_024);
    expect(resolveInputBudget({ contextWindowTokens: 1_000, blockLimit: 5_000 })).toBe(5_000);
    expect(resolveInputBudget({ blockLimit: 5_000 })).toBe(0);
    expect(() => resolveInputBudget({ contextWindowTokens: 1_000, maxOutputTokens: 2_000 })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
    expect(
      new ContextGovernor({ contextWindowTokens: 8_000, maxOutputTokens: 0, safetyBufferTokens: 0 })
        .budgetTokens,
    ).toBe(8_000);
  });
});

describe('ContextGovernor', () => {
  it('returns the same array for a clean history, with a trace of the nine steps', async () => {
    const history = [
      system('s'),
      user('hi'),
      assistant('', { toolCalls: [call('c1')] }),
      tool('ok', { toolCallId: 'c1', name: 'exec' }),
      assistant('done'),
    ];
    const governor = new ContextGovernor({ contextWindowTokens: 100_000, workspace });
    const { messages, trace } = await governor.prepareForModel(history);
    expect(messages).toBe(history);
    expect(trace.stages.map((stage) => stage.id)).toEqual([
      'strip-placeholder-assistants',
      'strip-malformed-tool-calls',
      'drop-orphan-tool-results',
      'backfill-tool-results',
      'tool-result-budget',
      'inflight-compaction',
      'snip-history',
      'drop-orphan-tool-results-after-snip',
      'backfill-tool-results-after-snip',
      'budget-guard',
    ]);
    expect(traceDecisions(trace)).toEqual([]);
  });

  it('repairs a wedged session: null tool name from a relay, orphan, placeholder, missing result', async () => {
    const nullName = null as unknown as string; // what an untrusted relay stores
    const history: readonly Message[] = [
      system('s', { id: 's' }),
      user('hi', { id: 'u1' }),
      assistant('', { id: 'bad', toolCalls: [{ id: 'x', name: nullName, arguments: '{}' }] }),
      tool('lost', { id: 'tx', toolCallId: 'x' }),
      assistant('[Previous assistant message omitted.]', { id: 'ph' }),
      user('again', { id: 'u2' }),
      assistant('', { id: 'a', toolCalls: [call('c1'), call('c2', 'grep')] }),
      tool('', { id: 't1', toolCallId: 'c1', name: 'exec' }),
    ];
    const snapshot = structuredClone(history);
    const { messages, trace } = await new ContextGovernor({ debug: true }).prepareForModel(history);
    expect(messages.map((message) => message.id)).toEqual(['s', 'u1', 'u2', 'a', 't1', 'a:backfill:c2']);
    expect(messages[4]?.content).toBe('(exec completed with no output)');
    expect(messages[5]?.content).toBe('[Tool result unavailable — call was interrupted or lost]');
    expect(validateToolCallIntegrity(messages)).toEqual([]);
    expect(history).toEqual(snapshot);
    expect(traceDecisions(trace).map((entry) => entry.type)).toEqual([
      'message-drop',
      'tool-call-repair',
      'message-drop',
      'message-drop',
      'tool-result-backfill',
      'message-rewrite',
    ]);
    expect(trace.stages.at(-1)?.violations).toBeUndefined();
  });

  it('offloads, compacts and snips in one call; the compacted set carries to the next call', async () => {
    const big = 'o'.repeat(20_000);
    const initial: readonly Message[] = [
      system('s', { id: 's' }),
      user('old '.repeat(3000), { id: 'u0' }),
      assistant('ok', { id: 'a0' }),
      user('task', { id: 'u1' }),
    ];
    const inflight: readonly Message[] = [
      assistant('', { id: 'a1', toolCalls: [call('c1', 'exec')] }),
      tool(big, { id: 't1', toolCallId: 'c1', name: 'exec' }),
      assistant('', { id: 'a2', toolCalls: [call('c2', 'grep')] }),
      tool('g'.repeat(3000), { id: 't2', toolCallId: 'c2', name: 'grep' }),
      assistant('', { id: 'a3', toolCalls: [call('c3', 'grep')] }),
      tool('h'.repeat(3000), { id: 't3', toolCallId: 'c3', name: 'grep' }),
    ];
    const governor = new ContextGovernor({
      contextWindowTokens: 3_000,
      maxOutputTokens: 500,
      safetyBufferTokens: 0,
      workspace,
      sessionKey: 'run',
    });
    const compactedToolCallIds = new Set<string>();
    const messages = [...initial, ...inflight];
    const result = await governor.prepareForModel(messages, {
      inflightStartIndex: initial.length,
      compactedToolCallIds,
    });
    const types = traceDecisions(result.trace).map((entry) => entry.type);
    expect(types).toContain('tool-result-offload');
    expect(types).toContain('tool-result-compact');
    expect(types).toContain('message-drop');
    expect(await readFile(path.join(workspace, '.ctxloom', 'tool-results', 'run', 'c1.txt'), 'utf8')).toBe(
      big,
    );
    expect([...compactedToolCallIds].length).toBeGreaterThan(0);
    expect(result.trace.totalTokens).toBeLessThanOrEqual(2_500);
    expect(result.messages.map((message) => message.id)).not.toContain('u0');
    const again = await governor.prepareForModel(messages, {
      inflightStartIndex: initial.length,
      compactedToolCallIds,
    });
    expect(again.messages).toEqual(result.messages);
  });

  it('offloads a read_file result when offloadExemptTools un-exempts it, keeping the history it would cut', async () => {
    const history: Message[] = [system('s', { id: 's' })];
    for (let turn = 0; turn < 20; turn += 1)
      history.push(
        user(`q${turn} ${'w '.repeat(100)}`, { id: `u${turn}` }),
        assistant(`a${turn}`, { id: `a${turn}` }),
      );
    history.push(
      user('read it', { id: 'ur' }),
      assistant('', { id: 'ar', toolCalls: [call('c_read', 'read_file')] }),
      tool(fileText(50_000), { id: 'tr', toolCallId: 'c_read', name: 'read_file' }),
      assistant('read', { id: 'ad' }),
      user('and now?', { id: 'un' }),
    );
    const govern = (options: { offloadExemptTools?: readonly string[] }) =>
      new ContextGovernor({
        contextWindowTokens: 20_000,
        workspace,
        sessionKey: 'k',
        ...options,
      }).prepareForModel(history);
    const exempt = await govern({});
    expect(exempt.messages.map((message) => message.id)).toEqual(['s', 'un']);
    const offloaded = await govern({ offloadExemptTools: [] });
    const types = traceDecisions(offloaded.trace).map((entry) => entry.type);
    expect(types).toContain('tool-result-offload');
    expect(types).not.toContain('message-drop');
    expect(offloaded.messages.map((message) => message.id)).toEqual(history.map((message) => message.id));
    expect(await readFile(path.join(workspace, '.ctxloom', 'tool-results', 'k', 'c_read.txt'), 'utf8')).toBe(
      fileText(50_000),
    );
  });

  it('treats nothing as in flight by default, so history results are never compacted', async () => {
    const governor = new ContextGovernor({
      contextWindowTokens: 2_000,
      maxOutputTokens: 0,
      safetyBufferTokens: 0,
    });
    const history = [
      system('s'),
      user('look'),
      assistant('', { toolCalls: [{ id: 'c1', name: 'grep', arguments: '{}' }] }),
      tool('g'.repeat(9_000), { toolCallId: 'c1', name: 'grep' }),
      user('and now?'),
    ];
    const { trace } = await governor.prepareForModel(history);
    expect(trace.stages.flatMap((stage) => stage.decisions).map((entry) => entry.type)).not.toContain(
      'tool-result-compact',
    );
  });

  it('throws a typed error with the numbers when even the last user turn does not fit', async () => {
    const tokenCounter = new SimpleTokenCounter();
    const governor = new ContextGovernor({
      contextWindowTokens: 1_000,
      maxOutputTokens: 0,
      safetyBufferTokens: 0,
      tokenCounter,
    });
    const history = [system('s'), user('old'), assistant('ok'), user('x'.repeat(8_000))];
    await expect(governor.prepareForModel(history)).rejects.toMatchObject({
      code: 'BUDGET_UNSATISFIABLE',
      budget: 1_000,
      required: 2_009,
      pinnedTokens: 2_009,
      message: expect.stringContaining('the input budget is 1000'),
    });
    const kept = await new ContextGovernor({
      contextWindowTokens: 1_000,
      maxOutputTokens: 0,
      safetyBufferTokens: 0,
      onOverBudget: 'keep',
      tokenCounter,
    }).prepareForModel(history);
    expect(kept.messages.map((message) => message.role)).toEqual(['system', 'user']);
  });

  it('runs as filters inside a ContextBuilder, with per-call state in BuildInput.state', async () => {
    const governor = new ContextGovernor({ contextWindowTokens: 100_000 });
    const builder = new ContextBuilder({ filters: governor.filters });
    const history = [user('hi'), assistant('', { toolCalls: [call('k')] })];
    const { messages } = await builder.transform(history, {
      state: { [GOVERNOR_STATE_KEY]: { inflightStartIndex: 0, compactedToolCallIds: new Set() } },
    });
    expect(messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'k' });
  });

  it('stops with ABORTED when the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      new ContextGovernor().prepareForModel([user('x')], { signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('follows a list one run slides in place (old messages spliced out, new ones pushed) with its history window', async () => {
    const options = {
      contextWindowTokens: 3_000,
      maxOutputTokens: 500,
      tokenCounter: new SimpleTokenCounter(),
    };
    const windowed = new ContextGovernor(options);
    const compactedToolCallIds = new Set<string>();
    const messages: Message[] = [];
    for (let turn = 0; turn < 300; turn += 1) {
      messages.push(user(`question ${turn} `.repeat(10)), assistant(`answer ${turn} `.repeat(20)));
      // A late system message inside the first window: the slide moves it into the part left out.
      if (turn === 285) messages.push(system('A late instruction.'));
    }
    await windowed.prepareForModel(messages, { compactedToolCallIds });
    messages.splice(0, 10);
    for (let turn = 0; turn < 5; turn += 1) {
      messages.push(user(`slid question ${turn} `.repeat(10)), assistant(`slid answer ${turn} `.repeat(20)));
    }
    const slid = await windowed.prepareForModel(messages, { compactedToolCallIds });
    const whole = await new ContextGovernor({ ...options, historyWindow: false }).prepareForModel([
      ...messages,
    ]);
    expect(slid.messages).toEqual(whole.messages);
    expect(slid.messages.some((message) => message.content === 'A late instruction.')).toBe(true);
  });
});

/** `chars` characters of short numbered words: about one token per two characters, like source code. */
function fileText(chars: number): string {
  return Array.from({ length: Math.ceil(chars / 6) }, (_, index) => `w${(index * 7919) % 10_007} `)
    .join('')
    .slice(0, chars);
}
