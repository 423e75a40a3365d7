import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../sessions/memory-session-store.js';
import { contextToolOutput } from './context-tool-result.js';
import { type ContextTools, createContextTools } from './create-context-tools.js';

let root: string;
let workspace: string;
let tools: ContextTools;
let count = 0;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ctxloom-memory-tool-'));
  workspace = path.join(root, 'workspace');
  await mkdir(path.join(workspace, 'memory'), { recursive: true });
  await writeFile(path.join(workspace, 'memory', 'MEMORY.md'), '# Memory\n- likes tea\n');
  await writeFile(
    path.join(workspace, 'memory', 'history.jsonl'),
    '{"cursor":1,"timestamp":"2026-12-01 10:00","content":"x"}\n',
  );
  tools = createContextTools({
    workspace,
    store: new MemorySessionStore(),
    sessionKey: 'k',
    maxMemoryFileBytes: 1000,
  });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function memory(args: object): Promise<{ output: string; isError: boolean }> {
  count += 1;
  return contextToolOutput(
    await tools.execute({ id: `m${count}`, name: 'memory', arguments: JSON.stringify(args) }),
  );
}

describe('the memory tool', () => {
  it("reaches nanobot's memory files and runs every command", async () => {
    const listing = await memory({ command: 'view', path: '/memories' });
    expect(listing.output).toContain('/memories/MEMORY.md');
    expect((await memory({ command: 'view', path: '/memories/MEMORY.md' })).output).toBe(
      "Here's the content of /memories/MEMORY.md with line numbers:\n     1\t# Memory\n     2\t- likes tea\n     3\t",
    );
    expect(
      (await memory({ command: 'view', path: '/memories/MEMORY.md', view_range: [2, 2] })).output,
    ).toContain('     2\t- likes tea');
    expect(
      (await memory({ command: 'create', path: '/memories/notes/todo.md', file_text: 'a\nb' })).output,
    ).toBe('File created successfully at: /memories/notes/todo.md');
    expect(
      (await memory({ command: 'create', path: '/memories/notes/todo.md', file_text: 'c' })).isError,
    ).toBe(true);
    expect(
      (await memory({ command: 'str_replace', path: '/memories/notes/todo.md', old_str: 'b', new_str: 'B' }))
        .isError,
    ).toBe(false);
    expect(
      (await memory({ command: 'str_replace', path: '/memories/notes/todo.md', old_str: 'zz', new_str: 'B' }))
        .isError,
    ).toBe(true);
    expect(
      (
        await memory({
          command: 'insert',
          path: '/memories/notes/todo.md',
          insert_line: 1,
          insert_text: 'mid',
        })
      ).isError,
    ).toBe(false);
    expect(await readFile(path.join(workspace, 'memory', 'notes', 'todo.md'), 'utf8')).toBe('a\nmid\nB');
    expect(
      (
        await memory({
          command: 'rename',
          old_path: '/memories/notes/todo.md',
          new_path: '/memories/done.md',
        })
      ).isError,
    ).toBe(false);
    expect((await memory({ command: 'delete', path: '/memories/notes' })).output).toBe(
      'Successfully deleted /memories/notes',
    );
    expect((await memory({ command: 'view', path: '/memories/done.md' })).output).toContain('mid');
  });

  it('keeps history.jsonl read-only, the folder itself fixed and files within the size limit', async () => {
    expect((await memory({ command: 'view', path: '/memories/history.jsonl' })).isError).toBe(false);
    expect((await memory({ command: 'delete', path: '/memories/history.jsonl' })).output).toContain(
      'read-only',
    );
    expect((await memory({ command: 'delete', path: '/memories' })).isError).toBe(true);
    expect(
      (await memory({ command: 'create', path: '/memories/big.md', file_text: 'x'.repeat(1001) })).output,
    ).toContain('over the 1000-byte limit');
    expect(
      (
        await memory({
          command: 'str_replace',
          path: '/memories/MEMORY.md',
          old_str: 'tea',
          new_str: 't'.repeat(2000),
        })
      ).output,
    ).toContain('nothing changed');
    expect(await readFile(path.join(workspace, 'memory', 'MEMORY.md'), 'utf8')).toBe(
      '# Memory\n- likes tea\n',
    );
  });

  it('never follows a link out of the folder', async () => {
    const outside = path.join(root, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret.txt'), 'secret');
    await symlink(outside, path.join(workspace, 'memory', 'out'));
    await symlink(path.join(outside, 'secret.txt'), path.join(workspace, 'memory', 'secret.md'));
    for (const args of [
      { command: 'view', path: '/memories/out/secret.txt' },
      { command: 'view', path: '/memories/secret.md' },
      { command: 'create', path: '/memories/out/new.md', file_text: 'x' },
      { command: 'str_replace', path: '/memories/secret.md', old_str: 'secret', new_str: 'gone' },
      { command: 'delete', path: '/memories/out' },
      { command: 'rename', old_path: '/memories/MEMORY.md', new_path: '/memories/out/MEMORY.md' },
    ])
      expect((await memory(args)).isError, JSON.stringify(args)).toBe(true);
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    expect((await memory({ command: 'view', path: '/memories' })).output).not.toContain('secret');
  });
});
