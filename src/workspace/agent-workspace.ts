import path from 'node:path';

/** The two folders an agent works with (nanobot's vocabulary). */
export type AgentWorkspace = {
  /** The agent's home: SOUL.md, USER.md, memory/, skills/, sessions/ (absolute). */
  readonly agentDir: string;
  /** The folder selected for this conversation; AGENTS.md is read from here (absolute). */
  readonly projectDir: string;
  /** True when the project folder is not the agent workspace. */
  readonly isSeparateProject: boolean;
};

/** Options for {@link resolveAgentWorkspace}. */
export type AgentWorkspaceOptions = {
  /** The agent workspace. */
  readonly workspace: string;
  /** The project folder. @default the agent workspace */
  readonly projectWorkspace?: string;
};

/** Resolves both folders to absolute paths and tells whether they differ. */
export function resolveAgentWorkspace(options: AgentWorkspaceOptions): AgentWorkspace {
  const agentDir = path.resolve(options.workspace);
  const projectDir = path.resolve(options.projectWorkspace ?? options.workspace);
  return { agentDir, projectDir, isSeparateProject: agentDir !== projectDir };
}
