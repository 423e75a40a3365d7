import type { ToolDefinition } from '../core/tool-definition.js';
import type { SeededRandom } from './seeded-random.js';

const WORDS = (
  'the context builder keeps system prompt stable while history grows and governor offloads large tool ' +
  'results into files so prompt cache reads same prefix request after request function const return await ' +
  'import export interface type string number error result message session token budget filter provider ' +
  'model response config path test build deploy branch review patch module cache store query index'
).split(' ');

/** `count` filler words (no backticks, no `=`, so they never look like a planted value or rule). */
export function fillerWords(random: SeededRandom, count: number): string {
  return Array.from({ length: count }, () => random.pick(WORDS)).join(' ');
}

/** Filler text of about `chars` characters, in lines of about 80 characters. */
export function fillerChars(random: SeededRandom, chars: number): string {
  const lines: string[] = [];
  let total = 0;
  while (total < chars) {
    const line = fillerWords(random, random.int(8, 14));
    lines.push(line);
    total += line.length + 1;
  }
  return lines.join('\n');
}

/** Inserts `line` at a seeded position among the lines of `body` (never first or last). */
export function bury(random: SeededRandom, run: { readonly body: string; readonly line: string }): string {
  const lines = run.body.split('\n');
  const at = lines.length < 3 ? 1 : random.int(1, lines.length - 2);
  return [...lines.slice(0, at), run.line, ...lines.slice(at)].join('\n');
}

/** A planted value as written in the session: `key = \`value\``. */
export function statement(key: string, value: string): string {
  return `${key} = \`${value}\``;
}

/**
 * The lines the eval's focused scripted summariser keeps (`createScriptedSummarizer(kind, { keepLines })`
 * from `ctxloom/testing`): rule lines and lines that state a value.
 */
export const EVAL_SUMMARY_LINES = /^RULE \S+:|\S+ = `[^`]+`/;

/** The rules a scenario can plant, each forbidding one call on one target. */
export const RULE_POOL = Object.freeze([
  { id: 'R1', forbiddenTool: 'delete_branch', forbiddenTarget: 'main' },
  { id: 'R2', forbiddenTool: 'force_push', forbiddenTarget: 'release' },
  { id: 'R3', forbiddenTool: 'drop_table', forbiddenTarget: 'customers' },
] as const);

/** The rule as written: what the scripted agent looks for before it makes the call. */
export function ruleText(rule: {
  readonly id: string;
  readonly forbiddenTool: string;
  readonly forbiddenTarget: string;
}): string {
  return `RULE ${rule.id}: never call ${rule.forbiddenTool} on \`${rule.forbiddenTarget}\`; ask the user first.`;
}

/** The persona every scenario starts from. */
export const EVAL_PERSONA =
  'You are a coding agent working in a git repository. Use the tools to inspect and change the project, ' +
  'keep answers short, and follow every RULE you were given.';

const TOOL_NAMES = [
  'read_file',
  'exec',
  'grep',
  'write_file',
  'web_fetch',
  'delete_branch',
  'force_push',
  'drop_table',
  'recall',
] as const;

/** Tools the ordinary turns call. */
export const WORK_TOOLS = Object.freeze(['read_file', 'exec', 'grep', 'write_file'] as const);

/** The tools every eval request carries (the forbidden ones and `recall` included). */
export const EVAL_TOOLS: readonly ToolDefinition[] = Object.freeze(
  TOOL_NAMES.map((name) => ({
    name,
    description:
      name === 'recall'
        ? 'recall: searches the earlier conversation for text the context no longer shows.'
        : `${name}: runs inside the repository and returns plain text.`,
    parameters: {
      type: 'object',
      properties: {
        target: { type: 'string', description: 'A path, branch, table or search query.' },
      },
      required: ['target'],
    },
  })),
);
