import { type ChatPresetOptions, ContextBuilder } from '../../index.js';
import type { AgentContext } from './agent-context.js';

/** What a preset row receives: the resolved preset options, the workspace and the agent context. */
type PresetRequest = {
  readonly options: ChatPresetOptions;
  readonly workspace: string;
  readonly agent: AgentContext;
  readonly sessionKey: string;
};

/** `--preset` values: one row per preset; add a row to add a preset. */
export const BUILD_PRESETS: Readonly<Record<string, (request: PresetRequest) => ContextBuilder>> = {
  chat: (request) => ContextBuilder.forChat(request.options),
  react: (request) => ContextBuilder.forReact(request.options),
  skill: (request) => ContextBuilder.forSkill({ ...request.options, cwd: request.workspace }),
  // The workspace agent (nanobot), exactly as `inspect` and `serve` build it: the agent section of
  // ctxloom.yaml, the window, --max-tokens as the input budget, --max-messages.
  agent: (request) => request.agent.createBuilder(request.sessionKey),
};
