import path from 'node:path';
import { DEFAULT_PROMPTS, type PromptDefaults } from '../config/prompt-defaults.js';
import type { Message } from '../core/message.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, MessageProvider } from '../pipeline/contracts.js';
import { renderSkillBlocks } from '../skills/render-skill-blocks.js';
import { renderSkillsIndex, type SkillsIndexFormat } from '../skills/render-skills-index.js';
import type { Skill } from '../skills/skills-catalog.js';
import { SystemMessageMemo } from './system-message-memo.js';

/**
 * How {@link SkillSetPromptProvider} renders the skill set:
 * - `summary`: the index plus the on-demand policy when a file-reading tool is sent (the model reads
 *   SKILL.md itself), else the index plus the fallback policy and the instructions inlined;
 * - `full`: the index and every available skill's instructions under `Skill instructions:`;
 * - `alwaysOnly`: only the always-on skills, under `# Active Skills`.
 */
export type SkillSetMode = 'summary' | 'full' | 'alwaysOnly';

/** Options for {@link SkillSetPromptProvider}. */
export type SkillSetPromptProviderOptions = {
  /** The provider id. @default 'skills' */
  readonly id?: string;
  /** The skills, or a function that resolves them per build (runtime resolution). */
  readonly skills: readonly Skill[] | ((input: BuildInput) => readonly Skill[]);
  /** @default 'summary' */
  readonly mode?: SkillSetMode;
  /** Index format. @default 'markdown' */
  readonly indexFormat?: SkillsIndexFormat;
  /** Policy texts. @default DEFAULT_PROMPTS */
  readonly prompts?: Partial<PromptDefaults>;
  /** Tool names that read files; one of them in `input.tools` selects the on-demand policy. @default DEFAULT_FILE_READING_TOOLS */
  readonly fileReadingTools?: readonly string[];
  /** The working directory printed in the resource-usage policy. @default undefined (not printed) */
  readonly workingDirectory?: string;
};

/** Tool names treated as file readers. */
export const DEFAULT_FILE_READING_TOOLS: readonly string[] = Object.freeze([
  'read_file',
  'readFile',
  'read',
  'file_read',
  'view_file',
  'open_file',
]);

/**
 * Renders a skill set as one system block with the skill
 * capability policy, the index or the instructions (by mode, see {@link SkillSetMode}), and the
 * resource-usage policy with each skill's folder (the runtime path mapping). Empty set → nothing.
 */
export class SkillSetPromptProvider implements MessageProvider {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly mode: SkillSetMode;
  readonly #options: SkillSetPromptProviderOptions;
  readonly #prompts: PromptDefaults;
  /** The last message, given again while it says the same. */
  readonly #said = new SystemMessageMemo();

  constructor(options: SkillSetPromptProviderOptions) {
    this.id = options.id ?? 'skills';
    this.mode = options.mode ?? 'summary';
    this.#options = options;
    this.#prompts = { ...DEFAULT_PROMPTS, ...options.prompts };
  }

  getMessages(input: BuildInput, context: BuildContext): readonly Message[] {
    const skills =
      typeof this.#options.skills === 'function' ? this.#options.skills(input) : this.#options.skills;
    const text = this.render(skills, input);
    if (text === '') return [];
    return [this.#said.message({ content: text, metadata: { mode: this.mode } }, context.generateId)];
  }

  /** The block for `skills` given the build input (its `tools` pick the summary policy). */
  render(skills: readonly Skill[], input: BuildInput): string {
    const available = skills.filter((skill) => skill.available);
    if (this.mode === 'alwaysOnly') {
      const always = available.filter((skill) => skill.always);
      return always.length === 0 ? '' : `# Active Skills\n\n${renderSkillBlocks(always)}`;
    }
    if (skills.length === 0) return '';
    const index = renderSkillsIndex(
      skills.map((skill) => ({ ...skill, always: false })),
      { format: this.#options.indexFormat ?? 'markdown', paths: 'absolute' },
    );
    const inline = this.mode === 'full' || !this.#hasFileReader(input);
    const policy =
      this.mode === 'full'
        ? []
        : [inline ? this.#prompts.skillFallbackPolicyPrompt : this.#prompts.skillOnDemandPolicyPrompt];
    const instructions =
      inline && available.length > 0 ? [`Skill instructions:\n\n${renderSkillBlocks(available)}`] : [];
    return [
      this.#prompts.skillCapabilityPolicyPrompt,
      index,
      ...policy,
      ...instructions,
      this.#resourceUsage(skills),
    ]
      .filter((part) => part.trim() !== '')
      .join('\n\n');
  }

  #hasFileReader(input: BuildInput): boolean {
    const readers = new Set(this.#options.fileReadingTools ?? DEFAULT_FILE_READING_TOOLS);
    return (input.tools ?? []).some((tool) => readers.has(tool.name));
  }

  #resourceUsage(skills: readonly Skill[]): string {
    const lines = [this.#prompts.skillResourceUsagePolicyPrompt];
    if (this.#options.workingDirectory !== undefined)
      lines.push(`Working directory: ${this.#options.workingDirectory}`);
    lines.push('Skill folders:', ...skills.map((skill) => `- ${skill.name}: ${path.dirname(skill.path)}`));
    return lines.join('\n');
  }
}
