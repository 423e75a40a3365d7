import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../../test/helpers/memory-io.js';
import type { Message } from '../../index.js';
import { main } from '../main.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ctxloom-agent-cli-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ctxloom init', () => {
  it('scaffolds a workspace and reports what it created, then keeps existing files', async () => {
    const io = memoryIo(dir);
    expect(await main(['init', 'agent'], io)).toBe(0);
    expect(io.out()).toContain('  created  SOUL.md');
    expect(io.out()).toContain('  created  memory/MEMORY.md');
    await writeFile(path.join(dir, 'agent', 'SOUL.md'), 'my soul');
    const again = memoryIo(dir);
    expect(await main(['init', 'agent'], again)).toBe(0);
    expect(again.out()).toContain('  kept     SOUL.md (already there)');
    expect(again.out()).toContain('Nothing to create');
    expect(await readFile(path.join(dir, 'agent', 'SOUL.md'), 'utf8')).toBe('my soul');
  });

  it('fails at once with exit 2 where the folder cannot be made (/proc, a file in the way)', {
    timeout: 5_000,
  }, async () => {
    if (existsSync('/proc/self')) {
      const proc = memoryIo(dir);
      expect(await main(['init', '/proc/forbidden/agent'], proc)).toBe(2);
      expect(proc.err()).toMatch(
        /^INVALID_INPUT: Cannot create the folder \/proc\/forbidden\/agent: making \/proc\/forbidden failed \(\/proc exists but takes no new folders/,
      );
    }
    await writeFile(path.join(dir, 'file'), 'x');
    const file = memoryIo(dir);
    expect(await main(['init', 'file/agent'], file)).toBe(2);
    expect(file.err()).toContain(`${path.join(dir, 'file')} is a file, not a folder`);
    const nested = memoryIo(dir);
    expect(await main(['init', 'a/b/agent'], nested)).toBe(0);
    expect(nested.out()).toContain('  created  .\n');
  });

  it('needs exactly one folder', async () => {
    const io = memoryIo(dir);
    expect(await main(['init'], io)).toBe(2);
    expect(io.err()).toMatch(/^INVALID_OPTIONS: ctxloom init needs exactly one folder/);
  });
});

describe('ctxloom skills list', () => {
  beforeEach(async () => {
    const skill = (name: string, frontmatter: string) =>
      mkdir(path.join(dir, 'skills', name), { recursive: true }).then(() =>
        writeFile(path.join(dir, 'skills', name, 'SKILL.md'), `---\n${frontmatter}\n---\n# ${name}\n`),
      );
    await skill('ours', 'description: Our own skill.');
    await skill(
      'needs-tool',
      'description: Needs a tool.\nmetadata: {"nanobot":{"requires":{"bins":["no-such-binary-xyz"]}}}',
    );
    await skill('broken', 'name: [oops');
  });

  it('lists available skills in precedence order with built-ins last, warning about invalid files', async () => {
    const io = memoryIo(dir, { PATH: '' });
    expect(await main(['skills', 'list', '--workspace', '.'], io)).toBe(0);
    const names = io
      .out()
      .split('\n')
      .filter((line) => /^\S/.test(line))
      .map((line) => line.split(/\s+/)[0]);
    expect(names).toEqual(['name', 'ours', 'context-budget', 'memory-hygiene', 'session-debugging']);
    expect(io.err()).toContain(`warning: skipped ${path.join(dir, 'skills', 'broken', 'SKILL.md')}`);
    expect(io.err()).toContain('note: ours: frontmatter name null should equal the folder name "ours"');
  });

  it('shows unavailable skills with --all and prints JSON with --json', async () => {
    const io = memoryIo(dir, { PATH: '' });
    expect(await main(['skills', 'list', '--all', '--json', '--disable', 'memory-hygiene'], io)).toBe(0);
    const report = JSON.parse(io.out()) as {
      skills: { name: string; available: boolean; missing: unknown }[];
    };
    expect(report.skills.map((skill) => skill.name)).toEqual([
      'needs-tool',
      'ours',
      'context-budget',
      'session-debugging',
    ]);
    expect(report.skills[0]).toMatchObject({
      available: false,
      missing: { bins: ['no-such-binary-xyz'], env: [] },
    });
  });

  it('rejects an unknown action', async () => {
    const io = memoryIo(dir);
    expect(await main(['skills', 'remove'], io)).toBe(2);
  });
});

