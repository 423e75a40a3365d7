import { describe, expect, it } from 'vitest';
import { skillContractIssues } from './skill-contract-issues.js';
import { testSkill } from './test-skill.js';

describe('skillContractIssues', () => {
  it('accepts a well-formed skill', () => {
    expect(
      skillContractIssues(
        testSkill('my-skill', { frontmatter: { name: 'my-skill', description: 'Does X.' } }),
      ),
    ).toEqual([]);
  });

  it('lists a name mismatch, a bad name and a missing description', () => {
    const issues = skillContractIssues(testSkill('My--Skill', { frontmatter: { name: 'other' } }));
    expect(issues).toHaveLength(3);
    expect(issues[0]).toMatch(/should equal the folder name "My--Skill"/);
    expect(issues[1]).toMatch(/lowercase letters/);
    expect(issues[2]).toMatch(/description is missing/);
  });

  it('enforces the length limits', () => {
    const name = 'a'.repeat(65);
    const issues = skillContractIssues(
      testSkill(name, { frontmatter: { name, description: 'd'.repeat(1025) } }),
    );
    expect(issues).toEqual([
      'name has 65 characters; the limit is 64',
      'description has 1025 characters; the limit is 1024',
    ]);
  });
});
