import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from '@fast-check/vitest';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import { contextToolOutput } from './context-tool-result.js';
import { type ContextTools, createContextTools } from './create-context-tools.js';

let root: string;
let outside: string;
let tools: ContextTools;

/** Every file and its content under a folder (links listed, not followed). */
async function snapshot(folder: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const name of await readdir(dir)) {
      const file = path.join(dir, name);
      const info = await lstat(file);
      if (info.isDirectory()) await walk(file);
      else
        found[path.relative(folder, file)] = info.isSymbolicLink() ? '<link>' : await readFile(file, 'utf8');
    }
  };
  await walk(folder);
  return found;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ctxloom-memory-fuzz-'));
  outside = path.join(root, 'outside');
  const workspace = path.join(root, 'workspace');
  await mkdir(path.join(workspace, 'memory'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
  await writeFile(path.join(workspace, 'AGENTS.md'), 'agents');
  await symlink(outside, path.join(workspace, 'memory', 'link'));
  await writeFile(path.join(workspace, 'memory', 'keep.md'), 'keep');
  tools = createContextTools({ workspace, store: new MemorySessionStore(), sessionKey: 'k' });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const segment = fc.constantFrom(
  '..',
  '.',
  '%2e%2e',
  '%2E%2E%2F',
  '..%2f',
  '%252e%252e',
  '..\\..',
  'a\\b',
  'x\u0000y',
  '\u0001',
  '.hidden',
  ' ',
  'é'.repeat(200),
);
/** Paths that must be refused: each contains at least one hostile piece. */
const hostilePath = fc.oneof(
  fc
    .tuple(
      fc.array(fc.constantFrom('a', 'b', 'notes'), { maxLength: 3 }),
      segment,
      fc.array(fc.constantFrom('a', 'x.md'), { maxLength: 2 }),
    )
    .map(([before, bad, after]) => `/memories/${[...before, bad, ...after].join('/')}`),
  fc.constantFrom(
    '/memories/link',
    '/memories/link/secret.txt',
    '/memories/link/new.md',
    '/memories/link/../keep.md',
  ),
  fc.constantFrom(
    '/etc/passwd',
    '/',
    '',
    'memories/x',
    '/memoriesx/y',
    '/memories../x',
    'C:\\memories\\x',
    '~/x',
    '//memories/x',
  ),
  fc.constant(`/memories/${'a/'.repeat(20)}x`),
  fc.constant(`/memories/${'a'.repeat(600)}`),
  fc.string({ maxLength: 30 }).map((text) => `/memories/../${text}`),
);

const command = fc.constantFrom(
  'view',
  'create',
  'str_replace',
  'insert',
  'delete',
  'rename-from',
  'rename-to',
);

describe('the memory tool confines every path', () => {
  test.prop([hostilePath, command], { numRuns: 300 })(
    'refuses a hostile path and touches nothing outside',
    async (hostile, which) => {
      const before = await snapshot(root);
      const args = argumentsFor(which, hostile);
      const result = contextToolOutput(
        await tools.execute({
          id: 'fuzz',
          name: 'memory',
          arguments: JSON.stringify(args),
        }),
      );
      expect(result.isError, `${JSON.stringify(hostile)} → ${result.output}`).toBe(true);
      expect(await snapshot(root)).toEqual(before);
    },
  );
});

/** The arguments of one command with the hostile path where that command takes a path. */
function argumentsFor(which: string, hostile: string): Readonly<Record<string, unknown>> {
  const byCommand: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
    view: { command: 'view', path: hostile },
    create: { command: 'create', path: hostile, file_text: 'pwned' },
    str_replace: { command: 'str_replace', path: hostile, old_str: 'secret', new_str: 'pwned' },
    insert: { command: 'insert', path: hostile, insert_line: 0, insert_text: 'pwned' },
    delete: { command: 'delete', path: hostile },
    'rename-from': { command: 'rename', old_path: hostile, new_path: '/memories/ok.md' },
    'rename-to': { command: 'rename', old_path: '/memories/keep.md', new_path: hostile },
  };
  return byCommand[which] ?? { command: which, path: hostile };
}
