import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleWorkspace } from '../../../test/helpers/example-workspace.js';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import { ContextBuilder, JsonlSessionStore } from '../../index.js';
import { JsonlRequestStore, RequestRecorder } from '../../recorder/index.js';
import { main } from '../main.js';

let workspace = '';

beforeAll(async () => {
  workspace = await copyExampleWorkspace('ctxloom-cache-');
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function run(args: readonly string[], cwd = workspace) {
  const io = memoryIo(cwd, { NO_COLOR: '1' });
  const code = await main(args, io);
  return { code, stdout: io.out(), stderr: io.err() };
}

describe('ctxloom cache', () => {
  it('replays a stored session and prints the simulation under both providers', async () => {
    const { code, stdout } = await run(['cache', '--session', 'cli:direct']);
    expect(code).toBe(0);
    expect(stdout).toContain(
      'Prompt cache of session cli:direct (11 model calls replayed from the stored session)',
    );
    expect(stdout).toContain('anthropic (simulated):');
    expect(stdout).toContain('openai (simulated):');
    expect(stdout).toContain('No volatile content in the stable prefix.');
  });

  it('prints JSON with per-request reads that grow as the session goes on', async () => {
    const { code, stdout } = await run([
      'cache',
      '--session',
      'cli:direct',
      '--provider',
      'anthropic',
      '--json',
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      simulations: {
        provider: string;
        requests: { cacheReadTokens: number }[];
        totals: { illegalRequests: number; steadyStateHitRate: number };
      }[];
    };
    const [anthropic] = report.simulations;
    expect(anthropic?.provider).toBe('anthropic');
    expect(anthropic?.requests.length).toBeGreaterThan(3);
    expect(anthropic?.requests[0]?.cacheReadTokens).toBe(0);
    expect(anthropic?.requests.at(-1)?.cacheReadTokens).toBeGreaterThan(0);
    expect(anthropic?.totals.illegalRequests).toBe(0);
  });

  it('fails with exit code 2 without --session or for an unknown provider', async () => {
    expect((await run(['cache'])).code).toBe(2);
    expect((await run(['cache', '--session', 'cli:direct', '--provider', 'gemini'])).code).toBe(2);
  });
});

/**
 * Records the session the way an agent does: the agent preset with a RequestRecorder builds each
 * model call (the tool loop's steps through `transform`), and the provider's usage is reported after
 * each, at the clock's times.
 */
async function recordSession(
  folder: string,
  options: { readonly key: string; readonly stepMs: number; readonly withUsage: boolean },
): Promise<number> {
  const sessions = path.join(folder, 'sessions');
  let now = Date.parse('2026-12-01T10:00:00Z');
  const recorder = new RequestRecorder({
    store: JsonlRequestStore.besideSessions(sessions),
    clock: () => new Date(now),
  });
  const builder = ContextBuilder.forAgent({ workspace: folder, channel: 'cli', observer: recorder });
  const record = await new JsonlSessionStore({ dir: sessions }).load('cli:direct');
  const turns = record.messages.flatMap((message, index) => (message.role === 'user' ? [index] : []));
  let calls = 0;
  for (const turn of turns.slice(0, 3)) {
    const current = record.messages[turn];
    if (current === undefined) continue;
    const built = await builder.build({
      history: record.messages.slice(0, turn),
      current: current.content,
      sessionKey: options.key,
      tools: [{ name: 'read_file', description: 'Reads a file.' }],
    });
    calls += 1;
    if (options.withUsage)
      await recorder.observeUsage({
        inputTokens: built.trace.totalTokens,
        cachedInputTokens: calls === 1 ? 0 : 1_024,
        outputTokens: 20,
        model: 'claude-sonnet-4-5',
      });
    now += options.stepMs;
  }
  return calls;
}

type CacheJson = {
  source: { kind: string; log?: string; requests?: number };
  simulations: { provider: string; requests: { cacheReadTokens: number }[] }[];
  reported?: { index: number; inputTokens?: number; cachedInputTokens?: number }[];
};

describe('ctxloom cache on a recorded session', () => {
  let folder = '';
  beforeAll(async () => {
    folder = await copyExampleWorkspace('ctxloom-cache-recorded-');
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });
  const runIn = (args: readonly string[]) => run(args, folder);

  it('uses the recorded requests, with the provider-reported usage beside the simulation', async () => {
    const calls = await recordSession(folder, { key: 'cli:direct', stepMs: 60_000, withUsage: true });
    const { code, stdout } = await runIn(['cache', '--session', 'cli:direct', '--provider', 'anthropic']);
    expect(code).toBe(0);
    expect(stdout).toContain(
      `Prompt cache of session cli:direct (${calls} model calls from the request recorder's log in ${path.join(folder, 'sessions', 'requests')})`,
    );
    expect(stdout).toContain('| reported    input      read   hit');
    expect(stdout).toMatch(
      /over the 3 requests with reported usage: simulated [\d,]+ of [\d,]+ input tokens read from the cache \(\d+%\), the provider reported 2,048 of [\d,]+ \(\d+%\)/,
    );
    const json = JSON.parse(
      (await runIn(['cache', '--session', 'cli:direct', '--provider', 'anthropic', '--json'])).stdout,
    ) as CacheJson;
    expect(json.source).toMatchObject({ kind: 'recorded', requests: calls });
    expect(json.reported?.map((entry) => entry.cachedInputTokens)).toEqual([0, 1_024, 1_024]);
    const reads = json.simulations[0]?.requests.map((request) => request.cacheReadTokens) ?? [];
    expect(reads[0]).toBe(0);
    expect(reads[1]).toBeGreaterThan(0);
  });

  it('replays the stored session instead with --from replay, and says so', async () => {
    const { code, stdout } = await runIn(['cache', '--session', 'cli:direct', '--from', 'replay', '--json']);
    expect(code).toBe(0);
    const json = JSON.parse(stdout) as CacheJson;
    expect(json.source).toEqual({ kind: 'replay' });
    expect(json.reported).toBeUndefined();
  });

  it('honours the 5-minute lifetime between recorded requests, by their times', async () => {
    await recordSession(folder, { key: 'slow:1', stepMs: 6 * 60_000, withUsage: false });
    const json = JSON.parse(
      (await runIn(['cache', '--session', 'slow:1', '--provider', 'anthropic', '--json'])).stdout,
    ) as CacheJson;
    expect(json.source.kind).toBe('recorded');
    expect(json.simulations[0]?.requests.map((request) => request.cacheReadTokens)).toEqual([0, 0, 0]);
  });

  it('flags a recorded tool list whose order changes between requests', async () => {
    const recorder = new RequestRecorder({
      store: JsonlRequestStore.besideSessions(path.join(folder, 'sessions')),
    });
    const builder = ContextBuilder.forAgent({ workspace: folder, channel: 'cli', observer: recorder });
    const read = { name: 'read_file', description: 'Reads a file.' };
    const exec = { name: 'exec', description: 'Runs a command.' };
    for (const tools of [
      [read, exec],
      [exec, read],
    ])
      await builder.build({ current: 'Run the tests.', sessionKey: 'tools:1', tools });
    const { stdout } = await runIn(['cache', '--session', 'tools:1', '--provider', 'openai']);
    expect(stdout).toContain('Volatile content:');
    expect(stdout).toContain(
      'the tool list changes order between builds (read_file, exec → exec, read_file)',
    );
  });

  it('rejects --context-window, checked before anything is read, when the calls come from the log', async () => {
    await recordSession(folder, { key: 'window:1', stepMs: 60_000, withUsage: false });
    const malformed = await runIn(['cache', '--session', 'window:1', '--context-window', 'lots']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain(
      '--context-window must be a whole number from 1 to 1,000,000,000, got "lots"',
    );
    const recorded = await runIn(['cache', '--session', 'window:1', '--context-window', '100000']);
    expect(recorded.code).toBe(2);
    expect(recorded.stderr).toContain(
      '--context-window sets the window of replayed builds, but session "window:1" has 3 recorded requests in',
    );
    expect(recorded.stderr).toContain('add --from replay');
    const explicit = await runIn([
      'cache',
      '--session',
      'cli:direct',
      '--from',
      'recorded',
      '--context-window',
      '1',
    ]);
    expect(explicit.code).toBe(2);
    expect(explicit.stderr).toContain('drop --context-window, or use --from replay');
    const replayed = await runIn([
      'cache',
      '--session',
      'cli:direct',
      '--from',
      'replay',
      '--context-window',
      '100000',
    ]);
    expect(replayed.code).toBe(0);
  });

  it('fails with --from recorded when nothing is recorded, and suggests a close --from value', async () => {
    const missing = await runIn(['cache', '--session', 'telegram:8281248569', '--from', 'recorded']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('No request of session "telegram:8281248569" is recorded in');
    expect(missing.stderr).toContain('drop --from recorded');
    const typo = await runIn(['cache', '--session', 'cli:direct', '--from', 'recorde']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('--from must be recorded or replay, got "recorde". Did you mean recorded?');
    const flag = await runIn(['cache', '--session', 'cli:direct', '--form', 'replay']);
    expect(flag.stderr).toContain('Did you mean --from?');
  });
});
