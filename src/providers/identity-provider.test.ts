import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderIdentity } from './identity-provider.js';
import { describePlatform } from './runtime-platform.js';

const linux = { os: 'linux', arch: 'x64', nodeVersion: '20.20.2' };

describe('renderIdentity', () => {
  it('prints the runtime from the injected platform', () => {
    expect(describePlatform(linux)).toBe('Linux x64, Node 20.x');
    expect(describePlatform({ os: 'darwin', arch: 'arm64', nodeVersion: '22.1.0' })).toBe(
      'macOS arm64, Node 22.x',
    );
    expect(describePlatform({ os: 'win32', arch: 'x64', nodeVersion: '20.0.0' })).toBe(
      'Windows x64, Node 20.x',
    );
    expect(describePlatform({ os: 'freebsd', arch: 'x64', nodeVersion: '20.0.0' })).toBe(
      'Freebsd x64, Node 20.x',
    );
  });

  it('uses relative workspace paths when the project is the agent workspace', () => {
    const text = renderIdentity({ workspace: '/home/ana/agent', platform: linux });
    expect(text).toContain('- Long-term memory: memory/MEMORY.md');
    expect(text).toContain('- Custom skills: skills/{skill-name}/SKILL.md');
    expect(text).not.toContain('/home/ana');
  });

  it('uses absolute agent paths and never prints the project path when they differ', () => {
    const text = renderIdentity({
      workspace: '/home/ana/agent',
      projectWorkspace: '/srv/secret-project',
      platform: linux,
    });
    expect(text).toContain('The agent workspace is at: /home/ana/agent');
    expect(text).toContain(`- Long-term memory: ${path.join('/home/ana/agent', 'memory', 'MEMORY.md')}`);
    expect(text).not.toContain('secret-project');
  });

  it('picks the Windows policy from the platform, not the host', () => {
    const text = renderIdentity({
      workspace: '/w',
      platform: { os: 'win32', arch: 'x64', nodeVersion: '20.0.0' },
    });
    expect(text).toContain('## Platform Policy (Windows)');
    expect(text).not.toContain('Platform Policy (POSIX)');
    expect(renderIdentity({ workspace: '/w', platform: linux })).toContain('## Platform Policy (POSIX)');
  });

  it('adds the format hint of the channel, and none for other channels', () => {
    const hint = (channel?: string) =>
      /## Format Hint\n(.*)/.exec(
        renderIdentity({ workspace: '/w', platform: linux, ...(channel ? { channel } : {}) }),
      )?.[1];
    expect(hint('telegram')).toMatch(/messaging app/);
    expect(hint('discord')).toBe(hint('qq'));
    expect(hint('whatsapp')).toMatch(/does not render markdown/);
    expect(hint('sms')).toBe(hint('whatsapp'));
    expect(hint('email')).toMatch(/email/);
    expect(hint('cli')).toMatch(/terminal/);
    expect(hint('mochat')).toBe(hint('cli'));
    for (const channel of [undefined, 'slack', 'feishu', 'constructor', '__proto__'])
      expect(hint(channel)).toBeUndefined();
  });

  it('carries the untrusted-content notes and no clock, identity claim or execution rules', () => {
    const text = renderIdentity({ workspace: '/w', platform: linux, channel: 'cli' });
    expect(text).toContain('## External Content');
    expect(text).toMatch(/untrusted/);
    expect(text).not.toMatch(/You are nanobot|Execution Rules|Message Time|Current Time/);
  });
});
