import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assistant, createSequentialIdGenerator, tool, user } from '../core/index.js';
import { ContextBuilder, ContextGovernor } from '../index.js';
import { diffRecordedRequests } from './diff-recorded-requests.js';
import { JsonlRequestStore } from './jsonl-request-store.js';
import { messageContentHash } from './message-content-hash.js';
import { readRecordedRequests } from './read-recorded-requests.js';
import { RequestRecorder } from './request-recorder.js';

const clock = () => new Date('2026-01-02T03:04:05.000Z');

describe('RequestRecorder', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-recorder-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const recorderIn = (options: { includeMessages?: boolean } = {}) =>
    new RequestRecorder({
      store: JsonlRequestStore.besideSessions(dir),
      clock,
      generateId: createSequentialIdGenerator('req'),
      ...options,
    });

  it('records each build of a preset with sections, tokens, decisions, hashes and messages', async () => {
    const recorder = recorderIn();
    const builder = ContextBuilder.forChat({ systemPrompt: 'Be brief.', maxMessages: 2, observer: recorder });
    const history = [user('one', { id: 'u1' }), assistant('two', { id: 'a1' }), user('three', { id: 'u2' })];
    const built = await builder.build({ history, sessionKey: 'cli:direct' });
    const [record] = await readRecordedRequests(recorder.store, { sessionKey: 'cli:direct' });
    expect(record).toMatchObject({
      type: 'request',
      version: 1,
      id: 'req-1',
      at: '2026-01-02T03:04:05.000Z',
      sessionKey: 'cli:direct',
      source: 'build',
      totalTokens: built.trace.totalTokens,
      sections: built.trace.sections,
      tools: [],
    });
    expect(record?.messages).toEqual(built.messages);
    expect(record?.messageHashes.map((entry) => entry.hash)).toEqual(built.messages.map(messageContentHash));
    const drops = built.trace.stages
      .flatMap((stage) => stage.decisions)
      .filter((d) => d.type === 'message-drop');
    expect(drops.length).toBeGreaterThan(0);
    expect(record?.decisions).toEqual(drops);
    expect(record?.counts.dropped).toBe(drops.flatMap((d) => d.messageIds).length);
    // the log is beside the sessions, never in the sessions folder itself
    expect((await stat(path.join(dir, 'requests'))).isDirectory()).toBe(true);
  });

  it('leaves the messages out when includeMessages is false but keeps their hashes', async () => {
    const recorder = recorderIn({ includeMessages: false });
    const builder = ContextBuilder.forChat({ systemPrompt: 'Be brief.', observer: recorder });
    await builder.build({ history: [user('hello secret')], sessionKey: 's' });
    const text = await readFile(
      path.join(dir, 'requests', `${Buffer.from('s').toString('base64url')}.jsonl`),
      'utf8',
    );
    expect(text).not.toContain('hello secret');
    const [record] = await readRecordedRequests(recorder.store, { sessionKey: 's' });
    expect(record?.messages).toBeUndefined();
    expect(record?.messageHashes).toHaveLength(2);
  });

  it('records governed requests and merges the usage reported for them', async () => {
    const recorder = recorderIn();
    const governor = new ContextGovernor({ observer: recorder, maxToolResultChars: 20 });
    const messages = [
      user('list files', { id: 'u1' }),
      assistant('', { id: 'a1', toolCalls: [{ id: 'c1', name: 'ls', arguments: '{}' }] }),
      tool('x'.repeat(100), { id: 't1', toolCallId: 'c1' }),
    ];
    await governor.prepareForModel(messages);
    await recorder.observeUsage({
      inputTokens: 120,
      cachedInputTokens: 100,
      outputTokens: 7,
      latencyMs: 12,
      model: 'm',
    });
    const [record] = await readRecordedRequests(recorder.store, { sessionKey: 'default' });
    expect(record?.source).toBe('transform');
    expect((record?.counts.truncated ?? 0) + (record?.counts.offloaded ?? 0)).toBeGreaterThan(0);
    expect(record?.usage).toEqual({
      at: '2026-01-02T03:04:05.000Z',
      inputTokens: 120,
      cachedInputTokens: 100,
      outputTokens: 7,
      latencyMs: 12,
      model: 'm',
    });
  });

  it('matches usage by run and step, and warns when nothing matches', async () => {
    const warnings: string[] = [];
    const recorder = new RequestRecorder({
      store: JsonlRequestStore.besideSessions(dir),
      generateId: createSequentialIdGenerator('req'),
      onWarning: (warning) => warnings.push(warning.code),
    });
    await recorder.observeUsage({ inputTokens: 1 });
    expect(warnings).toEqual(['USAGE_UNMATCHED']);
    const trace = (await ContextBuilder.forChat({}).build({ history: [user('a')] })).trace;
    for (const stepNumber of [0, 1]) {
      await recorder.observeRequest({
        source: 'prepare-step',
        runId: 'r',
        stepNumber,
        messages: [],
        tools: [],
        trace,
      });
    }
    await recorder.observeUsage({ runId: 'r', stepNumber: 0, inputTokens: 10 });
    await recorder.observeUsage({ runId: 'r', stepNumber: 1, inputTokens: 20 });
    const records = await readRecordedRequests(recorder.store, { sessionKey: 'default' });
    expect(records.map((record) => [record.id, record.usage?.inputTokens])).toEqual([
      ['req-1', 10],
      ['req-2', 20],
    ]);
  });

  it('fails the build on a store error by default, and only warns with onStoreError warn', async () => {
    const failing = {
      specificationVersion: 'v1' as const,
      id: 'broken',
      append: () => Promise.reject(new Error('disk full')),
      read: async () => [],
      listSessions: async () => [],
      close: async () => {},
    };
    const strict = ContextBuilder.forChat({ observer: new RequestRecorder({ store: failing }) });
    await expect(strict.build({ history: [user('a')] })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    const warnings: string[] = [];
    const lenient = ContextBuilder.forChat({
      observer: new RequestRecorder({
        store: failing,
        onStoreError: 'warn',
        onWarning: (warning) => warnings.push(warning.message),
      }),
    });
    await expect(lenient.build({ history: [user('a')] })).resolves.toBeDefined();
    expect(warnings).toEqual(['The request log was not written: disk full']);
  });
});

describe('diffRecordedRequests', () => {
  it('finds the stable prefix and what was added, removed and rewritten', () => {
    const hashes = (entries: [string, string][]) =>
      entries.map(([id, hash]) => ({ id, role: 'user' as const, hash }));
    const diff = diffRecordedRequests(
      {
        totalTokens: 100,
        messageHashes: hashes([
          ['s', 'h0'],
          ['a', 'h1'],
          ['b', 'h2'],
          ['c', 'h3'],
        ]),
      },
      {
        totalTokens: 90,
        messageHashes: hashes([
          ['s', 'h0'],
          ['a', 'h1'],
          ['b', 'hX'],
          ['d', 'h4'],
        ]),
      },
    );
    expect(diff).toEqual({ stablePrefix: 2, added: ['d'], removed: ['c'], changed: ['b'], tokenDelta: -10 });
  });
});
