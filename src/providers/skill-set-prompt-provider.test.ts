import { describe, expect, it } from 'vitest';
import { DEFAULT_PROMPTS } from '../config/prompt-defaults.js';
import type { BuildInput } from '../pipeline/build-input.js';
import { testSkill } from '../skills/test-skill.js';
import { SkillSetPromptProvider } from './skill-set-prompt-provider.js';
import { testBuildContext } from './test-context.js';

const skills = [
  testSkill('deploy', { root: '/s', path: '/s/deploy/SKILL.md' }),
  testSkill('style', { root: '/s', path: '/s/style/SKILL.md', always: true }),
  testSkill('gh', {
    root: '/s',
    path: '/s/gh/SKILL.md',
    available: false,
    missing: { bins: ['gh'], env: [] },
  }),
];
const withReader: BuildInput = { tools: [{ name: 'read_file', description: 'Read a file', parameters: {} }] };

function render(mode: 'summary' | 'full' | 'alwaysOnly', input: BuildInput = {}) {
  const [message] = new SkillSetPromptProvider({ skills, mode, workingDirectory: '/work' }).getMessages(
    input,
    testBuildContext(),
  );
  return typeof message?.content === 'string' ? message.content : '';
}

describe('SkillSetPromptProvider', () => {
  it('summary with a file-reading tool: index + on-demand policy, no instructions inlined', () => {
    const text = render('summary', withReader);
    expect(text.startsWith(DEFAULT_PROMPTS.skillCapabilityPolicyPrompt)).toBe(true);
    expect(text).toContain('- **deploy** — deploy description  `deploy/SKILL.md`');
    expect(text).toContain('- **style** — style description');
    expect(text).toContain('(unavailable: CLI: gh)');
    expect(text).toContain(DEFAULT_PROMPTS.skillOnDemandPolicyPrompt);
    expect(text).not.toContain(DEFAULT_PROMPTS.skillFallbackPolicyPrompt);
    expect(text).not.toContain('Skill instructions:');
    expect(text).toContain(
      `${DEFAULT_PROMPTS.skillResourceUsagePolicyPrompt}\nWorking directory: /work\nSkill folders:\n- deploy: /s/deploy`,
    );
  });

  it('summary without a file-reading tool: fallback policy and the available instructions inlined', () => {
    const text = render('summary');
    expect(text).toContain(DEFAULT_PROMPTS.skillFallbackPolicyPrompt);
    expect(text).not.toContain(DEFAULT_PROMPTS.skillOnDemandPolicyPrompt);
    expect(text).toContain(
      'Skill instructions:\n\n### Skill: deploy\n\n# deploy\n\nDo the deploy thing.\n\n---\n\n### Skill: style',
    );
    expect(text).not.toContain('### Skill: gh');
  });

  it('full: the index and every available skill in full, with no loading policy', () => {
    const text = render('full', withReader);
    expect(text).toContain('Skill instructions:');
    expect(text).not.toContain(DEFAULT_PROMPTS.skillOnDemandPolicyPrompt);
    expect(text).not.toContain(DEFAULT_PROMPTS.skillFallbackPolicyPrompt);
  });

  it('alwaysOnly: only the always-on skills under # Active Skills', () => {
    expect(render('alwaysOnly')).toBe(
      '# Active Skills\n\n### Skill: style\n\n# style\n\nDo the style thing.',
    );
  });

  it('emits nothing for an empty set and honours custom file-reading tools', () => {
    expect(new SkillSetPromptProvider({ skills: [] }).getMessages({}, testBuildContext())).toEqual([]);
    const custom = new SkillSetPromptProvider({ skills, fileReadingTools: ['cat'] });
    const [message] = custom.getMessages(
      { tools: [{ name: 'cat', description: '', parameters: {} }] },
      testBuildContext(),
    );
    expect(message?.content).toContain(DEFAULT_PROMPTS.skillOnDemandPolicyPrompt);
  });
});
