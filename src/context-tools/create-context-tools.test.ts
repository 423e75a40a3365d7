import { rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  contextToolsFixture,
  FACT,
  failingMetadataStore,
  HISTORY_FACT,
  OFFLOAD_FACT,
  SESSION_KEY,
} from '../../test/helpers/context-tools-session.js';
import { textOf } from '../core/content.js';
import { ContextError } from '../core/errors.js';
import { sessionView } from '../core/session-view.js';
import { ContextBuilder } from '../presets/context-builder.js';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import { loadReplayedSession } from '../sessions/replay-session.js';
import { sessionCompactions } from '../sessions/session-compactions.js';
import { sessionNotesOf } from '../sessions/session-notes-of.js';
import type { SessionStore } from '../sessions/session-store.js';
import { createScriptedSummarizer } from '../testing/scripted-summarizer.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { contextToolOutput } from './context-tool-result.js';
import { type ContextTools, createContextTools } from './create-context-tools.js';

const workspaces: string[] = [];
afterEach(async () => {
  for (const dir of workspaces.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function setUp(
  options: { readonly store?: SessionStore; readonly floor?: number; readonly turns?: number } = {},
): Promise<{
  readonly tools: ContextTools;
  readonly store: SessionStore;
  readonly recordId: string;
  readonly workspace: string;
}> {
  const fixture = await contextToolsFixture({
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.turns === undefined ? {} : { turns: options.turns }),
  });
  workspaces.push(fixture.workspace);
  const tools = createContextTools({
    workspace: fixture.workspace,
    store: fixture.store,
    sessionKey: fixture.sessionKey,
    summarizer: createScriptedSummarizer('faithful'),
    contextWindowTokens: 8000,
    maxOutputTokens: 1000,
    compactFloorTokens: options.floor ?? 500,
    autoCompactTokens: 6000,
    compaction: { keepRecent: 1000 },
    tokenCounter: new SimpleTokenCounter(),
    now: () => new Date('2026-12-07T12:00:00Z'),
    generateId: () => 'ctx-reset-1',
  });
  return { tools, store: fixture.store, recordId: fixture.recordId, workspace: fixture.workspace };
}

let callCount = 0;
async function call(
  tools: ContextTools,
  name: string,
  args: object,
): Promise<{ output: string; isError: boolean }> {
  callCount += 1;
  return contextToolOutput(
    await tools.execute({ id: `call_${callCount}`, name, arguments: JSON.stringify(args) }),
  );
}

describe('createContextTools', () => {
  it('refuses unknown options, missing parts and compact_now without a summariser', () => {
    const store = new MemorySessionStore();
    const base = { workspace: '/tmp/w', store, sessionKey: 'k' };
    expect(() => createContextTools({ ...base, summariser: 1 } as never)).toThrow(
      /Unknown option summariser/,
    );
    expect(() => createContextTools({ ...base, workspace: '' })).toThrow(ContextError);
    expect(() => createContextTools({ ...base, tools: ['compact_now'] })).toThrow(/needs a `summarizer`/);
    expect(() => createContextTools({ ...base, tools: ['nope' as never] })).toThrow(
      /Unknown context tools nope/,
    );
    expect(() => createContextTools({ ...base, maxOutputTokens: 9000, contextWindowTokens: 8000 })).toThrow(
      /must be under contextWindowTokens/,
    );
    expect(() => createContextTools({ ...base, compaction: { keepRecnt: 1 } as never })).toThrow(
      /keepRecent/,
    );
    expect(createContextTools(base).names).not.toContain('compact_now');
  });

  it('gives an error result, never an exception, for bad arguments', async () => {
    const { tools } = await setUp();
    const bad = [
      { name: 'recall', arguments: '{' },
      { name: 'recall', arguments: '[1]' },
      { name: 'recall', arguments: '{"query":"x","colour":1}' },
      { name: 'recall', arguments: '{"query":5}' },
      { name: 'recall', arguments: '{"query":"x","limit":0}' },
      { name: 'recall', arguments: '{"query":"x","cursor":"-1"}' },
      { name: 'recall', arguments: '{"query":"x","scope":"galaxy"}' },
      { name: 'expand', arguments: '{}' },
      { name: 'new_context', arguments: '{"goal":""}' },
      { name: 'notes', arguments: '{"command":"erase"}' },
      { name: 'memory', arguments: '{"command":"format"}' },
      { name: 'no_such_tool', arguments: '{}' },
    ];
    for (const [index, wrong] of bad.entries()) {
      const result = contextToolOutput(await tools.execute({ id: `bad_${index}`, ...wrong }));
      expect(result.isError, `${wrong.name} ${wrong.arguments}`).toBe(true);
      expect(result.output.length).toBeGreaterThan(10);
    }
  });

  it('finds a fact compacted away with recall and reads it back with expand', async () => {
    const { tools, store, recordId } = await setUp();
    const session = await store.load(SESSION_KEY);
    const view = sessionView(session.messages, sessionCompactions(session));
    expect(view.map((message) => message.content).join('\n')).not.toContain('6543');
    const found = await call(tools, 'recall', { query: 'port 6543' });
    expect(found.isError).toBe(false);
    expect(found.output).toContain('message a2x');
    expect(found.output).toContain(`out of view through record ${recordId}`);
    expect(found.output).toContain('turn 2');
    expect(found.output).toContain(FACT);
    const message = await call(tools, 'expand', { id: 'a2x' });
    expect(message.output).toContain(FACT);
    const record = await call(tools, 'expand', { id: recordId });
    expect(record.output).toContain(`--- message a2x (assistant) ---\nChecked: ${FACT}.`);
    const viaRecall = await call(tools, 'recall', { query: 'x', id: recordId });
    expect(viaRecall.output).toBe(record.output);
  });

  it('searches offloaded tool results and this session’s history entries, by words or regex', async () => {
    const { tools } = await setUp();
    const offload = await call(tools, 'recall', { query: '/checksum mismatch in shard \\d+/' });
    expect(offload.output).toContain('offload offload:cli_direct/call_9.txt');
    expect(offload.output).toContain(OFFLOAD_FACT);
    const history = await call(tools, 'recall', { query: 'TABS over' });
    expect(history.output).toContain('history history:1');
    expect(history.output).toContain(HISTORY_FACT);
    expect((await call(tools, 'recall', { query: 'cats' })).output).toMatch(/^No hits/);
    expect((await call(tools, 'recall', { query: 'cats', scope: 'workspace' })).output).toContain(
      'history:2',
    );
    const page = await call(tools, 'expand', { id: 'offload:cli_direct/call_9.txt' });
    expect(page.output).toContain('characters 0–8000 of');
    const tail = await call(tools, 'expand', { id: 'offload:cli_direct/call_9.txt', cursor: '24000' });
    expect(tail.output).toContain(OFFLOAD_FACT);
    expect(tail.output).toContain('(end of source)');
    expect((await call(tools, 'expand', { id: 'offload:../../etc/passwd' })).isError).toBe(true);
  });

  it('never follows a link planted among the offloaded results', async () => {
    const { tools, workspace } = await setUp();
    const outside = path.join(workspace, '..', `${path.basename(workspace)}-outside.txt`);
    await writeFile(outside, 'the launch code is 0000');
    try {
      await symlink(outside, path.join(workspace, '.ctxloom', 'tool-results', 'cli_direct', 'call_x.txt'));
      expect((await call(tools, 'recall', { query: 'launch code' })).output).toMatch(/^No hits/);
      expect((await call(tools, 'expand', { id: 'offload:cli_direct/call_x.txt' })).isError).toBe(true);
    } finally {
      await rm(outside, { force: true });
    }
  });

  it('pages hits newest first with a cursor', async () => {
    const { tools } = await setUp();
    const first = await call(tools, 'recall', { query: 'step', limit: 2 });
    expect(first.output).toContain('More hits: call recall again with cursor "2"');
    const ids = (text: string) => [...text.matchAll(/message (\w+)/g)].map((match) => match[1]);
    const second = await call(tools, 'recall', { query: 'step', limit: 2, cursor: '2' });
    const [newest, older] = ids(first.output);
    expect(newest).not.toBe(older);
    expect(ids(second.output)).not.toContain(newest);
  });

  it('refuses catastrophic regular expressions and stops one that runs too long', async () => {
    const { tools } = await setUp();
    for (const query of ['/(a+)+$/', '/(\\w*)*x/', '/(a|aa)\\1/', `/${'a'.repeat(300)}/`, '/x/g'])
      expect((await call(tools, 'recall', { query })).isError, query).toBe(true);
    // A pattern the shape checks let through but that backtracks for hours on long runs of a: stopped by the time limit.
    const store = new MemorySessionStore();
    await store.append(SESSION_KEY, [{ id: 'm1', role: 'user', content: `${'a'.repeat(40)}!` }]);
    const hidden = createContextTools({
      workspace: '/nonexistent-ctxloom',
      store,
      sessionKey: SESSION_KEY,
      regexTimeoutMs: 50,
    });
    await store.setLastConsolidated(SESSION_KEY, 1);
    const stopped = await call(hidden, 'recall', { query: '/^(?:a|a)*$/' });
    expect(stopped.isError).toBe(true);
    expect(stopped.output).toContain('ran longer than 50 ms');
  });

  it('refuses compact_now with the numbers while the context is small, and compacts when it is large', async () => {
    const small = await setUp({ floor: 1_000_000 });
    const refused = await call(small.tools, 'compact_now', {});
    expect(refused.isError).toBe(true);
    expect(refused.output).toMatch(/takes \d+ tokens, under the 1000000-token floor/);
    const before = await small.store.load(SESSION_KEY);
    expect(sessionCompactions(before)).toHaveLength(1);

    const large = await setUp({ floor: 100, turns: 30 });
    const done = await call(large.tools, 'compact_now', { instructions: 'keep the port numbers' });
    expect(done.isError, done.output).toBe(false);
    expect(done.output).toMatch(/^Compacted: record \S+ replaced \d+ items/);
    const after = await large.store.load(SESSION_KEY);
    const records = sessionCompactions(after);
    expect(records).toHaveLength(2);
    expect(records[1]?.trigger).toBe('tool');
    expect(records[1]?.producer.instructions).toBe('keep the port numbers');
    expect(records[1]?.parents).toContain(large.recordId);
  });

  it('reports what is used and left and where automatic compaction starts', async () => {
    const { tools } = await setUp();
    const usage = await tools.usage();
    const text = await call(tools, 'context_remaining', {});
    expect(text.output).toContain(`${usage.usedTokens} tokens used of 7000 usable`);
    expect(text.output).toContain('Automatic compaction starts at 6000 tokens');
    expect(usage.leftTokens).toBe(7000 - usage.usedTokens);
  });

  it('writes the notes and the boundary in one write; the next request starts from pins, notes and task', async () => {
    const { tools, store } = await setUp();
    const result = await call(tools, 'new_context', {
      goal: 'Ship the migration',
      state: 'schema done',
      decisions: ['use port 6543 for staging'],
      open_tasks: ['backfill'],
      next_step: 'run the backfill',
    });
    expect(result.isError).toBe(false);
    expect(result.output).toContain('record ctx-reset-1');
    const session = await store.load(SESSION_KEY);
    expect(sessionNotesOf(session)).toEqual({
      goal: 'Ship the migration',
      state: 'schema done',
      decisions: ['use port 6543 for staging'],
      openTasks: ['backfill'],
      nextStep: 'run the backfill',
      updatedAt: '2026-12-07T12:00:00.000Z',
    });
    const records = sessionCompactions(session);
    const reset = records.at(-1);
    expect(reset?.kind).toBe('notes');
    expect(reset?.trigger).toBe('tool');
    const replay = await loadReplayedSession(store, {
      sessionKey: SESSION_KEY,
      tokenCounter: new SimpleTokenCounter(),
      contextWindowTokens: 8000,
      maxOutputTokens: 1000,
    });
    expect(replay.notes?.goal).toBe('Ship the migration');
    // The reset marker, then the latest user request (the task), verbatim (the system prompt stays before them).
    expect(replay.history.map((message) => message.id)).toEqual(['ctx-reset-1-summary', 'u12']);
    const view = sessionView(session.messages, records);
    expect(view.map((message) => message.id)).toEqual(['sys', 'ctx-reset-1-summary', 'u12']);
    const cleared = await call(tools, 'recall', { query: 'Step 11' });
    expect(cleared.output).toContain('out of view through record ctx-reset-1');
  });

  it('refuses new_context with nothing changed when the notes write fails', async () => {
    const inner = new MemorySessionStore();
    const { store, failing } = failingMetadataStore(inner);
    const { tools } = await setUp({ store });
    const before = await inner.load(SESSION_KEY);
    failing.isOn = true;
    const result = await call(tools, 'new_context', { goal: 'Ship it', next_step: 'deploy' });
    expect(result.isError).toBe(true);
    expect(result.output).toContain('new_context refused');
    expect(result.output).toContain('EIO: disk write failed');
    expect(result.output).toContain('Nothing changed');
    expect(await inner.load(SESSION_KEY)).toEqual(before);
    const notes = await call(tools, 'notes', { command: 'write', goal: 'x' });
    expect(notes.isError).toBe(true);
    expect(await inner.load(SESSION_KEY)).toEqual(before);
  });

  it('views and writes the notes', async () => {
    const { tools, store } = await setUp();
    expect((await call(tools, 'notes', { command: 'view' })).output).toBe('No notes yet.');
    expect(
      (await call(tools, 'notes', { command: 'write', goal: 'Fix the build', open_tasks: 'lint' })).isError,
    ).toBe(false);
    const view = await call(tools, 'notes', { command: 'view' });
    expect(view.output).toContain('Goal: Fix the build');
    expect(view.output).toContain('- lint');
    expect(sessionCompactions(await store.load(SESSION_KEY))).toHaveLength(1);
    const tooLong = await call(tools, 'notes', { command: 'write', goal: 'x'.repeat(9000) });
    expect(tooLong.isError).toBe(true);
  });

  it('gives a budget note only past the threshold', async () => {
    const store = new MemorySessionStore();
    let used = 1000;
    const tools = createContextTools({
      workspace: '/tmp/ctxloom-none',
      store,
      sessionKey: 'k',
      contextWindowTokens: 10_000,
      maxOutputTokens: 2000,
      usedTokens: () => used,
      autoCompactTokens: 7000,
    });
    expect(await tools.budgetNote()).toBeUndefined();
    used = 6500;
    expect(await tools.budgetNote()).toEqual({
      source: 'context-budget',
      content:
        '[Context budget] 6500 of 8000 tokens used (81%), 1500 left. Automatic compaction starts at 7000 tokens: save what must survive (notes, memory) first.',
    });
  });

  it('the agent preset builds the next request from the system prompt, the notes, the reset marker and the task', async () => {
    const { tools, store, workspace } = await setUp();
    await call(tools, 'new_context', { goal: 'Ship the migration', next_step: 'run the backfill' });
    const replay = await loadReplayedSession(store, {
      sessionKey: SESSION_KEY,
      tokenCounter: new SimpleTokenCounter(),
      contextWindowTokens: 8000,
      maxOutputTokens: 1000,
    });
    const builder = ContextBuilder.forAgent({ workspace, recentHistory: false });
    const { messages, trace } = await builder.build({
      history: replay.history,
      ...(replay.notes === undefined ? {} : { notes: replay.notes }),
      tools: tools.definitions,
      current: 'Go on.',
    });
    expect(trace.sections.map((section) => section.section)).toContain('notes');
    expect(textOf(messages[0]?.content ?? '')).toContain('Goal: Ship the migration');
    // The marker, then the task (the latest user request) with the current message merged into it.
    const rest = messages.slice(1).map((message) => textOf(message.content));
    expect(rest).toHaveLength(2);
    expect(rest[0]).toMatch(/^<context-reset record="ctx-reset-1">/);
    expect(rest[1]).toMatch(/^Step 12: [\s\S]*Go on\.$/);
  });

  it("searches other sessions' hidden messages only with scope 'workspace'", async () => {
    const { tools, store } = await setUp();
    await store.append('telegram:7', [
      { id: 'tg1', role: 'user', content: 'The vault code is 9137.' },
      { id: 'tg2', role: 'assistant', content: 'Noted.' },
    ]);
    await store.setLastConsolidated('telegram:7', 2);
    expect((await call(tools, 'recall', { query: 'vault code' })).output).toMatch(/^No hits/);
    const found = await call(tools, 'recall', { query: 'vault code', scope: 'workspace' });
    expect(found.output).toContain('message tg1');
    expect(found.output).toContain('session telegram:7');
    expect(found.output).toContain('out of view through record consolidation-2');
    const closed = createContextTools({
      workspace: '/tmp/none',
      store,
      sessionKey: SESSION_KEY,
      isWorkspaceScopeAllowed: false,
    });
    expect((await call(closed, 'recall', { query: 'vault', scope: 'workspace' })).isError).toBe(true);
    expect((await call(closed, 'expand', { id: 'tg1' })).isError).toBe(true);
  });
});
