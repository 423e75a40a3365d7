import { lstat, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { atomicWriteFile } from '../workspace/atomic-write.js';
import { isMissingFileError } from '../workspace/fs-helpers.js';
import { type ContextToolResult, toolError } from './context-tool-result.js';
import { checkNoLinkOut, MEMORY_TOOL_PREFIX, type MemoryPath, mapMemoryPath } from './memory-path.js';
import { integerArgument, stringArgument } from './tool-arguments.js';

/** Settings of the memory tool's folder. @internal */
export type MemoryFolderSettings = {
  /** The folder `/memories` maps to (absolute). */
  readonly root: string;
  /** The largest file the tool reads or writes, in bytes. */
  readonly maxFileBytes: number;
  /** Names (relative to the folder) the tool may read but never change. */
  readonly readOnly: readonly string[];
};

/** The arguments the memory tool takes (Anthropic's `memory_20250818` commands). */
export const MEMORY_TOOL_KEYS: readonly string[] = [
  'command',
  'path',
  'view_range',
  'file_text',
  'old_str',
  'new_str',
  'insert_line',
  'insert_text',
  'old_path',
  'new_path',
];

/**
 * Runs one memory-tool command (view, create, str_replace, insert, delete, rename) inside the folder,
 * with Anthropic's result texts. Every path is confined ({@link mapMemoryPath}, {@link checkNoLinkOut});
 * a refused or failed command is an error result and changes nothing.
 */
export async function runMemoryCommand(
  args: Readonly<Record<string, unknown>>,
  settings: MemoryFolderSettings,
): Promise<ContextToolResult> {
  const command = args['command'];
  const at = { args, settings };
  switch (command) {
    case 'view':
      return withPath(at, { isWrite: false, run: view });
    case 'create':
      return withPath(at, { isWrite: true, run: create });
    case 'str_replace':
      return withPath(at, { isWrite: true, run: replace });
    case 'insert':
      return withPath(at, { isWrite: true, run: insert });
    case 'delete':
      return withPath(at, { isWrite: true, run: remove });
    case 'rename':
      return renameCommand(args, settings);
    default:
      return toolError(
        `memory: unknown command ${JSON.stringify(command)}; use view, create, str_replace, insert, delete or rename.`,
      );
  }
}

/** One command's arguments and the folder's settings. */
type Command = {
  readonly args: Readonly<Record<string, unknown>>;
  readonly settings: MemoryFolderSettings;
};

async function withPath(
  at: Command,
  command: {
    readonly isWrite: boolean;
    readonly run: (target: MemoryPath, at: Command) => Promise<ContextToolResult>;
  },
): Promise<ContextToolResult> {
  const { run } = command;
  const target = await checkedPath(at.args['path'], { settings: at.settings, isWrite: command.isWrite });
  if ('error' in target) return toolError(`memory: ${target.error}`);
  try {
    return await run(target, at);
  } catch (error) {
    if (isMissingFileError(error)) return toolError(`memory: ${target.shown} does not exist.`);
    return toolError(`memory: ${target.shown}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function checkedPath(
  raw: unknown,
  check: { readonly settings: MemoryFolderSettings; readonly isWrite: boolean },
): Promise<MemoryPath | { readonly error: string }> {
  const { settings, isWrite } = check;
  const target = mapMemoryPath(raw, settings.root);
  if ('error' in target) return target;
  const linked = await checkNoLinkOut(target, settings.root);
  if (linked !== undefined) return { error: linked };
  if (isWrite && target.segments.length === 0)
    return { error: 'the /memories folder itself cannot be changed.' };
  if (isWrite && settings.readOnly.includes(target.segments.join('/')))
    return { error: `${target.shown} is read-only (ctxloom keeps it; read it with view).` };
  return target;
}

async function view(target: MemoryPath, { args, settings }: Command): Promise<ContextToolResult> {
  const range = args['view_range'];
  await mkdir(settings.root, { recursive: true });
  const info = await stat(target.file);
  if (info.isDirectory()) return listFolder(target, settings.root);
  if (info.size > settings.maxFileBytes)
    return toolError(
      `memory: ${target.shown} has ${info.size} bytes, over the ${settings.maxFileBytes}-byte limit.`,
    );
  const lines = (await readFile(target.file, 'utf8')).split('\n');
  const bounds = viewBounds(range, lines.length);
  if ('error' in bounds) return toolError(`memory: ${bounds.error}`);
  const shown = lines
    .slice(bounds.first - 1, bounds.last)
    .map((line, index) => `${String(bounds.first + index).padStart(6)}\t${line}`);
  return `Here's the content of ${target.shown} with line numbers:\n${shown.join('\n')}`;
}

function viewBounds(
  range: unknown,
  count: number,
): { readonly first: number; readonly last: number } | { readonly error: string } {
  if (range === undefined || range === null) return { first: 1, last: count };
  if (!Array.isArray(range) || range.length !== 2 || !range.every((item) => Number.isInteger(item)))
    return { error: 'view_range must be [first line, last line] (integers; -1 as last means the end).' };
  const first = Number(range[0]);
  const last = Number(range[1]);
  const end = last === -1 ? count : last;
  if (first < 1 || first > Math.max(1, count) || end < first || end > count)
    return { error: `view_range [${first}, ${last}] is outside lines 1–${count}.` };
  return { first, last: end };
}

async function listFolder(target: MemoryPath, root: string): Promise<ContextToolResult> {
  const lines: string[] = [];
  const walk = async (folder: string, depth: number): Promise<void> => {
    for (const name of (await readdir(folder)).sort()) {
      if (name.startsWith('.')) continue;
      const file = path.join(folder, name);
      const info = await lstat(file);
      if (info.isSymbolicLink()) continue;
      const shown = `${MEMORY_TOOL_PREFIX}/${path.relative(root, file).split(path.sep).join('/')}`;
      lines.push(`${formatSize(info.size)}\t${shown}${info.isDirectory() ? '/' : ''}`);
      if (info.isDirectory() && depth < 2) await walk(file, depth + 1);
    }
  };
  await walk(target.file, 1);
  return `Here're the files and directories up to 2 levels deep in ${target.shown}, excluding hidden items:\n${lines.join('\n')}`;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}K`;
  return `${(bytes / 1024 / 1024).toFixed(1)}M`;
}

async function create(target: MemoryPath, { args, settings }: Command): Promise<ContextToolResult> {
  const text = stringArgument(args['file_text'], {
    tool: 'memory create',
    name: 'file_text',
    isRequired: true,
  });
  if ('error' in text) return toolError(`memory: ${text.error}`);
  const content = text.value ?? '';
  const size = Buffer.byteLength(content, 'utf8');
  if (size > settings.maxFileBytes)
    return toolError(`memory: file_text has ${size} bytes, over the ${settings.maxFileBytes}-byte limit.`);
  if (await exists(target.file)) return toolError(`memory: File ${target.shown} already exists.`);
  await mkdir(path.dirname(target.file), { recursive: true });
  await atomicWriteFile(target.file, content);
  return `File created successfully at: ${target.shown}`;
}

async function replace(target: MemoryPath, { args, settings }: Command): Promise<ContextToolResult> {
  const oldText = stringArgument(args['old_str'], {
    tool: 'memory str_replace',
    name: 'old_str',
    isRequired: true,
  });
  const newText = stringArgument(args['new_str'], {
    tool: 'memory str_replace',
    name: 'new_str',
    isRequired: false,
  });
  if ('error' in oldText) return toolError(`memory: ${oldText.error}`);
  if ('error' in newText) return toolError(`memory: ${newText.error}`);
  const search = oldText.value ?? '';
  if (search === '') return toolError('memory: old_str is empty; give the exact text to replace.');
  const content = await readLimited(target, settings);
  if (typeof content !== 'string') return content;
  const first = content.indexOf(search);
  if (first < 0)
    return toolError(
      `memory: No replacement was performed, old_str did not appear verbatim in ${target.shown}.`,
    );
  if (content.indexOf(search, first + 1) >= 0)
    return toolError(
      `memory: No replacement was performed: old_str appears more than once in ${target.shown}; make it unique.`,
    );
  const next = content.slice(0, first) + (newText.value ?? '') + content.slice(first + search.length);
  return writeLimited(target, { content: next, settings, done: 'The memory file has been edited.' });
}

async function insert(target: MemoryPath, { args, settings }: Command): Promise<ContextToolResult> {
  const text = stringArgument(args['insert_text'], {
    tool: 'memory insert',
    name: 'insert_text',
    isRequired: true,
  });
  if ('error' in text) return toolError(`memory: ${text.error}`);
  const content = await readLimited(target, settings);
  if (typeof content !== 'string') return content;
  const lines = content.split('\n');
  const line = integerArgument(args['insert_line'], {
    tool: 'memory insert',
    name: 'insert_line',
    min: 0,
    max: lines.length,
  });
  if ('error' in line) return toolError(`memory: ${line.error}`);
  if (line.value === undefined) return toolError('memory: insert_line is required.');
  const next = [...lines.slice(0, line.value), text.value ?? '', ...lines.slice(line.value)].join('\n');
  return writeLimited(target, { content: next, settings, done: `The file ${target.shown} has been edited.` });
}

async function remove(target: MemoryPath): Promise<ContextToolResult> {
  await lstat(target.file);
  await rm(target.file, { recursive: true });
  return `Successfully deleted ${target.shown}`;
}

async function renameCommand(
  args: Readonly<Record<string, unknown>>,
  settings: MemoryFolderSettings,
): Promise<ContextToolResult> {
  const from = await checkedPath(args['old_path'], { settings, isWrite: true });
  if ('error' in from) return toolError(`memory: ${from.error}`);
  const to = await checkedPath(args['new_path'], { settings, isWrite: true });
  if ('error' in to) return toolError(`memory: ${to.error}`);
  if (!(await exists(from.file))) return toolError(`memory: ${from.shown} does not exist.`);
  if (await exists(to.file)) return toolError(`memory: ${to.shown} already exists.`);
  if (to.segments.join('/').startsWith(`${from.segments.join('/')}/`))
    return toolError(`memory: ${to.shown} is inside ${from.shown}.`);
  await mkdir(path.dirname(to.file), { recursive: true });
  await rename(from.file, to.file);
  return `Successfully renamed ${from.shown} to ${to.shown}`;
}

async function readLimited(
  target: MemoryPath,
  settings: MemoryFolderSettings,
): Promise<string | ContextToolResult> {
  const info = await stat(target.file);
  if (!info.isFile()) return toolError(`memory: ${target.shown} is not a file.`);
  if (info.size > settings.maxFileBytes)
    return toolError(
      `memory: ${target.shown} has ${info.size} bytes, over the ${settings.maxFileBytes}-byte limit.`,
    );
  return readFile(target.file, 'utf8');
}

async function writeLimited(
  target: MemoryPath,
  write: { readonly content: string; readonly settings: MemoryFolderSettings; readonly done: string },
): Promise<ContextToolResult> {
  const { content, settings, done } = write;
  const size = Buffer.byteLength(content, 'utf8');
  if (size > settings.maxFileBytes)
    return toolError(
      `memory: the edit would make ${target.shown} ${size} bytes, over the ${settings.maxFileBytes}-byte limit; nothing changed.`,
    );
  await atomicWriteFile(target.file, content);
  return done;
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (error) {
    if (isMissingFileError(error)) return false;
    throw error;
  }
}
