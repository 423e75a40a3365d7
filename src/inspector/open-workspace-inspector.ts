import path from 'node:path';
import {
  ContextBuilder,
  JsonlSessionStore,
  loadConfig,
  MemorySessionStore,
  resolvePrompts,
  type SessionStore,
  SimpleTokenCounter,
  type TokenCounter,
} from '../index.js';
import { readHistoryFile } from './read-history-file.js';
import { SessionInspector } from './session-inspector.js';

/** Options for {@link openWorkspaceInspector}. */
export type OpenWorkspaceInspectorOptions = {
  /** The agent workspace (AGENTS.md, SOUL.md, memory/, skills/, sessions/). */
  readonly workspace: string;
  /** The model name. @default 'gpt-4o' */
  readonly model?: string;
  /** The model's context window. @default 128000 */
  readonly contextWindowTokens?: number;
  /** Tokens reserved for the answer. @default 8192 */
  readonly maxOutputTokens?: number;
  /** Read the history from this JSON/JSONL file instead of the session store. @default the store */
  readonly historyFile?: string;
  /** The session key the history file is shown under. @default 'cli:direct' */
  readonly sessionKey?: string;
  /** Use this store instead of the workspace's. @default JsonlSessionStore over `<workspace>/sessions` */
  readonly store?: SessionStore;
  /** Counts tokens. @default SimpleTokenCounter */
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

/**
 * Opens a workspace for inspection: its `ctxloom.yaml`, its session store, the builder the agent
 * would use and a token counter, wired into a {@link SessionInspector}.
 * @throws ContextError `INVALID_CONFIG` for a bad `ctxloom.yaml`, `NOT_FOUND`/`INVALID_INPUT` for a bad history file.
 */
export async function openWorkspaceInspector(
  options: OpenWorkspaceInspectorOptions,
): Promise<SessionInspector> {
  const resolved = { ...DEFAULT_WORKSPACE_INSPECTOR, ...options };
  const workspace = path.resolve(resolved.workspace);
  const signalOption = resolved.signal === undefined ? {} : { signal: resolved.signal };
  const { config } = await loadConfig({ dir: workspace, optional: true, ...signalOption });
  const tokenCounter = resolved.tokenCounter ?? new SimpleTokenCounter();
  const builder = ContextBuilder.forChat({
    workspace,
    runtimePrompt: { includeBootstrapFiles: config.includeBootstrapFiles ?? true, workspaceDir: workspace },
    tokenCounter,
    prompts: resolvePrompts(config),
    maxTokens: Math.min(
      config.maxTokens ?? Number.POSITIVE_INFINITY,
      Math.max(1, resolved.contextWindowTokens - resolved.maxOutputTokens),
    ),
    ...(config.maxMessages === undefined ? {} : { maxMessages: config.maxMessages }),
    ...(config.annotateHistory === undefined ? {} : { annotateHistory: config.annotateHistory }),
  });
  const store =
    resolved.store ??
    (resolved.historyFile === undefined
      ? new JsonlSessionStore({ dir: path.join(workspace, 'sessions') })
      : await historyStore(
          { historyFile: resolved.historyFile, sessionKey: resolved.sessionKey },
          signalOption,
        ));
  return new SessionInspector({
    store,
    builder,
    contextWindowTokens: resolved.contextWindowTokens,
    maxOutputTokens: resolved.maxOutputTokens,
    model: resolved.model,
  });
}

async function historyStore(
  options: { readonly historyFile: string; readonly sessionKey: string },
  signalOption: { readonly signal?: AbortSignal },
): Promise<SessionStore> {
  const store = new MemorySessionStore();
  await store.append(options.sessionKey, await readHistoryFile(options.historyFile, signalOption));
  return store;
}
