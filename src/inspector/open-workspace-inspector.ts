import path from 'node:path';
import { type AgentSettings, resolveAgentSettings } from '../config/index.js';
import { createSequentialIdGenerator } from '../core/index.js';
import {
  ContextBuilder,
  createTokenCounter,
  JsonlSessionStore,
  loadConfig,
  MemorySessionStore,
  type SessionStore,
  type TokenCounter,
} from '../index.js';
import { agentOptionsFromSettings } from '../presets/index.js';
import { JsonlRequestStore, type RequestRecordStore } from '../recorder/index.js';
import { readMessagesFile, replaySession } from '../sessions/index.js';
import { SessionInspector } from './session-inspector.js';

/** Options for {@link openWorkspaceInspector}. */
export type OpenWorkspaceInspectorOptions = {
  /** The agent workspace (AGENTS.md, SOUL.md, memory/, skills/, sessions/). */
  readonly workspace: string;
  /** The model name; picks the exact tiktoken counter for OpenAI models. @default 'gpt-4o' */
  readonly model?: string;
  /** The model's context window. @default 128000 */
  readonly contextWindowTokens?: number;
  /** Tokens reserved for the answer. @default 8192 */
  readonly maxOutputTokens?: number;
  /** Read the history from this JSON/JSONL file instead of the session store. @default the store */
  readonly historyFile?: string;
  /** The session key the history file is shown under. @default 'cli:direct' */
  readonly sessionKey?: string;
  /** Share of the window (0–1) from which one item is warned about. @default 0.1 */
  readonly largeItemShare?: number;
  /** Use this store instead of the workspace's. @default JsonlSessionStore over `<workspace>/sessions` */
  readonly store?: SessionStore;
  /** The request recorder's store, for the timeline. @default the JSONL logs beside the workspace's sessions (`JsonlRequestStore.besideSessions`) */
  readonly requests?: RequestRecordStore;
  /** Counts tokens. @default from `ctxloom.yaml` `tokenCounter`, else tiktoken for OpenAI models, else simple */
  readonly tokenCounter?: TokenCounter;
  readonly signal?: AbortSignal;
};

/** Defaults of {@link OpenWorkspaceInspectorOptions}. */
export const DEFAULT_WORKSPACE_INSPECTOR = Object.freeze({
  model: 'gpt-4o',
  contextWindowTokens: 128_000,
  maxOutputTokens: 8_192,
  sessionKey: 'cli:direct',
});

/** The inspector shows the offload references the agent would send but writes and deletes nothing. */
const READ_ONLY_OFFLOAD = { dryRun: true };

/**
 * Opens a workspace for inspection the way its agent would build the next model call: the session
 * store in `<workspace>/sessions` (nanobot's JSONL), nanobot's replay rules (`getHistory` with the
 * loop's replay budget, the archived summary from `metadata._last_summary`), the agent preset
 * (`ContextBuilder.forAgent`, channel taken from the session key) and the counter of `ctxloom.yaml`.
 * Oversized tool results get the same offload reference the agent would send, but the inspector
 * writes nothing (the governor's offload runs with `dryRun`).
 * @throws ContextError `INVALID_CONFIG` for a bad `ctxloom.yaml`, `NOT_FOUND`/`INVALID_INPUT` for a bad history file.
 */
export async function openWorkspaceInspector(
  options: OpenWorkspaceInspectorOptions,
): Promise<SessionInspector> {
  const workspace = path.resolve(options.workspace);
  const signalOption = options.signal === undefined ? {} : { signal: options.signal };
  const { config } = await loadConfig({ dir: workspace, optional: true, ...signalOption });
  const agent = resolveAgentSettings(config, workspace);
  const resolved = { ...DEFAULT_WORKSPACE_INSPECTOR, ...definedOnly(agent), ...options };
  const tokenCounter =
    resolved.tokenCounter ??
    (await createTokenCounter({
      config: config.tokenCounter,
      model: resolved.model,
      workspace,
      ...signalOption,
    }));
  const { contextWindowTokens, maxOutputTokens } = resolved;
  const store =
    resolved.store ??
    (resolved.historyFile === undefined
      ? new JsonlSessionStore({ dir: agent.sessionsDir })
      : await historyStore(
          { historyFile: resolved.historyFile, sessionKey: resolved.sessionKey },
          signalOption,
        ));
  return new SessionInspector({
    store,
    createBuilder: (sessionKey) =>
      ContextBuilder.forAgent({
        workspace,
        ...agentOptionsFromSettings(agent),
        channel: agent.channel ?? channelOf(sessionKey),
        tokenCounter,
        contextWindowTokens,
        maxOutputTokens,
        // The inspector shows an over-budget context (with its warning) instead of refusing to.
        governor: { offload: READ_ONLY_OFFLOAD, onOverBudget: 'keep' },
        generateId: createSequentialIdGenerator('built'),
      }),
    replay: (record) => {
      const { history, summary, notes } = replaySession(record, {
        tokenCounter,
        contextWindowTokens,
        maxOutputTokens,
      });
      const input = {
        ...(summary === undefined ? {} : { summary }),
        ...(notes === undefined ? {} : { notes }),
      };
      return { history, ...(Object.keys(input).length === 0 ? {} : { input }) };
    },
    contextWindowTokens,
    maxOutputTokens,
    model: resolved.model,
    requests: resolved.requests ?? JsonlRequestStore.besideSessions(agent.sessionsDir),
    ...(resolved.largeItemShare === undefined ? {} : { largeItemShare: resolved.largeItemShare }),
  });
}

/** The channel of a nanobot session key (`telegram:8281248569` → `telegram`). */
function channelOf(sessionKey: string): string {
  const colon = sessionKey.indexOf(':');
  return colon <= 0 ? sessionKey : sessionKey.slice(0, colon);
}

async function historyStore(
  options: { readonly historyFile: string; readonly sessionKey: string },
  signalOption: { readonly signal?: AbortSignal },
): Promise<SessionStore> {
  const store = new MemorySessionStore();
  await store.append(options.sessionKey, await readMessagesFile(options.historyFile, signalOption));
  return store;
}

/** The model and limits the config sets, without unset keys (so they don't override the defaults). */
function definedOnly(
  agent: AgentSettings,
): Pick<OpenWorkspaceInspectorOptions, 'model' | 'contextWindowTokens' | 'maxOutputTokens'> {
  return {
    ...(agent.model === undefined ? {} : { model: agent.model }),
    ...(agent.contextWindowTokens === undefined ? {} : { contextWindowTokens: agent.contextWindowTokens }),
    ...(agent.maxOutputTokens === undefined ? {} : { maxOutputTokens: agent.maxOutputTokens }),
  };
}
