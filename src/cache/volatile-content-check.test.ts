import { readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyExampleWorkspace } from '../../test/helpers/example-workspace.js';
import { system, user } from '../core/index.js';
import {
  type BuildInput,
  ContextBuilder,
  type ToolDefinition,
  type TraceWarning,
  VolatileContentCheck,
} from '../index.js';

const PLATFORM = { os: 'linux', arch: 'x64', nodeVersion: '20.20.2' } as const;
const folders: string[] = [];

afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

async function workspaceCopy(): Promise<string> {
  const folder = await copyExampleWorkspace('ctxloom-volatile-check-');
  folders.push(folder);
  return folder;
}

function agent(workspace: string, check = new VolatileContentCheck()): ContextBuilder {
  return ContextBuilder.forAgent({ workspace, channel: 'cli', platform: PLATFORM, checks: [check] });
}

async function warningsOf(builder: ContextBuilder, input: BuildInput): Promise<readonly TraceWarning[]> {
  return (await builder.build({ sessionKey: 'cli:direct', ...input })).trace.warnings ?? [];
}

/**
 * Rewrites a workspace file and moves its mtime a second past the old one: the builder's file cache
 * reuses text while (mtime, size) are unchanged, and two same-size writes can share one timestamp
 * tick on a file system with coarse times.
 */
async function rewrite(file: string, text: string): Promise<void> {
  const { mtimeMs } = await stat(file);
  await writeFile(file, text);
  const later = new Date(mtimeMs + 1_000);
  await utimes(file, later, later);
}

const tool = (name: string, description: string): ToolDefinition => ({
  name,
  description,
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
});

describe('VolatileContentCheck in the build trace', () => {
  it('reports nothing for the example workspace, build after build', async () => {
    const builder = agent(await workspaceCopy());
    const first = await builder.build({ sessionKey: 'cli:direct', current: 'What should I work on next?' });
    expect(JSON.stringify(first.messages)).toContain('2026-11-27 09:40');
    expect(first.trace.warnings).toBeUndefined();
    const second = await builder.build({
      sessionKey: 'cli:direct',
      history: [user('What should I work on next?')],
      current: 'And after that?',
    });
    expect(second.trace.warnings).toBeUndefined();
  });

  it('flags a timestamp in SOUL.md that changes between builds, and only while it changes', async () => {
    const workspace = await workspaceCopy();
    const soul = path.join(workspace, 'SOUL.md');
    const original = await readFile(soul, 'utf8');
    const builder = agent(workspace);
    await rewrite(soul, `${original}\nLast synced 2026-12-01 12:00.\n`);
    expect(await warningsOf(builder, { current: 'hi' })).toEqual([]);
    await rewrite(soul, `${original}\nLast synced 2026-12-01 12:05.\n`);
    const warnings = await warningsOf(builder, { current: 'hi' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      type: 'volatile-content',
      check: 'volatile-content',
      details: { kind: 'clock-time', evidence: 'varies', area: 'system', text: '12:05.' },
    });
    expect(warnings[0]?.message).toContain('"12:00." → "12:05."');
    expect(await warningsOf(builder, { current: 'again' })).toEqual([]);
  });

  it('flags a UUID in a tool description from the first build on', async () => {
    const builder = agent(await workspaceCopy());
    const tools = [
      tool('read_file', 'Reads a file.'),
      tool('search', 'Search (id 3f0c8a52-9d1e-4b7a-8c3f-2e6d1a9b7c40).'),
    ];
    for (const current of ['hi', 'again']) {
      const warnings = await warningsOf(builder, { current, tools });
      expect(warnings.map((warning) => warning.details)).toEqual([
        expect.objectContaining({
          kind: 'uuid',
          evidence: 'looks-volatile',
          area: 'tools',
          section: 'search',
        }),
      ]);
    }
  });

  it('flags a tool list whose order changes between builds', async () => {
    const builder = agent(await workspaceCopy());
    const read = tool('read_file', 'Reads a file.');
    const write = tool('write_file', 'Writes a file.');
    expect(await warningsOf(builder, { current: 'hi', tools: [read, write] })).toEqual([]);
    const warnings = await warningsOf(builder, { current: 'hi', tools: [write, read] });
    expect(warnings.map((warning) => warning.details?.['kind'])).toEqual(['tool-order']);
    expect(warnings[0]?.message).toContain('read_file, write_file → write_file, read_file');
  });

  it('flags a clock printed into the system prompt on the first build, not an old last-activity time', async () => {
    const check = new VolatileContentCheck({ clock: () => new Date('2026-12-01T12:50:03Z') });
    const builder = new ContextBuilder({ checks: [check] });
    const { trace } = await builder.transform(
      [system('Current time: 2026-12-01T12:50:01Z\nLast active 2026-11-28T09:30:08Z'), user('hi')],
      { sessionKey: 's' },
    );
    expect(trace.warnings?.map((warning) => warning.details?.['text'])).toEqual(['2026-12-01T12:50:01Z']);
  });

  it('compares each session with its own previous build (transform runs the checks too)', async () => {
    const check = new VolatileContentCheck();
    const builder = new ContextBuilder({ checks: [check] });
    const build = async (sessionKey: string, prompt: string) =>
      (await builder.transform([system(prompt), user('hi')], { sessionKey })).trace.warnings ?? [];
    expect(await build('a', 'Turn 1 of the run.')).toEqual([]);
    expect(await build('b', 'Turn 7 of the run.')).toEqual([]);
    expect((await build('a', 'Turn 2 of the run.')).map((warning) => warning.details?.['kind'])).toEqual([
      'counter',
    ]);
  });

  it("with repeat: 'all', keeps reporting what last changed until the prefix changes again", async () => {
    const builder = new ContextBuilder({ checks: [new VolatileContentCheck({ repeat: 'all' })] });
    const kinds = async (prompt: string) =>
      ((await builder.transform([system(prompt), user('hi')], { sessionKey: 's' })).trace.warnings ?? []).map(
        (warning) => warning.details?.['kind'],
      );
    expect(await kinds('Turn 1 of the run.')).toEqual([]);
    expect(await kinds('Turn 2 of the run.')).toEqual(['counter']);
    expect(await kinds('Turn 2 of the run.')).toEqual(['counter']);
    expect(await kinds('Synced 2026-12-01 12:00.')).toEqual(['changed']);
  });

  it('compares the first build with a remembered one (a recorded request)', async () => {
    const check = new VolatileContentCheck();
    check.remember('s', { messages: [system('Build 2026-12-01 09:00'), user('old')] });
    const builder = new ContextBuilder({ checks: [check] });
    const { trace } = await builder.transform([system('Build 2026-12-01 09:30'), user('hi')], {
      sessionKey: 's',
    });
    expect(trace.warnings?.map((warning) => warning.details?.['kind'])).toEqual(['clock-time']);
  });

  it('leaves the trace without warnings when no check is configured', async () => {
    const builder = ContextBuilder.forAgent({ workspace: await workspaceCopy(), platform: PLATFORM });
    const tools = [tool('search', 'Search (id 3f0c8a52-9d1e-4b7a-8c3f-2e6d1a9b7c40).')];
    const { trace } = await builder.build({ current: 'hi', tools });
    expect('warnings' in trace).toBe(false);
  });
});
