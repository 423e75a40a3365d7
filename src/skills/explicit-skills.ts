import type { RuntimeContextBlock } from '../pipeline/build-input.js';
import { renderSkillBlocks } from './render-skill-blocks.js';
import type { Skill } from './skills-catalog.js';

/** The runtime-context source of the explicit-skills block. */
export const EXPLICIT_SKILLS_SOURCE = 'explicit_skills';

// A `$` not preceded by a word character or another `$`, then the name.
const MENTION = /(?<![\w$])\$([A-Za-z0-9_-]+)/g;

/**
 * Finds the skills a user's text invokes with `$name`: a mention counts only when it
 * names an available skill in `skills` (pass the catalogue's available, enabled list); always-on
 * skills are left out (they are already in the system prompt); duplicates are kept once, in
 * first-mention order; anything else (`$HOME`, `$5`, unknown names) is ignored.
 */
export function findExplicitSkills(text: string, skills: readonly Skill[]): readonly Skill[] {
  const byName = new Map(
    skills.filter((skill) => skill.available && !skill.always).map((skill) => [skill.name, skill]),
  );
  const found: Skill[] = [];
  for (const match of text.matchAll(MENTION)) {
    const skill = byName.get(match[1] ?? '');
    if (skill === undefined || found.includes(skill)) continue;
    found.push(skill);
  }
  return found;
}

/**
 * The runtime-context block for explicitly invoked skills, or `undefined` when there are none:
 * `"[Active Skills — instructions for this user turn]\n{### Skill blocks}\n[/Active Skills]"`.
 */
export function explicitSkillsBlock(skills: readonly Skill[]): RuntimeContextBlock | undefined {
  if (skills.length === 0) return undefined;
  return {
    source: EXPLICIT_SKILLS_SOURCE,
    content: `[Active Skills — instructions for this user turn]\n${renderSkillBlocks(skills)}\n[/Active Skills]`,
  };
}