describe('a fresh workspace (ctxloom init)', () => {
  it('build and inspect count the same tokens for the same preset and input', async () => {
    expect(await main(['init', 'ws'], memoryIo(dir))).toBe(0);
    const built = memoryIo(dir);
    expect(await main(['build', '--preset', 'agent', '--workspace', 'ws', '--json', 'hello'], built)).toBe(0);
    const inspected = memoryIo(dir);
    expect(await main(['inspect', '--workspace', 'ws', '--json', 'hello'], inspected)).toBe(0);
    const build = JSON.parse(built.out()) as { totalTokens: number; sections: { tokens: number }[] };
    const inspect = JSON.parse(inspected.out()) as { usedTokens: number; sections: { tokens: number }[] };
    expect(inspect.usedTokens).toBe(build.totalTokens);
    expect(inspect.sections.map((section) => section.tokens)).toEqual(
      build.sections.map((section) => section.tokens),
    );
  });

  it('the chat preset leaves out the untouched AGENTS.md, USER.md and TOOLS.md templates, as the agent preset does', async () => {
    expect(await main(['init', 'ws'], memoryIo(dir))).toBe(0);
    const fresh = memoryIo(dir);
    expect(await main(['build', '--preset', 'chat', '--workspace', 'ws', '--json', 'hello'], fresh)).toBe(0);
    const report = JSON.parse(fresh.out()) as {
      messages: Message[];
      decisions: { type: string; reason: string }[];
    };
    const prompt = report.messages.map((message) => String(message.content)).join('\n');
    expect(prompt).toContain('SOUL.md');
    expect(prompt).not.toContain('USER.md');
    expect(prompt).not.toContain('TOOLS.md');
    expect(report.decisions.map((decision) => decision.reason)).toEqual(
      expect.arrayContaining([
        'USER.md is left out: it is the untouched template.',
        'TOOLS.md is left out: it is the untouched template.',
      ]),
    );
    await writeFile(path.join(dir, 'ws', 'USER.md'), '# User\n\nAna, a night nurse in Berlin.\n');
    const edited = memoryIo(dir);
    expect(await main(['build', '--preset', 'chat', '--workspace', 'ws', '--json', 'hello'], edited)).toBe(0);
    const messages = (JSON.parse(edited.out()) as { messages: Message[] }).messages;
    expect(messages.map((message) => String(message.content)).join('\n')).toContain(
      '## USER.md\n\n# User\n\nAna, a night nurse in Berlin.',
    );
  });
});

describe('ctxloom build --preset agent', () => {
  it('builds the agent context for a fresh workspace with an explicit skill', async () => {
    expect(await main(['init', 'ws'], memoryIo(dir))).toBe(0);
    await writeFile(
      path.join(dir, 'ws', 'memory', 'MEMORY.md'),
      '# Long-term Memory\n\n- Ana prefers short answers.\n',
    );
    const io = memoryIo(dir);
    const code = await main(
      [
        'build',
        '--preset',
        'agent',
        '--workspace',
        'ws',
        '--no-summary',
        'Help me trim context $context-budget',
      ],
      io,
    );
    expect(code).toBe(0);
    const messages = JSON.parse(io.out()) as Message[];
    expect(messages.map((message) => message.role)).toEqual(['system', 'user']);
    const prompt = String(messages[0]?.content);
    expect(prompt).toContain('## Runtime');
    expect(prompt).toContain('- Ana prefers short answers.');
    expect(prompt).toContain('- **context-budget** — ');
    expect(prompt).not.toContain('## USER.md'); // untouched template
    expect(String(messages[1]?.content)).toContain('### Skill: context-budget');
  });
});
