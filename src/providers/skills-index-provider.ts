import type { Message } from '../core/message.js';
import type { BuildContext, MessageProvider } from '../pipeline/contracts.js';
import { renderSkillsIndex, type SkillsIndexFormat } from '../skills/render-skills-index.js';
import type { SkillsCatalog } from '../skills/skills-catalog.js';
import { skillsOfBuild } from '../skills/skills-of-build.js';
import { SystemMessageMemo } from './system-message-memo.js';

/** Options for {@link SkillsIndexProvider}. */
export type SkillsIndexProviderOptions = {
  /** The provider id. @default 'skills-index' */
  readonly id?: string;
  /** Where the skills come from (unavailable ones are listed, flagged). */
  readonly catalog: Pick<SkillsCatalog, 'list'>;
  /** Markdown groups (nanobot) or an XML list. @default 'markdown' */
  readonly format?: SkillsIndexFormat;
  /** How skill roots print; see `SkillsIndexOptions.paths`. @default 'relative' */
  readonly paths?: 'relative' | 'absolute';
};

/**
 * Part 6 of the agent system prompt: the index of every skill that is not an
 * available always-on skill, so the model can read a SKILL.md when it needs it.
 */
export class SkillsIndexProvider implements MessageProvider {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly #options: SkillsIndexProviderOptions;
  /** The last message, given again while it says the same. */
  readonly #said = new SystemMessageMemo();

  constructor(options: SkillsIndexProviderOptions) {
    this.id = options.id ?? 'skills-index';
    this.#options = options;
  }

  getMessages(_input: unknown, context: BuildContext): readonly Message[] {
    const skills = skillsOfBuild(this.#options.catalog, context);
    const text = renderSkillsIndex(skills, {
      format: this.#options.format ?? 'markdown',
      paths: this.#options.paths ?? 'relative',
    });
    if (text === '') return [];
    return [this.#said.message({ content: text }, context.generateId)];
  }
}
