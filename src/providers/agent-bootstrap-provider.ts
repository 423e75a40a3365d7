import { ContextError, throwIfAborted } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, MessageProvider } from '../pipeline/contracts.js';
import { resolveAgentWorkspace } from '../workspace/agent-workspace.js';
import { WorkspaceFileCache } from '../workspace/file-cache.js';
import { resolveRealInside } from '../workspace/resolve-real-inside.js';
import { matchesWorkspaceTemplate, WORKSPACE_TEMPLATES } from '../workspace/workspace-templates.js';

/** Options for {@link AgentBootstrapProvider}. */
export type AgentBootstrapProviderOptions = {
  /** The provider id. @default 'bootstrap-files' */
  readonly id?: string;
  /** The agent workspace (SOUL.md, USER.md, TOOLS.md). */
  readonly workspace: string;
  /** The project folder (AGENTS.md); no fallback to the agent's AGENTS.md. @default the agent workspace */
  readonly projectWorkspace?: string;
  /** Also load TOOLS.md from the agent workspace (nanobot no longer does). @default false */
  readonly includeToolsFile?: boolean;
  /**
   * More texts that count as untouched templates, per file name (e.g. another tool's bundled
   * AGENTS.md), besides ctxloom's own `WORKSPACE_TEMPLATES`. @default {}
   */
  readonly extraTemplates?: Readonly<Record<string, readonly string[]>>;
  /** Legacy SOUL.md texts replaced (in the prompt only) by the current SOUL template. @default [] */
  readonly legacySoulTemplates?: readonly string[];
  /** Characters kept per file; longer files end with a visible marker. @default 20000 */
  readonly maxFileChars?: number;
  /** The file cache. @default a new cache per provider */
  readonly fileCache?: WorkspaceFileCache;
};

/** Why a bootstrap file was left out. */
export type AgentBootstrapSkip = {
  readonly file: string;
  readonly reason: 'missing' | 'blank' | 'template' | 'outside-workspace' | 'unreadable';
};

type Source = { readonly file: string; readonly root: string };

/**
 * Part 2 of the agent system prompt with nanobot's rules (§1.2): `AGENTS.md` from the project
 * folder, `SOUL.md` and `USER.md` from the agent workspace (and `TOOLS.md` when enabled). Missing
 * and blank files are skipped; AGENTS.md, USER.md and TOOLS.md equal to their template are skipped;
 * a legacy SOUL.md is swapped for the current template. Emits `## NAME\n\ncontent` blocks joined by
 * a blank line, with `metadata.files` and `metadata.skipped` (reasons) for the trace.
 */
export class AgentBootstrapProvider implements MessageProvider {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly #sources: readonly Source[];
  readonly #options: AgentBootstrapProviderOptions;
  readonly #cache: WorkspaceFileCache;
  readonly #maxFileChars: number;

  constructor(options: AgentBootstrapProviderOptions) {
    const maxFileChars = options.maxFileChars ?? 20_000;
    if (!Number.isInteger(maxFileChars) || maxFileChars < 1) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `AgentBootstrapProvider maxFileChars must be a positive integer, got ${maxFileChars}.`,
      });
    }
    const { agentDir, projectDir } = resolveAgentWorkspace(options);
    this.id = options.id ?? 'bootstrap-files';
    this.#sources = [
      { file: 'AGENTS.md', root: projectDir },
      { file: 'SOUL.md', root: agentDir },
      { file: 'USER.md', root: agentDir },
      ...(options.includeToolsFile === true ? [{ file: 'TOOLS.md', root: agentDir }] : []),
    ];
    this.#options = options;
    this.#cache = options.fileCache ?? new WorkspaceFileCache();
    this.#maxFileChars = maxFileChars;
  }

  async getMessages(input: BuildInput, context: BuildContext): Promise<readonly Message[]> {
    if (input.runtimePrompt?.includeBootstrapFiles === false) return [];
    const blocks: string[] = [];
    const files: string[] = [];
    const skipped: AgentBootstrapSkip[] = [];
    for (const source of this.#sources) {
      throwIfAborted(context.signal);
      const read = await this.#read(source, context.signal);
      if (typeof read !== 'string') {
        skipped.push(read);
        continue;
      }
      blocks.push(`## ${source.file}\n\n${this.#cap(source.file, read)}`);
      files.push(source.file);
    }
    if (blocks.length === 0) return [];
    return [
      {
        id: context.generateId(),
        role: 'system',
        content: blocks.join('\n\n'),
        metadata: { files, skipped },
      },
    ];
  }

  async #read(source: Source, signal: AbortSignal | undefined): Promise<string | AgentBootstrapSkip> {
    const { file } = source;
    let text: string;
    try {
      const real = await resolveRealInside(source.root, file);
      text = (await this.#cache.read(real, signal === undefined ? {} : { signal })).text;
    } catch (error) {
      if (ContextError.isInstance(error) && error.code === 'ABORTED') throw error;
      if (ContextError.isInstance(error)) return { file, reason: 'outside-workspace' };
      return { file, reason: isMissing(error) ? 'missing' : 'unreadable' };
    }
    const trimmed = text.trim();
    if (trimmed === '') return { file, reason: 'blank' };
    if (file === 'SOUL.md') return this.#soul(trimmed);
    if (
      matchesWorkspaceTemplate({
        file,
        content: trimmed,
        extraTemplates: this.#options.extraTemplates?.[file] ?? [],
      })
    ) {
      return { file, reason: 'template' };
    }
    return trimmed;
  }

  #soul(text: string): string {
    const legacy = this.#options.legacySoulTemplates ?? [];
    return legacy.some((template) => template.trim() === text) ? WORKSPACE_TEMPLATES['SOUL.md'].trim() : text;
  }

  #cap(file: string, text: string): string {
    if (text.length <= this.#maxFileChars) return text;
    return `${text.slice(0, this.#maxFileChars)}\n\n[... truncated: ${file} is ${text.length} chars; showing the first ${this.#maxFileChars}]`;
  }
}

function isMissing(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false;
  return error.code === 'ENOENT' || error.code === 'ENOTDIR';
}
