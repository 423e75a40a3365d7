import { lstatSync, realpathSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { Decision } from '../core/decision.js';
import { ContextError, throwIfAborted } from '../core/errors.js';
import { pythonStrip } from '../core/python-strip.js';
import { toUniversalNewlines } from '../core/universal-newlines.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, MessageProvider, ProviderResult } from '../pipeline/contracts.js';
import { WorkspaceFileCache } from '../workspace/file-cache.js';
import { isMissingFileError } from '../workspace/fs-helpers.js';
import { MissingFiles, type MissingFilesRound } from '../workspace/missing-files.js';
import { realPathInside } from '../workspace/real-path-inside.js';
import { leavesFolder, resolveInside } from '../workspace/safe-path.js';
import { SystemMessageMemo } from './system-message-memo.js';

/** Options for {@link BootstrapFilesProvider}. */
export type BootstrapFilesProviderOptions = {
  /** The provider id. @default 'bootstrap-files' */
  readonly id?: string;
  /** The workspace root. @default `input.runtimePrompt.workspaceDir` (nothing is read without one) */
  readonly workspace?: string;
  /**
   * The files to embed, in order, relative to the workspace; a `{ file, workspace }` entry reads that
   * file from another folder. @default ['AGENTS.md', 'SOUL.md', 'USER.md', 'TOOLS.md']
   */
  readonly files?: readonly (string | BootstrapFileSource)[];
  /** Says that a file's content (as read) is an untouched template, so it is skipped. @default never */
  readonly isTemplate?: (file: string, content: string) => boolean;
  /** Replaces a file's content (as read) in the prompt only, e.g. a legacy template. @default none */
  readonly rewrite?: (file: string, content: string) => string;
  /** Characters kept per file; longer files are cut with a visible marker. @default 20000 */
  readonly maxFileChars?: number;
  /** The file cache; share one between builders to share reads. @default a new cache per provider */
  readonly fileCache?: WorkspaceFileCache;
};

/** Defaults of {@link BootstrapFilesProviderOptions}. */
export const DEFAULT_BOOTSTRAP_FILES_PROVIDER = Object.freeze({
  id: 'bootstrap-files',
  files: Object.freeze(['AGENTS.md', 'SOUL.md', 'USER.md', 'TOOLS.md']),
  maxFileChars: 20_000,
});

/** A bootstrap file read from a folder of its own (e.g. AGENTS.md from the project folder). */
export type BootstrapFileSource = {
  readonly file: string;
  /** The folder it is read from. @default the provider's workspace */
  readonly workspace?: string;
};

/** Why a bootstrap file was left out. */
export type BootstrapSkip = {
  readonly file: string;
  readonly reason: 'missing' | 'blank' | 'template' | 'outside-workspace' | 'unreadable';
};

const numberFormat = new Intl.NumberFormat('en-US');

const SKIP_REASONS: Readonly<Record<BootstrapSkip['reason'], string>> = {
  missing: 'the file does not exist',
  blank: 'the file is empty or whitespace only',
  template: 'it is the untouched template',
  'outside-workspace': 'the path or its symbolic link leads outside the workspace',
  unreadable: 'the file could not be read',
};

/**
 * Embeds the workspace bootstrap files as ONE `system` message: each file as
 * `## NAME\n\ncontent`, joined by a blank line, in the configured order. The content is the file as
 * nanobot reads it (Python text mode: `\r\n` and `\r` become `\n`; nothing trimmed, so a final newline
 * stays). Missing and blank (whitespace-only) files are skipped; a file longer than `maxFileChars` is
 * cut and ends with a visible `[... truncated: …]` marker; a path or symbolic link that leaves the workspace is refused. The message metadata
 * records `files` (embedded), `truncated` and `skipped` (with reasons) so the trace shows them.
 * Active unless `input.runtimePrompt.includeBootstrapFiles` is `false`.
 */
export class BootstrapFilesProvider implements MessageProvider {
  readonly specificationVersion = 'v1';
  readonly id: string;
  readonly files: readonly BootstrapFileSource[];
  readonly maxFileChars: number;
  readonly #workspace: string | undefined;
  readonly #cache: WorkspaceFileCache;
  readonly #isTemplate: (file: string, content: string) => boolean;
  readonly #rewrite: (file: string, content: string) => string;
  /** The last message, given again while it says the same. */
  readonly #said = new SystemMessageMemo();
  /** The files found missing: one stat of their folder tells they still are. */
  readonly #missing = new MissingFiles();
  /** The last result when every file was missing, with the workspace it was for. */
  #noneFound: { readonly workspace: string; readonly result: ProviderResult } | undefined;

  constructor(options: BootstrapFilesProviderOptions = {}) {
    const maxFileChars = options.maxFileChars ?? DEFAULT_BOOTSTRAP_FILES_PROVIDER.maxFileChars;
    if (!Number.isInteger(maxFileChars) || maxFileChars < 1) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `BootstrapFilesProvider maxFileChars must be a positive integer, got ${maxFileChars}.`,
      });
    }
    const files = (options.files ?? DEFAULT_BOOTSTRAP_FILES_PROVIDER.files).map((entry) =>
      typeof entry === 'string' ? { file: entry } : entry,
    );
    for (const { file } of files) assertRelativeInside(file);
    this.id = options.id ?? DEFAULT_BOOTSTRAP_FILES_PROVIDER.id;
    this.files = files;
    this.maxFileChars = maxFileChars;
    this.#workspace = options.workspace;
    this.#cache = options.fileCache ?? new WorkspaceFileCache();
    this.#isTemplate = options.isTemplate ?? (() => false);
    this.#rewrite = options.rewrite ?? ((_file, content) => content);
  }

  async getMessages(input: BuildInput, context: BuildContext): Promise<ProviderResult> {
    if (input.runtimePrompt?.includeBootstrapFiles === false) return { messages: [], decisions: [] };
    const workspace = this.#workspace ?? input.runtimePrompt?.workspaceDir;
    if (workspace === undefined) return { messages: [], decisions: [] };
    const blocks: string[] = [];
    const embedded: string[] = [];
    const truncated: string[] = [];
    const skipped: BootstrapSkip[] = [];
    throwIfAborted(context.signal);
    // Each root's real path is looked up once per build, whatever the number of files in it.
    const realRoots = new Map<string, string>();
    const realRootOf = (root: string): string => {
      let real = realRoots.get(root);
      if (real === undefined) {
        real = realpathSync.native(root);
        realRoots.set(root, real);
      }
      return real;
    };
    // Each file resolved once per build (`undefined`: its path leaves the workspace).
    const targets = this.files.map((source) => {
      const root = source.workspace ?? workspace;
      return { file: source.file, workspace: root, resolved: resolvedInside(root, source.file) };
    });
    const missing = this.#missing.round();
    const none = this.#noneFound;
    // Every file still missing (one stat per folder): the same skips as last time, nothing read.
    if (
      none?.workspace === workspace &&
      targets.every(({ resolved }) => resolved !== undefined && missing.stillMissing(resolved))
    )
      return none.result;
    const reads = await Promise.all(
      targets.map(async (target) => ({
        file: target.file,
        read: await this.#read({ ...target, signal: context.signal, realRootOf, missing }),
      })),
    );
    throwIfAborted(context.signal);
    for (const { file, read } of reads) {
      if (typeof read !== 'string') {
        skipped.push(read);
        continue;
      }
      const capped = this.#cap(file, read);
      if (capped !== read) truncated.push(file);
      blocks.push(`## ${file}\n\n${capped}`);
      embedded.push(file);
    }
    const decisions = this.#explain(truncated, skipped);
    this.#noneFound = undefined;
    if (blocks.length === 0) {
      const result = { messages: [], decisions };
      if (skipped.every((skip) => skip.reason === 'missing')) this.#noneFound = { workspace, result };
      return result;
    }
    const metadata = { files: embedded, truncated, skipped };
    const message = this.#said.message({ content: blocks.join('\n\n'), metadata }, context.generateId);
    return { messages: [message], decisions };
  }

  #explain(truncated: readonly string[], skipped: readonly BootstrapSkip[]): readonly Decision[] {
    const cut = truncated.map((file) => ({
      type: 'message-truncate' as const,
      stage: this.id,
      reason: `${file} is longer than ${numberFormat.format(this.maxFileChars)} characters; the rest is cut with a marker.`,
      messageIds: [],
      details: { file },
    }));
    const left = skipped.map((skip) => ({
      type: 'section-skip' as const,
      stage: this.id,
      reason: `${skip.file} is left out: ${SKIP_REASONS[skip.reason]}.`,
      messageIds: [],
      details: { file: skip.file, cause: skip.reason },
    }));
    return [...cut, ...left];
  }

  async #read(
    target: FileTarget & { readonly signal: AbortSignal | undefined },
  ): Promise<string | BootstrapSkip> {
    const { file, signal } = target;
    const found = locate(target);
    if (!('path' in found)) return found;
    let text: string;
    try {
      const { stats } = found;
      text = (
        await this.#cache.read(found.path, {
          ...(signal === undefined ? {} : { signal }),
          ...(stats === undefined ? {} : { stats }),
        })
      ).text;
    } catch (error) {
      if (ContextError.isInstance(error)) throw error;
      return { file, reason: isMissingFileError(error) ? 'missing' : 'unreadable' };
    }
    const content = toUniversalNewlines(text);
    if (pythonStrip(content) === '') return { file, reason: 'blank' };
    if (this.#isTemplate(file, content)) return { file, reason: 'template' };
    return this.#rewrite(file, content);
  }

  #cap(file: string, text: string): string {
    if (text.length <= this.maxFileChars) return text;
    const total = numberFormat.format(text.length);
    const kept = numberFormat.format(this.maxFileChars);
    return `${text.slice(0, this.maxFileChars)}\n\n[... truncated: ${file} is ${total} chars; showing the first ${kept}]`;
  }
}

