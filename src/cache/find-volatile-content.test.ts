import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyExampleWorkspace } from '../../test/helpers/example-workspace.js';
import { system, user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { ContextBuilder } from '../presets/context-builder.js';
import { findVolatileContent } from './find-volatile-content.js';

const PLATFORM = { os: 'linux', arch: 'x64', nodeVersion: '20.20.2' } as const;
const folders: string[] = [];

afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

async function workspaceCopy(): Promise<string> {
  const folder = await copyExampleWorkspace('ctxloom-volatile-');
  folders.push(folder);
  return folder;
}

async function build(
  workspace: string,
  history: readonly Message[],
  current: string,
): Promise<readonly Message[]> {
  const builder = ContextBuilder.forAgent({ workspace, channel: 'cli', platform: PLATFORM });
  const { messages } = await builder.build({ history, current, sessionKey: 'cli:direct' });
  return messages;
}

const tool = (name: string, description: string): ToolDefinition => ({
  name,
  description,
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
});

describe('findVolatileContent', () => {
  it('reports nothing on the example workspace, whose Recent History carries stable entry dates', async () => {
    const workspace = await workspaceCopy();
    const first = await build(workspace, [], 'What should I work on next?');
    const second = await build(workspace, [user('What should I work on next?')], 'And after that?');
    const prompt = JSON.stringify(first);
    expect(prompt).toContain('Recent History');
    expect(prompt).toContain('2026-11-27 09:40');
    expect(findVolatileContent(first)).toEqual([]);
    expect(findVolatileContent(second, { compareWith: [{ messages: first }] })).toEqual([]);
  });

  it('flags a timestamp planted in a bootstrap file that changes from one build to the next', async () => {
    const workspace = await workspaceCopy();
    const agents = path.join(workspace, 'AGENTS.md');
    const original = await readFile(agents, 'utf8');
    await writeFile(agents, `Generated 2026-12-01 12:00 by the sync job.\n\n${original}`);
    const first = await build(workspace, [], 'hi');
    await writeFile(agents, `Generated 2026-12-01 12:05 by the sync job.\n\n${original}`);
    const second = await build(workspace, [], 'hi');
    const findings = findVolatileContent(second, { compareWith: [{ messages: first }] });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      kind: 'clock-time',
      evidence: 'varies',
      area: 'system',
      text: '12:05',
    });
    expect(findings[0]?.message).toContain('"12:00" → "12:05"');
  });

  it('flags a precise timestamp in one build, but not a plain date', () => {
    const findings = findVolatileContent([
      system('Now: 2026-12-01T12:49:59.123Z'),
      system('Release date: 2026-12-01'),
      user('hi'),
    ]);
    expect(findings.map(({ kind, index, text }) => ({ kind, index, text }))).toEqual([
      { kind: 'timestamp', index: 0, text: '2026-12-01T12:49:59.123Z' },
    ]);
  });

  it('given the build time, flags a timestamp to the second near it but not an older record', () => {
    const messages = [
      system('Now: 2026-12-01T12:49:59Z. Local: 2026-12-01 13:49:59.'),
      system('Previous conversation summary (last active 2026-11-28T09:30:08Z): fixed the footnotes.'),
      user('hi'),
    ];
    const now = new Date('2026-12-01T12:50:03Z');
    expect(findVolatileContent(messages, { now }).map(({ index, text }) => ({ index, text }))).toEqual([
      { index: 0, text: '2026-12-01T12:49:59Z' },
      { index: 0, text: '2026-12-01 13:49:59' },
    ]);
    expect(findVolatileContent(messages).map(({ index }) => index)).toEqual([0, 0, 1]);
  });

  it('flags a UUID in a tool description', () => {
    const tools = [
      tool('read_file', 'Reads a file.'),
      tool('search', 'Searches (request 3f0c8a52-9d1e-4b7a-8c3f-2e6d1a9b7c40).'),
    ];
    const findings = findVolatileContent([system('You are an agent.'), user('hi')], { tools });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ kind: 'uuid', area: 'tools', index: 1, section: 'search' });
  });

  it('flags a tool list whose order changes between builds', () => {
    const a = tool('read_file', 'Reads a file.');
    const b = tool('write_file', 'Writes a file.');
    const messages = [system('You are an agent.'), user('hi')];
    const findings = findVolatileContent(messages, {
      tools: [b, a],
      compareWith: [{ messages, tools: [a, b] }],
    });
    expect(findings.map((finding) => finding.kind)).toEqual(['tool-order']);
    expect(
      findVolatileContent(messages, { tools: [a, b], compareWith: [{ messages, tools: [a, b] }] }),
    ).toEqual([]);
  });

  it('flags JSON keys in a changing order and a counter that changes', () => {
    const before: ToolDefinition = {
      name: 't',
      parameters: { type: 'object', properties: { a: {}, b: {} } },
    };
    const after: ToolDefinition = { name: 't', parameters: { properties: { b: {}, a: {} }, type: 'object' } };
    const findings = findVolatileContent([system('Session turn 41 of the run.'), user('x')], {
      tools: [after],
      compareWith: [{ messages: [system('Session turn 40 of the run.'), user('y')], tools: [before] }],
    });
    expect(findings.map((finding) => finding.kind).sort()).toEqual(['counter', 'json-key-order']);
  });

  it('shows the bytes that follow when text is inserted at a word boundary', () => {
    const [finding] = findVolatileContent([system('Be brief. Deploy with care.'), user('x')], {
      compareWith: [{ messages: [system('Be brief.'), user('y')] }],
    });
    expect(finding).toMatchObject({ kind: 'changed', offset: 9, text: ' Deploy with care.' });
    expect(finding?.message).toContain('"" → " Deploy with care."');
  });

  it('ignores the conversation after the system prompt', () => {
    expect(
      findVolatileContent([
        system('stable'),
        user('sent at 2026-12-01T12:00:00Z, id 3f0c8a52-9d1e-4b7a-8c3f-2e6d1a9b7c40'),
      ]),
    ).toEqual([]);
  });
});
