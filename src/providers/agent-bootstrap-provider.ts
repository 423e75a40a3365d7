import { toUniversalNewlines } from '../core/universal-newlines.js';
import { resolveAgentWorkspace } from '../workspace/agent-workspace.js';
import type { WorkspaceFileCache } from '../workspace/file-cache.js';
import { matchesWorkspaceTemplate, WORKSPACE_TEMPLATES } from '../workspace/workspace-templates.js';
import { BootstrapFilesProvider } from './bootstrap-files-provider.js';
import { isUntouchedTemplate } from './is-untouched-template.js';

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
  /** Legacy SOUL.md texts replaced (in the prompt only) by `soulTemplate`. @default [] */
  readonly legacySoulTemplates?: readonly string[];
  /**
   * The text a legacy SOUL.md is replaced by (pass nanobot's current `SOUL.md` to match nanobot).
   * @default WORKSPACE_TEMPLATES['SOUL.md'] (ctxloom's own)
   */
  readonly soulTemplate?: string;
  /** Characters kept per file; longer files end with a visible marker. @default 20000 */
  readonly maxFileChars?: number;
  /** The file cache. @default a new cache per provider */
  readonly fileCache?: WorkspaceFileCache;
};

/**
 * Part 2 of the agent system prompt with nanobot's rules: a {@link BootstrapFilesProvider}
 * that reads `AGENTS.md` from the project folder and `SOUL.md`, `USER.md` (and `TOOLS.md` when
 * enabled) from the agent workspace; AGENTS.md, USER.md and TOOLS.md equal to their template are
 * skipped; a legacy SOUL.md is swapped for `soulTemplate` (a current template SOUL.md is kept). Files
 * are inserted as read (see {@link BootstrapFilesProvider}).
 */
export class AgentBootstrapProvider extends BootstrapFilesProvider {
  constructor(options: AgentBootstrapProviderOptions) {
    const { agentDir, projectDir } = resolveAgentWorkspace(options);
    const legacySoul = options.legacySoulTemplates ?? [];
    const soul = toUniversalNewlines(options.soulTemplate ?? WORKSPACE_TEMPLATES['SOUL.md']);
    super({
      id: options.id ?? 'bootstrap-files',
      workspace: agentDir,
      files: [
        { file: 'AGENTS.md', workspace: projectDir },
        'SOUL.md',
        'USER.md',
        ...(options.includeToolsFile === true ? ['TOOLS.md'] : []),
      ],
      isTemplate: (file, content) =>
        isUntouchedTemplate(file, { content, extraTemplates: options.extraTemplates?.[file] ?? [] }),
      rewrite: (file, content) =>
        file === 'SOUL.md' &&
        matchesWorkspaceTemplate({ file: 'legacy/SOUL.md', content, extraTemplates: legacySoul })
          ? soul
          : content,
      ...(options.maxFileChars === undefined ? {} : { maxFileChars: options.maxFileChars }),
      ...(options.fileCache === undefined ? {} : { fileCache: options.fileCache }),
    });
  }
}
