import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ContextError } from '../core/errors.js';
import { assistant, tool, user } from '../core/factories.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import { validateToolCallIntegrity } from '../core/tool-call-integrity.js';
import { stripRuntimeContext } from '../providers/strip-runtime-context.js';
import { getHistory } from '../sessions/get-history.js';
import { JsonlSessionStore } from '../sessions/jsonl-session-store.js';
import { createStaticSkillEnvironment } from '../skills/skill-environment.js';
import { ContextBuilder } from './context-builder.js';
import type { AgentPresetOptions } from './for-agent.js';

const fixture = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../test/fixtures/nanobot-workspace',
);
const platform = { os: 'linux', arch: 'x64', nodeVersion: '20.20.2' };

function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (current: string) => {
    for (const name of readdirSync(current).sort()) {
      const full = path.join(current, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[path.relative(dir, full)] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

function nanobotBuilder(options: Partial<AgentPresetOptions> = {}) {
  return ContextBuilder.forAgent({
    workspace: fixture,
    channel: 'cli',
    platform,
    generateId: createSequentialIdGenerator('m'),
    skills: { builtinDir: null, environment: createStaticSkillEnvironment({ bins: ['curl'] }) },
    ...options,
  });
}

const systemText = (messages: readonly Message[]) => {
  const first = messages[0];
  return typeof first?.content === 'string' && first.role === 'system' ? first.content : '';
};

describe('ContextBuilder.forAgent on a nanobot workspace', () => {
  it('builds from the workspace as it is, without changing any of its files', async () => {
    const before = hashTree(fixture);
    const store = new JsonlSessionStore({ dir: path.join(fixture, 'sessions') });
    const session = await store.load('cli:direct');
    const stored = session.metadata['_last_summary'] as { text: string; last_active: string }; // nanobot's persisted shape
    const { messages, trace } = await nanobotBuilder().build({
      history: getHistory(session),
      current: 'Tips for $weather, $github and $daily-brief? Also $HOME.',
      sessionKey: 'cli:direct',
      summary: { text: stored.text, lastActive: stored.last_active },
    });
    await store.close();
    expect(hashTree(fixture)).toEqual(before);

    const prompt = systemText(messages);
    expect(prompt).toContain('## AGENTS.md\n\n# Workspace Guide');
    expect(prompt).toContain('## SOUL.md\n\n# Soul\n\nI am Nano');
    expect(prompt).toContain('## USER.md\n\n# User Profile');
    expect(prompt).not.toMatch(/## TOOLS\.md|## HEARTBEAT|# Heartbeat/);
    expect(prompt).toContain(
      '# Memory\n\n## Long-term Memory\n# Long-term Memory\n\n## User Information\n- Lena lives in Berlin',
    );
    expect(prompt).toContain('# Active Skills\n\n### Skill: daily-brief\n\n# Daily brief');
    expect(prompt).toContain(
      '- **weather** — Get current weather and forecasts (no API key required).  `weather/SKILL.md`',
    );
    expect(prompt).toContain(
      '- **github** — Interact with GitHub using the `gh` CLI: issues, pull requests, CI runs. (unavailable: CLI: gh, ENV: GH_TOKEN)  `github/SKILL.md`',
    );
    expect(prompt).toContain(
      '- **summarize** — Summarize or extract text from URLs, podcasts and local files. (unavailable: CLI: summarize)',
    );
    expect(prompt).not.toContain('**daily-brief**');
    // entries after the dream cursor (2) for this session, minus the one equal to the summary
    expect(prompt).toContain(
      '# Recent History\n\n- [2026-03-01 09:30] - [durable] Planning a trip to Kyoto in April\n\n---',
    );
    expect(prompt).toContain(
      'Previous conversation summary (last active 2026-03-01T10:16:00):\n- [ephemeral] Asked for Kyoto weather in April',
    );

    const current = messages.at(-1);
    expect(current?.role).toBe('user');
    expect(typeof current?.content === 'string' && current.content.startsWith('Tips for $weather')).toBe(
      true,
    );
    expect(current?.content).toContain('### Skill: weather');
    expect(current?.content).not.toMatch(/### Skill: (github|daily-brief)/);
    expect(current === undefined ? undefined : stripRuntimeContext(current).content).toBe(
      'Tips for $weather, $github and $daily-brief? Also $HOME.',
    );
    // replayed history keeps the exact runtime-context bytes of the earlier turn
    expect(
      messages.some(
        (message) =>
          typeof message.content === 'string' && message.content.endsWith('Channel: cli\n[/Runtime Context]'),
      ),
    ).toBe(true);
    expect(validateToolCallIntegrity(messages)).toEqual([]);
    expect(trace.stages.map((stage) => stage.error).filter(Boolean)).toEqual([]);
  });

  it('keeps the system prompt byte-identical with and without an explicit $skill', async () => {
    const plain = await nanobotBuilder().build({ current: 'hello', sessionKey: 'cli:direct' });
    const invoked = await nanobotBuilder().build({ current: 'hello $weather', sessionKey: 'cli:direct' });
    expect(systemText(invoked.messages)).toBe(systemText(plain.messages));
    expect(plain.messages.at(-1)?.content).toBe('hello');
  });

  it('reads MEMORY.md exactly once per build', async () => {
    let calls = 0;
    const memoryReader = {
      read: async () => {
        calls += 1;
        return '- fact';
      },
    };
    const builder = nanobotBuilder({ memoryReader });
    await builder.build({ current: 'a' });
    expect(calls).toBe(1);
    await builder.build({ current: 'b' });
    expect(calls).toBe(2);
  });

  it('leaves out a MEMORY.md equal to a template passed as bootstrap.extraTemplates', async () => {
    const template = '# Long-term Memory\n\n(facts go here)\n';
    const memoryReader = { read: async () => `${template}\n` };
    const plain = await nanobotBuilder({ memoryReader }).build({ current: 'a' });
    expect(systemText(plain.messages)).toContain('# Memory\n\n## Long-term Memory\n# Long-term Memory');
    const bootstrap = { extraTemplates: { 'memory/MEMORY.md': [template] } };
    const skipped = await nanobotBuilder({ memoryReader, bootstrap }).build({ current: 'a' });
    expect(systemText(skipped.messages)).not.toContain('# Memory');
  });

  it('merges the current message into a trailing unanswered user message', async () => {
    const history = [
      user('first', { id: 'h1' }),
      assistant('ok', { id: 'h2' }),
      user('unanswered', { id: 'h3' }),
    ];
    const { messages, trace } = await nanobotBuilder({ recentHistory: false }).build({
      history,
      current: 'again',
    });
    expect(messages.slice(1).map((message) => message.content)).toEqual([
      'first',
      'ok',
      'unanswered\n\nagain',
    ]);
    const merge = trace.stages.find((stage) => stage.id === 'merge-current-message');
    expect(merge?.decisions.map((entry) => entry.type)).toEqual(['message-merge']);
  });

  it('builds an assistant-role current message (nanobot current_role) and merges it into a trailing assistant', async () => {
    const history = [user('deploy?', { id: 'h1' }), assistant('Deploying now.', { id: 'h2' })];
    const { messages } = await nanobotBuilder({ recentHistory: false }).build({
      history,
      current: 'Done: v2 is live.',
      currentRole: 'assistant',
      runtimeContext: [{ source: 'goal', content: 'ship v2' }],
    });
    expect(messages.slice(1).map((message) => [message.role, message.content])).toEqual([
      ['user', 'deploy?'],
      ['assistant', 'Deploying now.\n\nDone: v2 is live.'],
    ]);
    expect(messages.at(-1)?.metadata?.['runtimeContext']).toBeUndefined();
    const appended = await nanobotBuilder({ recentHistory: false }).build({
      history: [user('deploy?', { id: 'h1' })],
      current: 'On it.',
      currentRole: 'assistant',
    });
    expect(appended.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'On it.' });
  });

  it('runs the governor after the system join and leaves out parts that are turned off', async () => {
    const { messages, trace } = await nanobotBuilder({ includeMemory: false, recentHistory: false }).build({
      current: 'x',
    });
    const ids = trace.stages.map((stage) => stage.id);
    expect(ids.slice(0, 11)).toEqual([
      'identity',
      'bootstrap-files',
      'tool-contract',
      'always-on-skills',
      'skills-index',
      'archived-summary',
      'notes',
      'history',
      'current-message',
      'join-system-messages',
      'merge-current-message',
    ]);
    expect(ids).toContain('snip-history');
    expect(systemText(messages)).not.toContain('# Memory');
  });

  it('makes the role sequence legal for strict providers when asked', async () => {
    const history = [assistant('left over', { id: 'h1' })];
    const { messages, trace } = await nanobotBuilder({ strictRoles: true, recentHistory: false }).build({
      history,
      current: 'hi',
    });
    expect(trace.stages.at(-1)?.id).toBe('role-alternation');
    expect(messages.slice(1).map((message) => [message.role, message.content])).toEqual([
      ['user', '(conversation continued)'],
      ['assistant', 'left over'],
      ['user', 'hi'],
    ]);
  });

  it('lets the governor snip old history to the window while keeping the system prompt and current message', async () => {
    const history = Array.from({ length: 60 }, (_, index) =>
      index % 2 === 0
        ? user(`question ${index} ${'lorem ipsum '.repeat(120)}`)
        : assistant(`answer ${index} ${'dolor sit '.repeat(120)}`),
    );
    const builder = nanobotBuilder({
      contextWindowTokens: 12_000,
      maxOutputTokens: 2_000,
      recentHistory: false,
    });
    const { messages, trace } = await builder.build({ history, current: 'latest question' });
    expect(messages.length).toBeLessThan(history.length + 2);
    expect(messages[0]?.metadata?.['section']).toBe('system-prompt');
    expect(messages.at(-1)?.content).toBe('latest question');
    expect(messages[1]?.role).toBe('user');
    expect(trace.stages.find((stage) => stage.id === 'snip-history')?.decisions.length).toBeGreaterThan(0);
    expect(builder.tokenCounter.countMessages(messages)).toBeLessThanOrEqual(12_000 - 2_000 - 1_024);
  });

  it('offloads a read_file result when governor.offloadExemptTools is empty instead of snipping the history', async () => {
    const history: Message[] = [];
    for (let turn = 0; turn < 20; turn += 1)
      history.push(user(`q${turn} ${'w '.repeat(100)}`), assistant(`a${turn}`));
    history.push(
      user('read it'),
      assistant('', { toolCalls: [{ id: 'c_read', name: 'read_file', arguments: '{}' }] }),
      tool(fileText(50_000), { toolCallId: 'c_read', name: 'read_file' }),
      assistant('read'),
    );
    const build = (governor: NonNullable<AgentPresetOptions['governor']>) =>
      nanobotBuilder({ contextWindowTokens: 20_000, recentHistory: false, governor }).build({
        history,
        current: 'and now?',
      });
    const exempt = await build({ offload: { dryRun: true } });
    expect(exempt.messages.map((message) => message.role)).toEqual(['system', 'user']);
    const { messages, trace } = await build({ offloadExemptTools: [], offload: { dryRun: true } });
    expect(messages).toHaveLength(history.length + 2);
    expect(trace.stages.find((stage) => stage.id === 'tool-result-budget')?.decisions).toMatchObject([
      { type: 'tool-result-offload' },
    ]);
    expect(trace.stages.find((stage) => stage.id === 'snip-history')?.decisions).toEqual([]);
  });

  it('refuses a missing workspace', () => {
    expect(() => ContextBuilder.forAgent({ workspace: '' })).toThrow(ContextError);
  });
});

/** `chars` characters of short numbered words: about one token per two characters, like source code. */
function fileText(chars: number): string {
  return Array.from({ length: Math.ceil(chars / 6) }, (_, index) => `w${(index * 7919) % 10_007} `)
    .join('')
    .slice(0, chars);
}

describe('ContextBuilder.forAgent and the model notes', () => {
  it('sends the notes as their own pinned system section after the archived summary', async () => {
    const workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-agent-notes-'));
    try {
      const builder = ContextBuilder.forAgent({ workspace, recentHistory: false });
      const notes = { goal: 'Ship it', openTasks: ['tag'], updatedAt: '2026-12-07T12:00:00Z' };
      const { messages, trace } = await builder.build({ current: 'next?', notes });
      expect(trace.sections.find((section) => section.section === 'notes')?.tokens).toBeGreaterThan(0);
      const system = messages[0]?.content;
      expect(system).toContain('Goal: Ship it\n\nOpen tasks:\n- tag');
      expect((await builder.build({ current: 'next?' })).messages[0]?.content).not.toContain('Session Notes');
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
