import type { AgentSettings } from '../config/resolve-agent-settings.js';
import type { AgentPresetOptions } from './for-agent.js';

/**
 * The `ContextBuilder.forAgent` options a `ctxloom.yaml` `agent` section sets (channel, limits,
 * project folder, TOOLS.md, strict roles, skills); spread it under your own options.
 * @example ContextBuilder.forAgent({ workspace, ...agentOptionsFromSettings(resolveAgentSettings(config, workspace)) })
 */
export function agentOptionsFromSettings(settings: AgentSettings): Omit<AgentPresetOptions, 'workspace'> {
  const skills = {
    ...(settings.skillDirs === undefined ? {} : { dirs: settings.skillDirs }),
    ...(settings.disabledSkills === undefined ? {} : { disabled: settings.disabledSkills }),
    ...(settings.skillsIndexFormat === undefined ? {} : { indexFormat: settings.skillsIndexFormat }),
  };
  return {
    ...(settings.channel === undefined ? {} : { channel: settings.channel }),
    ...(settings.contextWindowTokens === undefined
      ? {}
      : { contextWindowTokens: settings.contextWindowTokens }),
    ...(settings.maxOutputTokens === undefined ? {} : { maxOutputTokens: settings.maxOutputTokens }),
    ...(settings.projectWorkspace === undefined ? {} : { projectWorkspace: settings.projectWorkspace }),
    ...(settings.includeToolsFile === undefined
      ? {}
      : { bootstrap: { includeToolsFile: settings.includeToolsFile } }),
    ...(settings.strictRoles === undefined ? {} : { strictRoles: settings.strictRoles }),
    ...(Object.keys(skills).length === 0 ? {} : { skills }),
  };
}
