import path from 'node:path';
import type { CtxloomConfig } from './config-schema.js';

/** The agent settings of a `ctxloom.yaml` with paths made absolute; unset fields stay unset. */
export type AgentSettings = {
  readonly model?: string;
  readonly contextWindowTokens?: number;
  readonly maxOutputTokens?: number;
  readonly channel?: string;
  /** Absolute. */
  readonly projectWorkspace?: string;
  readonly includeToolsFile?: boolean;
  readonly strictRoles?: boolean;
  /** Extra skill folders, absolute. */
  readonly skillDirs?: readonly string[];
  readonly disabledSkills?: readonly string[];
  readonly skillsIndexFormat?: 'markdown' | 'xml';
  /** The JSONL sessions folder, absolute. */
  readonly sessionsDir: string;
};

/**
 * Reads the `agent` section and `sessionsDir` of a config for the workspace agent, resolving paths
 * against the workspace (so `ctxloom build --preset agent`, `inspect`, `serve` and `memory` agree).
 */
export function resolveAgentSettings(config: CtxloomConfig, workspace: string): AgentSettings {
  const agent = config.agent ?? {};
  const skills = agent.skills ?? {};
  const inWorkspace = (value: string): string => path.resolve(workspace, value);
  return {
    sessionsDir: inWorkspace(config.sessionsDir ?? 'sessions'),
    ...(agent.model === undefined ? {} : { model: agent.model }),
    ...(agent.contextWindowTokens === undefined ? {} : { contextWindowTokens: agent.contextWindowTokens }),
    ...(agent.maxOutputTokens === undefined ? {} : { maxOutputTokens: agent.maxOutputTokens }),
    ...(agent.channel === undefined ? {} : { channel: agent.channel }),
    ...(agent.projectWorkspace === undefined
      ? {}
      : { projectWorkspace: inWorkspace(agent.projectWorkspace) }),
    ...(agent.includeToolsFile === undefined ? {} : { includeToolsFile: agent.includeToolsFile }),
    ...(agent.strictRoles === undefined ? {} : { strictRoles: agent.strictRoles }),
    ...(skills.dirs === undefined ? {} : { skillDirs: skills.dirs.map(inWorkspace) }),
    ...(skills.disabled === undefined ? {} : { disabledSkills: skills.disabled }),
    ...(skills.indexFormat === undefined ? {} : { skillsIndexFormat: skills.indexFormat }),
  };
}
