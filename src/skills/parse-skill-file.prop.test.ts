import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { findExplicitSkills } from './explicit-skills.js';
import { safeParseSkillFile } from './parse-skill-file.js';
import { testSkill } from './test-skill.js';

const yamlish = fc.array(
  fc.constantFrom('a: 1', 'b: [x', 'metadata: {"nanobot":', '- item', 'always: true', ': :', '"', 'x'),
  {
    maxLength: 5,
  },
);

describe('skills invariants', () => {
  test.prop([yamlish, fc.string()])(
    'parsing any SKILL.md either succeeds or fails with SKILL_INVALID',
    (lines, body) => {
      const result = safeParseSkillFile(`---\n${lines.join('\n')}\n---\n${body}`);
      if (!result.success) expect(result.error.code).toBe('SKILL_INVALID');
      else expect(result.value.body).toBe(result.value.body.trim());
    },
  );

  test.prop([
    fc.array(fc.constantFrom('$a', '$b', '$c', '$HOME', '$$a', 'x$b', ' ', '\n', 'text'), { maxLength: 12 }),
  ])('$name invocation returns known skills once each, in first-mention order', (tokens) => {
    const text = tokens.join(' ');
    const skills = [testSkill('a'), testSkill('b'), testSkill('c')];
    const found = findExplicitSkills(text, skills).map((skill) => skill.name);
    expect(new Set(found).size).toBe(found.length);
    const firstMention = (name: string) => text.search(new RegExp(`(?<![\\w$])\\$${name}(?![A-Za-z0-9_-])`));
    expect(found.every((name) => firstMention(name) >= 0)).toBe(true);
    expect([...found].sort((left, right) => firstMention(left) - firstMention(right))).toEqual(found);
  });
});
