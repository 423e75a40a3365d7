import type { Message } from '../core/message.js';
import type { BuildContext, MessageProvider } from '../pipeline/contracts.js';
import { renderSkillBlocks } from '../skills/render-skill-blocks.js';
import type { SkillsCatalog } from '../skills/skills-catalog.js';
import { skillsOfBuild } from '../skills/skills-of-build.js';
import { SystemMessageMemo } from './system-message-memo.js';

/** Options for {@link AlwaysOnSkillsProvider}. */
export type AlwaysOnSkillsProviderOptions = {
  /** The provider id. @default 'always-on-skills' */
  readonly id?: string;
  /** Where the skills come from. */
  readonly catalog: Pick<SkillsCatalog, 'list'>;
};

/**
 * Part 5 of the agent system prompt: the available skills flagged always-on, in
 * full: `# Active Skills\n\n` + `### Skill: {name}\n\n{body}` blocks joined by `\n\n---\n\n`.
 */
export class AlwaysOnSkillsProvider implements MessageProvider {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly #catalog: Pick<SkillsCatalog, 'list'>;
  /** The last message, given again while it says the same. */
  readonly #said = new SystemMessageMemo();

  constructor(options: AlwaysOnSkillsProviderOptions) {
    this.id = options.id ?? 'always-on-skills';
    this.#catalog = options.catalog;
  }

  getMessages(_input: unknown, context: BuildContext): readonly Message[] {
    const always = skillsOfBuild(this.#catalog, context).filter((skill) => skill.available && skill.always);
    if (always.length === 0) return [];
    const content = `# Active Skills\n\n${renderSkillBlocks(always)}`;
    const metadata = { skills: always.map((skill) => skill.name) };
    return [this.#said.message({ content, metadata }, context.generateId)];
  }
}
