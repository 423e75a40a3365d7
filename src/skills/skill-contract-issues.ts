import type { Skill } from './skills-catalog.js';

const NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/**
 * Checks a skill against the Agent Skills contract that installers enforce: the
 * frontmatter `name` equals the folder name, the name has at most 64 characters of lowercase
 * letters, digits and single hyphens, and the description has 1–1024 characters. The loader accepts
 * skills that break it (as nanobot does); this lists what to fix before sharing one. `[]` when valid.
 */
export function skillContractIssues(skill: Skill): readonly string[] {
  const issues: string[] = [];
  const declared = skill.frontmatter['name'];
  if (declared !== skill.name) {
    issues.push(
      `frontmatter name ${JSON.stringify(declared ?? null)} should equal the folder name "${skill.name}"`,
    );
  }
  if (skill.name.length > 64) issues.push(`name has ${skill.name.length} characters; the limit is 64`);
  if (!NAME.test(skill.name)) {
    issues.push(
      `name "${skill.name}" should use lowercase letters, digits and single hyphens, e.g. "my-skill"`,
    );
  }
  const description = skill.frontmatter['description'];
  const length = typeof description === 'string' ? description.trim().length : 0;
  if (length === 0) issues.push('description is missing; add one line saying when to use the skill');
  if (length > 1024) issues.push(`description has ${length} characters; the limit is 1024`);
  return issues;
}
