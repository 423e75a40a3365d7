import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyExampleWorkspace } from '../../../test/helpers/example-workspace.js';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import { resolveAgentSettings } from '../../config/index.js';
import { ContextBuilder, EstimatingTokenCounter, JsonlSessionStore, loadConfig } from '../../index.js';
import { agentOptionsFromSettings } from '../../presets/index.js';
import { JsonlRequestStore, RequestRecorder } from '../../recorder/index.js';
import { replaySession } from '../../sessions/index.js';
import { main } from '../main.js';

const UUID = '3f0c8a52-9d1e-4b7a-8c3f-2e6d1a9b7c40';
const folders: string[] = [];

afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

async function workspaceCopy(): Promise<string> {
  const folder = await copyExampleWorkspace('ctxloom-inspect-volatile-');
  folders.push(folder);
  return folder;
}

async function run(workspace: string, args: readonly string[]) {
  const io = memoryIo(workspace, { NO_COLOR: '1' });
  const code = await main(args, io);
  return { code, stdout: io.out(), stderr: io.err() };
}

type JsonWarning = { type: string; message: string; details?: Record<string, unknown> };

async function jsonWarnings(workspace: string): Promise<readonly JsonWarning[]> {
  const { code, stdout } = await run(workspace, ['inspect', '--session', 'cli:direct', '--json']);
  expect(code).toBe(0);
  return (JSON.parse(stdout) as { warnings: JsonWarning[] }).warnings;
}

async function appendToSoul(workspace: string, line: string): Promise<void> {
  const soul = path.join(workspace, 'SOUL.md');
  await writeFile(soul, `${await readFile(soul, 'utf8')}\n${line}\n`);
}

/** What the agent sent for the session's next call, recorded by the request recorder through a real build. */
async function recordAgentRequest(workspace: string): Promise<void> {
  const { config } = await loadConfig({ dir: workspace, optional: true });
  const settings = resolveAgentSettings(config, workspace);
  const recorder = new RequestRecorder({ store: JsonlRequestStore.besideSessions(settings.sessionsDir) });
  const record = await new JsonlSessionStore({ dir: settings.sessionsDir }).load('cli:direct');
  const builder = ContextBuilder.forAgent({
    workspace,
    ...agentOptionsFromSettings(settings),
    channel: 'cli',
    observer: recorder,
  });
  const replayed = replaySession(record, {
    tokenCounter: new EstimatingTokenCounter(),
    contextWindowTokens: 65_536,
    maxOutputTokens: 8_192,
  });
  await builder.build({ ...replayed, current: 'Run the tests.', sessionKey: 'cli:direct' });
}

describe('ctxloom inspect: volatile content in the cached prefix', () => {
  it('reports none on the example workspace, also against a request the agent recorded', async () => {
    const workspace = await workspaceCopy();
    const { stdout } = await run(workspace, ['inspect', '--session', 'cli:direct']);
    expect(stdout).not.toContain('Prompt cache:');
    await recordAgentRequest(workspace);
    expect((await jsonWarnings(workspace)).filter((warning) => warning.type === 'volatile-content')).toEqual(
      [],
    );
  });

  it('warns about a UUID in SOUL.md in the human report and in --json', async () => {
    const workspace = await workspaceCopy();
    await appendToSoul(workspace, `Run id ${UUID}.`);
    const { code, stdout } = await run(workspace, ['inspect', '--session', 'cli:direct']);
    expect(code).toBe(0);
    const line = stdout.split('\n').find((text) => text.includes('Prompt cache:'));
    expect(line).toMatch(/^ {2}! Prompt cache: system message 0 .* holds .*3f0c8a52.*\(uuid\)/);
    const warnings = await jsonWarnings(workspace);
    expect(warnings.filter((warning) => warning.type === 'volatile-content')).toEqual([
      expect.objectContaining({
        details: expect.objectContaining({ kind: 'uuid', evidence: 'looks-volatile', area: 'system' }),
      }),
    ]);
  });

  it('warns about a timestamp in SOUL.md that changed since the last recorded request', async () => {
    const workspace = await workspaceCopy();
    const soul = await readFile(path.join(workspace, 'SOUL.md'), 'utf8');
    await appendToSoul(workspace, 'Last synced 2026-12-01 12:00 by the sync job.');
    expect((await jsonWarnings(workspace)).some((warning) => warning.type === 'volatile-content')).toBe(
      false,
    );
    await recordAgentRequest(workspace);
    await writeFile(
      path.join(workspace, 'SOUL.md'),
      `${soul}\nLast synced 2026-12-01 12:05 by the sync job.\n`,
    );
    const warnings = (await jsonWarnings(workspace)).filter((warning) => warning.type === 'volatile-content');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.details).toMatchObject({ kind: 'clock-time', evidence: 'varies', text: '12:05' });
    expect(warnings[0]?.message).toContain('"12:00" → "12:05"');
  });
});
