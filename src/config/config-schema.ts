import path from 'node:path';
import { z } from 'zod';
import { leavesFolder } from '../workspace/safe-path.js';

/**
 * The `ctxloom.yaml` schema (zod 4, camelCase keys). Every object is strict: an unknown key is an
 * error. To add a section, add one entry to {@link ctxloomConfigSchema} below.
 */

/** Overrides of the built-in prompt texts (`DEFAULT_PROMPTS`); every field is optional. */
export const promptConfigSchema = z.strictObject({
  personaDefaultPrompt: z.string().optional(),
  reactProtocolPrompt: z.string().optional(),
  historySemanticsPrompt: z.string().optional(),
  skillCapabilityPolicyPrompt: z.string().optional(),
  skillOnDemandPolicyPrompt: z.string().optional(),
  skillFallbackPolicyPrompt: z.string().optional(),
  skillResourceUsagePolicyPrompt: z.string().optional(),
  toolsTemplate: z
    .string()
    .refine((value) => value.includes('{tools_desc}'), 'must contain the {tools_desc} placeholder')
    .optional(),
  bootstrapFiles: z.array(z.string().min(1)).optional(),
});

/** The token counter to use: `simple` (chars ÷ 4), `byte`, `tiktoken` (gpt-tokenizer) or `hf` (tokenizer.json). */
export const tokenCounterConfigSchema = z.strictObject({
  type: z.enum(['simple', 'byte', 'tiktoken', 'hf']),
  /** tiktoken encoding: `o200k_base` or `cl100k_base`. */
  encoding: z.enum(['o200k_base', 'cl100k_base']).optional(),
  /** A model name the counter derives its encoding from, e.g. `gpt-4o`. */
  model: z.string().optional(),
  /** Path of a local `tokenizer.json` (for `hf`), relative to the workspace or absolute. */
  tokenizerPath: z.string().optional(),
});

const workspaceRelativePath = z
  .string()
  .min(1)
  .refine(
    (value) => !leavesFolder(path.normalize(value)),
    'must be a path inside the workspace (relative, without ..)',
  );

/** The workspace agent (`--preset agent`, `inspect`, `serve`, `memory`): the model and its limits. */
export const agentConfigSchema = z.strictObject({
  /** The model name (picks the tiktoken encoding when `tokenCounter` names none), e.g. `gpt-4o`. */
  model: z.string().min(1).optional(),
  /** The model's context window in tokens. */
  contextWindowTokens: z.int().positive().optional(),
  /** Tokens reserved for the answer. */
  maxOutputTokens: z.int().nonnegative().optional(),
  /** The channel (the identity's format hint), e.g. `cli`, `telegram`. */
  channel: z.string().min(1).optional(),
  /** The project folder (its AGENTS.md), relative to the workspace or absolute. */
  projectWorkspace: z.string().min(1).optional(),
  /** Load TOOLS.md too (nanobot no longer does). */
  includeToolsFile: z.boolean().optional(),
  /** Make the role sequence legal for strict providers after the governor. */
  strictRoles: z.boolean().optional(),
  /** Skills: extra folders (relative to the workspace or absolute), disabled names, the index format. */
  skills: z
    .strictObject({
      dirs: z.array(z.string().min(1)).optional(),
      disabled: z.array(z.string().min(1)).optional(),
      indexFormat: z.enum(['markdown', 'xml']).optional(),
    })
    .optional(),
});

/** Automatic compaction for `ctxloom build --compact` (see `AutoCompactionOptions`). */
export const compactionConfigSchema = z.strictObject({
  /** Compact when the request reaches this share of the input budget (≤ 1) or these tokens. */
  trigger: z.number().positive().optional(),
  /** Compact down toward this share of the input budget (≤ 1) or these tokens. */
  target: z.number().positive().optional(),
  /** A summary saving less is discarded: a share of the budget (≤ 1) or tokens. */
  minGain: z.number().positive().optional(),
  /** Tokens of the newest history always kept raw. */
  keepRecent: z.int().nonnegative().optional(),
  /** Extra instructions for the summariser. */
  instructions: z.string().min(1).optional(),
  /** Tools whose latest result stays verbatim (a todo list, a plan). */
  pinTools: z.array(z.string().min(1)).optional(),
  /** The summary's output cap in tokens. */
  maxOutputTokens: z.int().positive().optional(),
});

/** The whole `ctxloom.yaml`. All sections are optional. */
export const ctxloomConfigSchema = z.strictObject({
  /** The preset `ctxloom build` uses when `--preset` is not given. */
  preset: z.enum(['chat', 'react', 'skill', 'agent']).optional(),
  /** Keep the pinned prefix plus the newest N messages. */
  maxMessages: z.int().positive().optional(),
  /** The token budget of the built context (tool schemas included). */
  maxInputTokens: z.int().positive().optional(),
  /** The token counter. */
  tokenCounter: tokenCounterConfigSchema.optional(),
  /** The conversation history (JSON or JSONL of messages), relative to the workspace. */
  historyFile: workspaceRelativePath.optional(),
  /** Embed the bootstrap files (AGENTS.md …) in the system prompt. */
  includeBootstrapFiles: z.boolean().optional(),
  /** Annotate tool plans and tool receipts in the history (`self_tool_plan` / `tool_observation`). */
  annotateHistory: z.boolean().optional(),
  /** Remove broken historical tool-call transactions before budgeting (`ctxloom build` default: true). */
  sanitizeToolCalls: z.boolean().optional(),
  /** Prompt text overrides. */
  prompt: promptConfigSchema.optional(),
  /** The workspace agent's model and limits. */
  agent: agentConfigSchema.optional(),
  /** The folder of the JSONL sessions, relative to the workspace. @default 'sessions' */
  sessionsDir: workspaceRelativePath.optional(),
  /** Automatic compaction settings for `ctxloom build --compact` (the summariser comes from the model flags). */
  compaction: compactionConfigSchema.optional(),
});

/** The `agent` section of a validated `ctxloom.yaml`. */
export type AgentConfig = z.output<typeof agentConfigSchema>;

/** A validated `ctxloom.yaml`. */
export type CtxloomConfig = z.output<typeof ctxloomConfigSchema>;
/** The `prompt` section of {@link CtxloomConfig}. */
export type PromptConfig = z.output<typeof promptConfigSchema>;
/** The `tokenCounter` section of {@link CtxloomConfig}. */
export type TokenCounterConfig = z.output<typeof tokenCounterConfigSchema>;
