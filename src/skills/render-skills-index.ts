import path from 'node:path';
import type { Skill, SkillSource } from './skills-catalog.js';

/** How the skills index is written: nanobot's Markdown groups, or an XML list. */
export type SkillsIndexFormat = 'markdown' | 'xml';

/** Options for {@link renderSkillsIndex}. */
export type SkillsIndexOptions = {
  /** @default 'markdown' */
  readonly format?: SkillsIndexFormat;
  /**
   * `relative`: workspace and built-in roots print as the literal `skills` (the agent's file tool
   * resolves `skills/<name>/…` against the workspace, falling back to the built-in folder; see
   * `resolveSkillReadPath`); `absolute`: every root prints as its resolved folder (used when the
   * project folder differs from the agent workspace). Extra folders always print absolute.
   * @default 'relative'
   */
  readonly paths?: 'relative' | 'absolute';
};

const LABELS: Readonly<Record<SkillSource, string>> = {
  workspace: 'Workspace skills',
  extra: 'Extra skills',
  builtin: 'Built-in skills',
};

const MARKDOWN_INTRO =
  'The following skills extend your capabilities. Each group names one root folder and lists SKILL.md paths relative to it; join the two to read a skill with your file tool.';
const XML_INTRO =
  'The following skills extend your capabilities. To use one, read the SKILL.md at its location with your file tool. Skills marked available="false" need the listed requirements installed first.';

/**
 * Renders the skills index (part 6 of the system prompt): every listed skill that is not an
 * available always-on skill (those are inlined in full instead). Unavailable skills are flagged
 * `(unavailable: CLI: gh, ENV: FOO)`. Returns `''` when nothing is left to list.
 */
export function renderSkillsIndex(skills: readonly Skill[], options: SkillsIndexOptions = {}): string {
  const listed = skills.filter((skill) => !(skill.always && skill.available));
  if (listed.length === 0) return '';
  const paths = options.paths ?? 'relative';
  if ((options.format ?? 'markdown') === 'xml')
    return `# Skills\n\n${XML_INTRO}\n\n${renderXml(listed, paths)}`;
  return `# Skills\n\n${MARKDOWN_INTRO}\n\n${renderMarkdownGroups(listed, paths)}`;
}

/** `" (unavailable: CLI: gh, ENV: FOO)"`, `" (unavailable)"`, or `''` for an available skill. */
export function unavailableSuffix(skill: Skill): string {
  if (skill.available) return '';
  const items = missingItems(skill);
  return items.length === 0 ? ' (unavailable)' : ` (unavailable: ${items.join(', ')})`;
}

function missingItems(skill: Skill): readonly string[] {
  return [
    ...skill.missing.bins.map((bin) => `CLI: ${bin}`),
    ...skill.missing.env.map((name) => `ENV: ${name}`),
  ];
}

/** The root folder of a skill as the prompt shows it. */
export function displayRoot(skill: Skill, paths: 'relative' | 'absolute'): string {
  if (paths === 'relative' && skill.source !== 'extra') return 'skills';
  return skill.root;
}

function renderMarkdownGroups(skills: readonly Skill[], paths: 'relative' | 'absolute'): string {
  const groups = new Map<string, { label: string; root: string; lines: string[] }>();
  for (const skill of skills) {
    const root = displayRoot(skill, paths);
    const key = `${skill.source}\0${skill.root}`;
    const group = groups.get(key) ?? { label: LABELS[skill.source], root, lines: [] };
    group.lines.push(
      `- **${skill.name}** — ${skill.description}${unavailableSuffix(skill)}  \`${skill.name}/SKILL.md\``,
    );
    groups.set(key, group);
  }
  return [...groups.values()]
    .map((group) => `### ${group.label} (\`${group.root}\`)\n${group.lines.join('\n')}`)
    .join('\n\n');
}

function renderXml(skills: readonly Skill[], paths: 'relative' | 'absolute'): string {
  const entries = skills.map((skill) => {
    const root = displayRoot(skill, paths);
    const location =
      root === 'skills' ? `skills/${skill.name}/SKILL.md` : path.join(root, skill.name, 'SKILL.md');
    const lines = [
      `  <skill available="${skill.available}">`,
      `    <name>${escapeXml(skill.name)}</name>`,
      `    <description>${escapeXml(skill.description)}</description>`,
      `    <location>${escapeXml(location)}</location>`,
      ...(skill.available || missingItems(skill).length === 0
        ? []
        : [`    <requires>${escapeXml(missingItems(skill).join(', '))}</requires>`]),
      '  </skill>',
    ];
    return lines.join('\n');
  });
  return `<skills>\n${entries.join('\n')}\n</skills>`;
}

function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}
