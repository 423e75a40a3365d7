import type { Message } from '../core/message.js';
import { toUniversalNewlines } from '../core/universal-newlines.js';
import { MemoryFile } from '../memory/memory-file.js';
import type { BuildContext, MessageProvider } from '../pipeline/contracts.js';
import { matchesWorkspaceTemplate } from '../workspace/workspace-templates.js';
import { SystemMessageMemo } from './system-message-memo.js';

/** Reads the long-term memory text; `MemoryFile` implements it. */
export type MemoryReader = { read(): Promise<string> };

/** Options for {@link MemoryProvider}. */
export type MemoryProviderOptions = {
  /** The provider id. @default 'memory' */
  readonly id?: string;
  /** The agent workspace; memory is `memory/MEMORY.md` in it. */
  readonly workspace: string;
  /** Reads the memory text (inject to test or to read from elsewhere). @default new MemoryFile({ workspace }) */
  readonly reader?: MemoryReader;
  /** More texts that count as the untouched template. @default [] */
  readonly extraTemplates?: readonly string[];
};

/**
 * Part 4 of the agent system prompt: `# Memory\n\n## Long-term Memory\n{memory}`,
 * the file inserted as nanobot reads it (Python text mode: `\r\n` and `\r` become `\n`; nothing
 * trimmed). Left out, as in nanobot, when the file is missing or empty, or still the untouched
 * template (ctxloom's or one of `extraTemplates`, compared trimmed); a whitespace-only file is
 * inserted like any other text. The file is read exactly once per build.
 */
export class MemoryProvider implements MessageProvider {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly #reader: MemoryReader;
  readonly #extraTemplates: readonly string[];
  /** The last message, given again while it says the same. */
  readonly #said = new SystemMessageMemo();

  constructor(options: MemoryProviderOptions) {
    this.id = options.id ?? 'memory';
    this.#reader = options.reader ?? new MemoryFile({ workspace: options.workspace });
    this.#extraTemplates = options.extraTemplates ?? [];
  }

  async getMessages(_input: unknown, context: BuildContext): Promise<readonly Message[]> {
    const memory = toUniversalNewlines(await this.#reader.read());
    if (
      memory === '' ||
      matchesWorkspaceTemplate({
        file: 'memory/MEMORY.md',
        content: memory,
        extraTemplates: this.#extraTemplates,
      })
    )
      return [];
    return [
      this.#said.message({ content: `# Memory\n\n## Long-term Memory\n${memory}` }, context.generateId),
    ];
  }
}
