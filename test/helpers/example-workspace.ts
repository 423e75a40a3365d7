import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The repository's bundled example workspace (SOUL.md, memory/, sessions/, skills/). */
export const EXAMPLE_WORKSPACE = path.resolve(import.meta.dirname, '../../examples/workspace');

/** A fresh copy of the example workspace in a new temp folder (the caller removes it). */
export async function copyExampleWorkspace(prefix: string): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), prefix));
  await cp(EXAMPLE_WORKSPACE, folder, { recursive: true });
  return folder;
}
