import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NANOBOT_TEMPLATE_DIGESTS } from './nanobot-template-digests.js';
import { matchesWorkspaceTemplate, WORKSPACE_TEMPLATES } from './workspace-templates.js';

describe('matchesWorkspaceTemplate', () => {
  it('compares as nanobot does: LF line ends, both sides stripped', () => {
    const content = `\r\n${WORKSPACE_TEMPLATES['USER.md'].replaceAll('\n', '\r\n')}\u001f`;
    expect(matchesWorkspaceTemplate({ file: 'USER.md', content })).toBe(true);
    expect(matchesWorkspaceTemplate({ file: 'USER.md', content: `${content}- Pets: a cat` })).toBe(false);
    expect(matchesWorkspaceTemplate({ file: 'X.md', content: 'a\r\n', extraTemplates: [' a\n'] })).toBe(true);
  });

  it('recognises a template by its fingerprint without its text', () => {
    const text = '# Theirs\n\n(fill me in)';
    const digest = { chars: text.length, sha256: createHash('sha256').update(text).digest('hex') };
    expect(matchesWorkspaceTemplate({ file: 'X.md', content: `${text}\r\n`, digests: [digest] })).toBe(true);
    expect(matchesWorkspaceTemplate({ file: 'X.md', content: `${text}!`, digests: [digest] })).toBe(false);
  });

  it("knows nanobot's AGENTS.md, USER.md and MEMORY.md templates by fingerprint", () => {
    expect(Object.keys(NANOBOT_TEMPLATE_DIGESTS).sort()).toEqual([
      'AGENTS.md',
      'USER.md',
      'memory/MEMORY.md',
    ]);
    for (const digests of Object.values(NANOBOT_TEMPLATE_DIGESTS))
      for (const digest of digests) expect(digest.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(matchesWorkspaceTemplate({ file: 'AGENTS.md', content: 'my own rules' })).toBe(false);
  });
});