/** A bootstrap file found: the path to read, and its stat when the lookup took one that serves. */
type FoundFile = { readonly path: string; readonly stats?: Stats };

/** A bootstrap file to look up in one build. */
type FileTarget = {
  readonly workspace: string;
  readonly file: string;
  /** The file's path, resolved inside `workspace` (`undefined`: it leaves the workspace). */
  readonly resolved: string | undefined;
  readonly realRootOf: (root: string) => string;
  readonly missing: MissingFilesRound;
};

/**
 * Where a bootstrap file is read from, or why it is skipped before it is read. A plain file right in
 * the workspace (the usual case) is read at its path with the `lstat` that found it (one system call
 * a build); a link or a file in a subfolder is read at its real path, checked to stay inside.
 */
function locate(target: FileTarget): FoundFile | BootstrapSkip {
  const { workspace, file, resolved, missing } = target;
  if (resolved === undefined) return { file, reason: 'outside-workspace' };
  try {
    if (missing.stillMissing(resolved)) return { file, reason: 'missing' };
    const stats = lstatSync(resolved, { throwIfNoEntry: false });
    if (stats?.isFile() === true && path.dirname(resolved) === path.resolve(workspace)) {
      missing.lookedUp(resolved, false);
      return { path: resolved, stats };
    }
    const real =
      stats === undefined
        ? undefined
        : realPathInside(workspace, { path: file, realRootOf: target.realRootOf, lstat: stats });
    // Only nothing at the path (not a dangling link, whose target may appear elsewhere).
    missing.lookedUp(resolved, real === undefined);
    return real === undefined ? { file, reason: 'missing' } : { path: real };
  } catch (error) {
    if (ContextError.isInstance(error)) return { file, reason: 'outside-workspace' };
    return { file, reason: isMissingFileError(error) ? 'missing' : 'unreadable' };
  }
}

/** `file` resolved inside `root`, or `undefined` when it would leave it. */
function resolvedInside(root: string, file: string): string | undefined {
  try {
    return resolveInside(root, file);
  } catch (error) {
    if (ContextError.isInstance(error)) return undefined; // UNSAFE_PATH
    throw error;
  }
}

function assertRelativeInside(file: string): void {
  const normalised = path.normalize(file);
  if (file.trim() === '' || file.includes('\0') || leavesFolder(normalised)) {
    throw new ContextError({
      code: 'UNSAFE_PATH',
      message: `Bootstrap file ${JSON.stringify(file)} is not a path inside the workspace; list files relative to the workspace root, e.g. "AGENTS.md".`,
      details: { path: file },
    });
  }
}
