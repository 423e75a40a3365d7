import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ContextError } from '../../index.js';
import { scaffoldWorkspace } from '../../workspace/index.js';
import type { CliCommand, CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import { parseCliArgs } from '../parse-cli-args.js';

const USAGE = `Usage: ctxloom init DIR [--json]

Creates an agent workspace in DIR (made if missing): AGENTS.md, SOUL.md, USER.md, TOOLS.md,
memory/MEMORY.md, an empty memory/history.jsonl, and the skills/ and sessions/ folders.
Existing files are never overwritten; they are listed as kept.

Then edit SOUL.md and USER.md, add skills as skills/<name>/SKILL.md, and run:
  ctxloom build --preset agent --workspace DIR "Hello"
`;

/** `ctxloom init DIR`: scaffolds an agent workspace without overwriting anything. */
export const initCommand: CliCommand = {
  name: 'init',
  summary: 'Create an agent workspace (AGENTS.md, SOUL.md, USER.md, memory/, skills/) without overwriting',
  usage: USAGE,
  run: runInit,
};

async function runInit(args: readonly string[], io: CliIo): Promise<number> {
  const { dir, json } = parseDir(args);
  const root = path.resolve(io.cwd, dir);
  const info = await stat(root).catch(() => undefined);
  if (info !== undefined && !info.isDirectory()) {
    throw new ContextError({
      code: 'INVALID_INPUT',
      message: `${root} is a file, not a folder, so no workspace can be created there; pick a new or existing folder.`,
    });
  }
  const result = await scaffoldWorkspace(root);
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ workspace: root, created: result.created, kept: result.kept }, null, 2)}\n`,
    );
    return EXIT_CODES.ok;
  }
  const lines = [
    `Workspace: ${root}`,
    ...result.created.map((file) => `  created  ${file}`),
    ...result.kept.map((file) => `  kept     ${file} (already there)`),
    result.created.length === 0
      ? 'Nothing to create: the workspace is complete.'
      : `Created ${result.created.length} item(s).`,
    `Next: ctxloom build --preset agent --workspace ${JSON.stringify(dir)} "Hello"`,
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT_CODES.ok;
}

function parseDir(args: readonly string[]): { readonly dir: string; readonly json: boolean } {
  const parsed = parseCliArgs('init', args, { json: { type: 'boolean' } });
  const [dir, ...extra] = parsed.positionals;
  if (dir === undefined || dir.trim() === '' || extra.length > 0) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: 'ctxloom init needs exactly one folder, e.g. ctxloom init ./my-agent',
    });
  }
  return { dir, json: parsed.values['json'] === true };
}
