import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContextTools, JsonlSessionStore } from '../../index.js';
import { main } from '../main.js';

const EXAMPLE = path.resolve(import.meta.dirname, '../../../examples/workspace');
let workspace = '';

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'ctxloom-inspect-notes-'));
  await cp(EXAMPLE, workspace, { recursive: true });
  const store = new JsonlSessionStore({ dir: path.join(workspace, 'sessions') });
  const tools = createContextTools({ workspace, store, sessionKey: 'cli:direct' });
  const result = await tools.execute({
    id: 'c1',
    name: 'notes',
    arguments: JSON.stringify({ command: 'write', goal: 'Ship the release', next_step: 'tag v1.2' }),
  });
  expect(result).toBe('Notes saved; they are shown to you from the next request on.');
  await store.close();
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function run(args: readonly string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: {
      write: (text: string) => {
        stdout += text;
      },
    },
    stderr: {
      write: (text: string) => {
        stderr += text;
      },
    },
    env: {},
    cwd: workspace,
  });
  return { code, stdout, stderr };
}

describe('the notes in ctxloom inspect and build', () => {
  it('shows the notes as their own category and sends them in the system prompt', async () => {
    const inspect = await run(['inspect', '--workspace', workspace, '--json', 'What next?']);
    expect(inspect.code).toBe(0);
    const data = JSON.parse(inspect.stdout) as { categories: { name: string; tokens: number }[] };
    expect(data.categories.find((category) => category.name === 'Notes')?.tokens).toBeGreaterThan(0);
    const text = await run(['inspect', '--workspace', workspace, 'What next?']);
    expect(text.stdout).toMatch(/Notes\s+[\d,]+ tokens/);
    const build = await run([
      'build',
      '--preset',
      'agent',
      '--workspace',
      workspace,
      '--session',
      'cli:direct',
      '--format',
      'text',
      'What next?',
    ]);
    expect(build.code).toBe(0);
    expect(build.stdout).toContain('Goal: Ship the release');
    expect(build.stdout).toContain('Next step: tag v1.2');
  });
});
