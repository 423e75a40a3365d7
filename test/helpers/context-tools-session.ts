/**
 * A workspace and session for the context-tools tests: a long conversation whose early turns hold a
 * fact ("the staging database listens on port 6543"), compacted by a lossy summariser so the fact is
 * out of view; an offloaded tool result on disk; and a history.jsonl entry of the session.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { appendCompaction } from '../../src/compaction/append-compaction.js';
import { compactHistory } from '../../src/compaction/compact-history.js';
import type { Message } from '../../src/core/message.js';
import { sessionView } from '../../src/core/session-view.js';
import { HistoryLog } from '../../src/memory/history-log.js';
import { MemorySessionStore } from '../../src/sessions/memory-session-store.js';
import { sessionCompactions } from '../../src/sessions/session-compactions.js';
import type { SessionStore } from '../../src/sessions/session-store.js';
import { createScriptedSummarizer } from '../../src/testing/scripted-summarizer.js';

export const FACT = 'the staging database listens on port 6543';
export const OFFLOAD_FACT = 'checksum mismatch in shard 17';
export const HISTORY_FACT = 'the user prefers tabs over spaces';
export const SESSION_KEY = 'cli:direct';

/**
 * A conversation of `turns` turns; the assistant states the fact in turn 2 (the user's own messages are
 * pinned by compaction, so a fact that can be compacted away is the agent's), turn 3 has a tool call.
 */
export function longConversation(turns: number, padding = 400): readonly Message[] {
  const messages: Message[] = [{ id: 'sys', role: 'system', content: 'You are a careful engineer.' }];
  for (let turn = 1; turn <= turns; turn += 1) {
    const text = `Step ${turn}: ${'work '.repeat(padding / 5)}`;
    messages.push({ id: `u${turn}`, role: 'user', content: text });
    if (turn === 3) {
      messages.push({
        id: `a${turn}`,
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_3', name: 'exec', arguments: '{"cmd":"verify"}' }],
      });
      messages.push({ id: `t${turn}`, role: 'tool', toolCallId: 'call_3', content: 'verify: ok' });
    }
    messages.push({
      id: `a${turn}x`,
      role: 'assistant',
      content: turn === 2 ? `Checked: ${FACT}.` : `Done with step ${turn}. ${'ok '.repeat(padding / 3)}`,
    });
  }
  return messages;
}

export type ContextToolsFixture = {
  readonly workspace: string;
  readonly store: SessionStore;
  readonly sessionKey: string;
  /** The id of the compaction record that took the fact out of view. */
  readonly recordId: string;
};

/** The fixture: a stored, compacted session, an offload file and a history entry. */
export async function contextToolsFixture(
  options: { readonly store?: SessionStore; readonly turns?: number } = {},
): Promise<ContextToolsFixture> {
  const workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-context-tools-'));
  const store = options.store ?? new MemorySessionStore();
  await store.append(SESSION_KEY, longConversation(options.turns ?? 12));
  const session = await store.load(SESSION_KEY);
  const view = sessionView(session.messages, sessionCompactions(session));
  const result = await compactHistory(view, {
    summarizer: createScriptedSummarizer('lossy'),
    keepRecent: 1500,
    generateId: () => 'cmp-1',
    now: () => new Date('2026-12-01T10:00:00Z'),
  });
  if (result.record === undefined) throw new Error(`fixture: compaction did nothing (${result.detail})`);
  await appendCompaction(store, { sessionKey: SESSION_KEY, record: result.record });
  const bucket = path.join(workspace, '.ctxloom', 'tool-results', 'cli_direct');
  await mkdir(bucket, { recursive: true });
  await writeFile(
    path.join(bucket, 'call_9.txt'),
    `${'log line\n'.repeat(3000)}ERROR ${OFFLOAD_FACT}\n${'tail\n'.repeat(100)}`,
  );
  const history = new HistoryLog({ workspace, now: () => new Date('2026-11-30T09:00:00Z') });
  await history.append(`User said ${HISTORY_FACT}.`, { sessionKey: SESSION_KEY });
  await history.append('Another session talked about cats.', { sessionKey: 'telegram:42' });
  return { workspace, store, sessionKey: SESSION_KEY, recordId: result.record.id };
}

/** A store whose metadata writes fail while `failing.isOn` is true (everything else is the inner store's). */
export function failingMetadataStore(inner: SessionStore): {
  readonly store: SessionStore;
  readonly failing: { isOn: boolean };
} {
  const failing = { isOn: false };
  const store: SessionStore = {
    specificationVersion: 'v1',
    id: `failing-${inner.id}`,
    // biome-ignore lint/complexity/useMaxParams: SessionStore methods take three parameters
    append: (key, messages, options) => inner.append(key, messages, options),
    load: (key, options) => inner.load(key, options),
    // biome-ignore lint/complexity/useMaxParams: SessionStore methods take three parameters
    setMetadata: async (key, patch, options) => {
      if (failing.isOn) throw new Error('EIO: disk write failed');
      return inner.setMetadata(key, patch, options);
    },
    // biome-ignore lint/complexity/useMaxParams: SessionStore methods take three parameters
    setLastConsolidated: (key, value, options) => inner.setLastConsolidated(key, value, options),
    // biome-ignore lint/complexity/useMaxParams: SessionStore methods take three parameters
    rewrite: (key, rewrite, options) => inner.rewrite(key, rewrite, options),
    delete: (key, options) => inner.delete(key, options),
    list: (options) => inner.list(options),
    subscribe: (listener) => inner.subscribe(listener),
    close: () => inner.close(),
  };
  return { store, failing };
}
