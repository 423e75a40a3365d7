import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  requestOf,
  runDeferredScript,
} from '../../test/fixtures/deferred-tools/drive-deferred-conversation.js';
import { EAGER_TOOLS, MCP_TOOLS } from '../../test/fixtures/deferred-tools/mcp-tools.js';
import { appendCompaction, compactHistory, sessionView } from '../compaction/index.js';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { JsonlSessionStore } from '../sessions/jsonl-session-store.js';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import { sessionCompactions } from '../sessions/session-compactions.js';
import { createScriptedSummarizer } from '../testing/scripted-summarizer.js';
import { TiktokenTokenCounter } from '../tokens/index.js';
import {
  carryLoadedTools,
  createToolRegistry,
  DEFERRED_TOOL_MECHANISMS,
  handleDeferredToolCall,
  LOADED_TOOLS_KEY,
  readLoadedTools,
  saveLoadedTools,
  visibleLoadedTools,
} from './index.js';

const registry = createToolRegistry({ tools: EAGER_TOOLS, deferred: MCP_TOOLS });
const counter = await TiktokenTokenCounter.create({ encoding: 'o200k_base' });
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('loaded tools are part of the session', () => {
  it('saveLoadedTools adds names once, in load order, and writes nothing when nothing is new', async () => {
    const store = new MemorySessionStore();
    await store.append('s', [{ id: 'u', role: 'user', content: 'hi' }]);
    expect(await saveLoadedTools(store, { sessionKey: 's', names: ['b', 'a', 'b'] })).toEqual(['b', 'a']);
    const before = (await store.load('s')).updatedAt;
    expect(await saveLoadedTools(store, { sessionKey: 's', names: ['a'] })).toEqual(['b', 'a']);
    expect((await store.load('s')).updatedAt).toBe(before);
    expect(await saveLoadedTools(store, { sessionKey: 's', names: ['c'] })).toEqual(['b', 'a', 'c']);
    expect(readLoadedTools((await store.load('s')).metadata)).toEqual(['b', 'a', 'c']);
    expect(readLoadedTools({ [LOADED_TOOLS_KEY]: 'not a list' })).toEqual([]);
  });

  it('two agents loading tools at once both keep theirs (the session lock)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-loaded-'));
    dirs.push(dir);
    const one = new JsonlSessionStore({ dir });
    const two = new JsonlSessionStore({ dir });
    await one.append('s', [{ id: 'u', role: 'user', content: 'hi' }]);
    await Promise.all([
      ...['a', 'b', 'c'].map((name) => saveLoadedTools(one, { sessionKey: 's', names: [name] })),
      ...['x', 'y', 'z'].map((name) => saveLoadedTools(two, { sessionKey: 's', names: [name] })),
    ]);
    const loaded = readLoadedTools((await new JsonlSessionStore({ dir }).load('s')).metadata);
    expect([...loaded].sort()).toEqual(['a', 'b', 'c', 'x', 'y', 'z']);
  });

  it.each(DEFERRED_TOOL_MECHANISMS)(
    '%s: a compaction does not unload tools, in a new process, and the tools bytes and the carry stay put',
    async (mechanism) => {
      const dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-loaded-'));
      dirs.push(dir);
      const run = runDeferredScript(registry, mechanism);
      const toolsBytes = JSON.stringify(run.requests[0]?.tools);
      const writer = new JsonlSessionStore({ dir });
      const later: Message[] = Array.from({ length: 6 }, (_, index) => ({
        id: `later-${index}`,
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: `Turn ${index}: ${'details of the follow-up work '.repeat(20)}`,
      }));
      await writer.append('s', [...run.history, ...later]);
      await saveLoadedTools(writer, { sessionKey: 's', names: run.loaded });
      const compacted = await compactHistory([...run.history, ...later], {
        summarizer: createScriptedSummarizer('faithful'),
        keepRecent: 400,
        tokenCounter: counter,
        generateId: () => 'cmp-1',
        now: () => new Date('2026-12-07T12:00:00Z'),
      });
      if (compacted.record === undefined) throw new Error(compacted.detail);
      await appendCompaction(writer, { sessionKey: 's', record: compacted.record });

      // A new process: a new store over the same files.
      const session = await new JsonlSessionStore({ dir }).load('s');
      const loaded = readLoadedTools(session.metadata);
      expect(loaded).toEqual(run.loaded);
      const records = sessionCompactions(session);
      const view = sessionView(session.messages, records);
      // The compaction summarised the searches away: without the carry the model would lose the tools.
      expect(run.loaded.every((name) => visibleLoadedTools(view).has(name))).toBe(false);
      const carried = carryLoadedTools(view, { registry, mechanism, loaded, records });
      expect(run.loaded.every((name) => visibleLoadedTools(carried).has(name))).toBe(true);
      expect(validateToolCallIntegrity(carried)).toEqual([]);
      expect(carryLoadedTools(carried, { registry, mechanism, loaded, records })).toBe(carried);
      // The carry sits right after the summary and its pins.
      const summaryAt = carried.findIndex((message) => message.metadata?.['compactionId'] === 'cmp-1');
      const pins = compacted.record.pinned?.length ?? 0;
      expect(carried[summaryAt + pins + 1]?.id).toMatch(/^ctxloom-carry-/);
      // The tools bytes do not change, and a loaded tool still runs.
      expect(JSON.stringify(requestOf(registry, mechanism, { history: carried, loaded }).tools)).toBe(
        toolsBytes,
      );
      const direct = { id: 'after', name: 'weather__get_forecast', arguments: '{"location":"Oslo"}' };
      const call =
        mechanism === 'neutral'
          ? {
              ...direct,
              name: 'call_tool',
              arguments: '{"name":"weather__get_forecast","arguments":{"location":"Oslo"}}',
            }
          : direct;
      expect(handleDeferredToolCall(call, { registry: registry, mechanism, loaded }).type).toBe(
        mechanism === 'neutral' ? 'call' : 'other',
      );
      // Next turn: the carry's bytes are the same, so the prefix through it stays cached.
      await writer.append('s', [{ id: 'next', role: 'user', content: 'And Berlin?' }]);
      const next = await new JsonlSessionStore({ dir }).load('s');
      const nextCarried = carryLoadedTools(sessionView(next.messages, sessionCompactions(next)), {
        registry,
        mechanism,
        loaded: readLoadedTools(next.metadata),
        records: sessionCompactions(next),
      });
      expect(nextCarried.slice(0, carried.length)).toEqual(carried);
    },
  );

  it('the carry loads every loaded tool the view lacks, keeps integrity, is idempotent, and leaves its input alone (property)', () => {
    const names = MCP_TOOLS.map((tool) => tool.name);
    fc.assert(
      fc.property(
        fc.constantFrom(...DEFERRED_TOOL_MECHANISMS),
        fc.subarray(names, { maxLength: 14 }),
        fc.boolean(),
        (mechanism, loaded, dropSearches) => {
          const { history } = runDeferredScript(registry, mechanism);
          const view = dropSearches
            ? history.filter(
                (message) => !message.id.startsWith('call-0') && !message.id.startsWith('call-2'),
              )
            : history;
          const snapshot = JSON.stringify(view);
          const carried = carryLoadedTools(view, { registry, mechanism, loaded });
          expect(JSON.stringify(view)).toBe(snapshot);
          const visible = visibleLoadedTools(carried);
          for (const name of loaded) expect(visible.has(name)).toBe(true);
          expect(validateToolCallIntegrity(carried)).toEqual([]);
          expect(carryLoadedTools(carried, { registry, mechanism, loaded })).toBe(carried);
          const missing = loaded.filter((name) => !visibleLoadedTools(view).has(name));
          if (missing.length === 0) expect(carried).toBe(view);
        },
      ),
      { numRuns: 60 },
    );
  });
});
