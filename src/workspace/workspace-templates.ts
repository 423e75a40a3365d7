import { createHash } from 'node:crypto';
import { pythonStrip } from '../core/python-strip.js';
import { toUniversalNewlines } from '../core/universal-newlines.js';
import { NANOBOT_TEMPLATE_DIGESTS, type TemplateDigest } from './nanobot-template-digests.js';

/**
 * The files `ctxloom init` writes into a new agent workspace, keyed by their path relative to the
 * workspace. The texts are ctxloom's own. Template detection (see `matchesWorkspaceTemplate`)
 * compares workspace files against THESE texts: an AGENTS.md, USER.md or MEMORY.md still equal to
 * its template carries no information, so the agent preset leaves it out of the prompt. nanobot's
 * own templates are not shipped: they are recognised by their fingerprints
 * (`NANOBOT_TEMPLATE_DIGESTS`).
 */
export const WORKSPACE_TEMPLATES: Readonly<Record<WorkspaceTemplateFile, string>> = Object.freeze({
  'AGENTS.md': `# Agent instructions

This file tells the agent how to work in this workspace. Replace the examples with your own rules.

## Working here
- Say what you are about to change before a large edit, and summarise what you changed after it.
- Ask before deleting files or running commands that cannot be undone.
- Keep answers short unless the user asks for detail.

## Project notes
- (Describe the project, its layout and the commands to build and test it.)
`,
  'SOUL.md': `# Soul

I am a careful, friendly assistant that works in this workspace.

- I am honest about what I know and what I do not.
- I prefer doing the work over describing it, and I check my results.
- I keep the user in control: I ask before anything risky or irreversible.
- I write plainly and briefly.
`,
  'USER.md': `# User

- Name: (your name)
- Role: (what you do)
- Language: (the language you want answers in)
- Time zone: (e.g. Europe/Paris)
- Preferences: (tone, format, level of detail)
`,
  'TOOLS.md': `# Tools

Notes about the tools available in this workspace (commands, services, credentials to ask for).
The agent preset loads this file only with \`includeToolsFile: true\` under \`agent:\` in ctxloom.yaml.
`,
  'memory/MEMORY.md': `# Long-term Memory

## User Information

## Preferences

## Project Context

## Important Notes

*The memory writer keeps this file current; facts that should last go here.*
`,
});

/** The files {@link WORKSPACE_TEMPLATES} holds. */
export type WorkspaceTemplateFile = 'AGENTS.md' | 'SOUL.md' | 'USER.md' | 'TOOLS.md' | 'memory/MEMORY.md';

/** What {@link matchesWorkspaceTemplate} compares. */
export type TemplateCheck = {
  /** The file, relative to the workspace (`AGENTS.md`, `memory/MEMORY.md`). */
  readonly file: string;
  /** The file's text. */
  readonly content: string;
  /** More texts that count as the template (e.g. another tool's bundled file). @default [] */
  readonly extraTemplates?: readonly string[];
  /** Fingerprints of templates recognised without their text. @default NANOBOT_TEMPLATE_DIGESTS[file] */
  readonly digests?: readonly TemplateDigest[];
};

/**
 * True when `content` is an untouched template: equal to ctxloom's template for `file`, to nanobot's
 * (recognised by {@link NANOBOT_TEMPLATE_DIGESTS}), or to one of `extraTemplates`, compared as nanobot
 * compares them (line ends as Python text mode reads them, both sides stripped as Python's `strip()`
 * does). Files without a template match only `extraTemplates`.
 */
export function matchesWorkspaceTemplate(check: TemplateCheck): boolean {
  const normalised = comparable(check.content);
  const own: unknown = Object.hasOwn(WORKSPACE_TEMPLATES, check.file)
    ? Reflect.get(WORKSPACE_TEMPLATES, check.file)
    : undefined;
  if (typeof own === 'string' && comparable(own) === normalised) return true;
  const digests =
    check.digests ??
    (Object.hasOwn(NANOBOT_TEMPLATE_DIGESTS, check.file) ? NANOBOT_TEMPLATE_DIGESTS[check.file] : undefined);
  if (matchesDigest(normalised, digests ?? [])) return true;
  return (check.extraTemplates ?? []).some((template) => comparable(template) === normalised);
}

function matchesDigest(normalised: string, digests: readonly TemplateDigest[]): boolean {
  return digests.some(
    (digest) =>
      digest.chars === normalised.length &&
      createHash('sha256').update(normalised).digest('hex') === digest.sha256,
  );
}

function comparable(text: string): string {
  return pythonStrip(toUniversalNewlines(text));
}
