import type { Skill } from './skills-catalog.js';

/**
 * Renders skills in full: `"### Skill: {name}\n\n{body}"` per skill, joined by
 * `"\n\n---\n\n"`. Returns `''` for an empty list.
 */
export function renderSkillBlocks(skills: readonly Skill[]): string {
  return skills.map((skill) => `### Skill: ${skill.name}\n\n${skill.body}`).join('\n\n---\n\n');
}
