import path from 'node:path';
import { ContextError, createSkillEnvironment, type Skill, SkillsCatalog } from '../../index.js';
import { skillContractIssues, unavailableSuffix } from '../../skills/index.js';
import type { CliCommand, CliIo } from '../cli-io.js';
import { didYouMean } from '../did-you-mean.js';
import { EXIT_CODES } from '../exit-codes.js';
import { parseCliArgs } from '../parse-cli-args.js';
import { mustExist } from './session-store-flags.js';

const USAGE = `Usage: ctxloom skills list [--all] [--workspace DIR] [--dir DIR]... [--disable NAME]... [--json]

Lists the skills an agent in the workspace can use, in precedence order: the workspace's
skills/<name>/SKILL.md, then each --dir, then ctxloom's built-in skills (a name found earlier
shadows a later one).

Options:
  --all             also list skills whose requirements (executables on PATH, environment variables) are missing
  --workspace DIR   the agent workspace (default: the current folder)
  --dir DIR         an extra skills folder (repeatable)
  --disable NAME    leave a skill out (repeatable)
  --json            print JSON instead of a table
`;

/** `ctxloom skills list`: the skills catalogue of a workspace. */
export const skillsCommand: CliCommand = {
  name: 'skills',
  summary: 'List the skills of a workspace (workspace > extra folders > built-in), with availability',
  usage: USAGE,
  run: runSkills,
};

async function runSkills(args: readonly string[], io: CliIo): Promise<number> {
  const flags = parseFlags(args);
  const workspace = path.resolve(io.cwd, flags.workspace ?? '.');
  await mustExist(workspace, 'folder', '--workspace', "Create one with 'ctxloom init DIR'.");
  const dirs = (flags.dir ?? []).map((dir) => path.resolve(io.cwd, dir));
  for (const dir of dirs) await mustExist(dir, 'folder', '--dir', 'Give a folder of <name>/SKILL.md skills.');
  const environment = createSkillEnvironment({ env: io.env });
  const disabled = flags.disable ?? [];
  if (disabled.length > 0) {
    const names = new SkillsCatalog({ workspace, dirs, environment })
      .list({ includeUnavailable: true })
      .map((skill) => skill.name);
    const unknown = disabled.find((name) => !names.includes(name));
    if (unknown !== undefined)
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `--disable ${JSON.stringify(unknown)} names no skill of this workspace, its --dir folders or the built-in ones, so it would change nothing.${didYouMean(unknown, names)} The skills are: ${names.join(', ')}.`,
      });
  }
  const catalog = new SkillsCatalog({ workspace, dirs, disabled, environment });
  const skills = catalog.list({ includeUnavailable: flags.all === true });
  const problems = catalog.problems();
  if (flags.json === true) {
    const rows = skills.map((skill) => ({ ...describeSkill(skill), missing: skill.missing }));
    const report = {
      skills: rows,
      problems: problems.map((problem) => ({ path: problem.path, message: problem.error.message })),
    };
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    io.stdout.write(renderTable(skills));
  }
  for (const problem of problems)
    io.stderr.write(`warning: skipped ${problem.path}: ${problem.error.message}\n`);
  for (const skill of skills.filter((entry) => entry.source === 'workspace')) {
    for (const issue of skillContractIssues(skill)) io.stderr.write(`note: ${skill.name}: ${issue}\n`);
  }
  return EXIT_CODES.ok;
}

function describeSkill(skill: Skill) {
  return {
    name: skill.name,
    source: skill.source,
    description: skill.description,
    always: skill.always,
    available: skill.available,
    path: skill.path,
  };
}

function renderTable(skills: readonly Skill[]): string {
  if (skills.length === 0)
    return 'No skills found. Add one as skills/<name>/SKILL.md, or use --all to see unavailable ones.\n';
  const nameWidth = Math.max(4, ...skills.map((skill) => skill.name.length));
  const header = `${'name'.padEnd(nameWidth)}  source     status\n`;
  const rows = skills.map((skill) => {
    const status = skill.available
      ? skill.always
        ? 'always-on'
        : 'available'
      : unavailableSuffix(skill).trim().slice(1, -1);
    const description = skill.description.replace(/\s+/g, ' ');
    return `${skill.name.padEnd(nameWidth)}  ${skill.source.padEnd(9)}  ${status}\n${' '.repeat(nameWidth + 2)}${description}`;
  });
  return `${header}${rows.join('\n')}\n`;
}

type Flags = {
  readonly all?: boolean;
  readonly json?: boolean;
  readonly workspace?: string;
  readonly dir?: readonly string[];
  readonly disable?: readonly string[];
};

function parseFlags(args: readonly string[]): Flags {
  const parsed = parseCliArgs('skills', args, {
    all: { type: 'boolean' },
    json: { type: 'boolean' },
    workspace: { type: 'string' },
    dir: { type: 'string', multiple: true },
    disable: { type: 'string', multiple: true },
  });
  const [action, ...rest] = parsed.positionals;
  if (action !== 'list' || rest.length > 0) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `${action === undefined ? 'ctxloom skills needs an action' : `Unknown skills action ${JSON.stringify(parsed.positionals.join(' '))}`}; use 'ctxloom skills list [--all]'.`,
    });
  }
  // parseCliArgs checked the values against the table above.
  return parsed.values as Flags;
}
