import type { Skill } from './skills-catalog.js';

/** Builds a {@link Skill} for tests (not exported from the package). */
export function testSkill(name: string, fields: Partial<Skill> = {}): Skill {
  return {
    name,
    source: 'workspace',
    root: '/agent/skills',
    path: `/agent/skills/${name}/SKILL.md`,
    description: `${name} description`,
    always: false,
    available: true,
    missing: { bins: [], env: [] },
    metadata: { requires: { bins: [], env: [] }, always: fields.always ?? false },
    body: `# ${name}\n\nDo the ${name} thing.`,
    frontmatter: {},
    ...fields,
  };
}
