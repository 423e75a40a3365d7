import { describe, expect, it } from 'vitest';
import { explicitSkillsBlock, findExplicitSkills } from './explicit-skills.js';
import { testSkill } from './test-skill.js';

const available = [
  testSkill('review'),
  testSkill('deploy'),
  testSkill('always-on', { always: true }),
  testSkill('needs-gh', { available: false }),
];
const names = (text: string) => findExplicitSkills(text, available).map((skill) => skill.name);

describe('findExplicitSkills', () => {
  it('keeps duplicates once, in first-mention order', () => {
    expect(names('$deploy then $review and $deploy again, $review')).toEqual(['deploy', 'review']);
  });

  it('ignores unknown names, $HOME, money and escaped dollars', () => {
    expect(names('echo $HOME costs $5 and $$review or a$review or $unknown')).toEqual([]);
  });

  it('ignores unavailable and always-on skills, and disabled ones not in the list', () => {
    expect(names('$needs-gh $always-on $disabled-skill')).toEqual([]);
  });

  it('matches at line starts and after punctuation', () => {
    expect(names('($review)\n$deploy.')).toEqual(['review', 'deploy']);
  });
});

describe('explicitSkillsBlock', () => {
  it('wraps the skills in the Active Skills envelope', () => {
    expect(explicitSkillsBlock([testSkill('review'), testSkill('deploy')])).toEqual({
      source: 'explicit_skills',
      content:
        '[Active Skills — instructions for this user turn]\n### Skill: review\n\n# review\n\nDo the review thing.\n\n---\n\n### Skill: deploy\n\n# deploy\n\nDo the deploy thing.\n[/Active Skills]',
    });
    expect(explicitSkillsBlock([])).toBeUndefined();
  });
});
