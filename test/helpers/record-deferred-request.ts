import { resolveAgentSettings } from '../../src/config/index.js';
import {
  ContextBuilder,
  createToolRegistry,
  EstimatingTokenCounter,
  JsonlSessionStore,
  loadConfig,
  neutralDeferredTools,
  saveLoadedTools,
} from '../../src/index.js';
import { agentOptionsFromSettings } from '../../src/presets/index.js';
import { JsonlRequestStore, RequestRecorder } from '../../src/recorder/index.js';
import { replaySession } from '../../src/sessions/index.js';
import { EAGER_TOOLS, MCP_TOOLS } from '../fixtures/deferred-tools/mcp-tools.js';

/**
 * In a workspace: marks `jira__create_issue` loaded in session `cli:direct` and records, with the
 * request recorder, the agent's next request built with the 5 eager tools plus the neutral search and
 * dispatcher tools, and the 60 MCP-like tools deferred.
 */
export async function recordDeferredRequest(workspace: string): Promise<void> {
  const { config } = await loadConfig({ dir: workspace, optional: true });
  const settings = resolveAgentSettings(config, workspace);
  const store = new JsonlSessionStore({ dir: settings.sessionsDir });
  await saveLoadedTools(store, { sessionKey: 'cli:direct', names: ['jira__create_issue'] });
  const registry = createToolRegistry({ tools: EAGER_TOOLS, deferred: MCP_TOOLS });
  const builder = ContextBuilder.forAgent({
    workspace,
    ...agentOptionsFromSettings(settings),
    channel: 'cli',
    observer: new RequestRecorder({ store: JsonlRequestStore.besideSessions(settings.sessionsDir) }),
  });
  const replayed = replaySession(await store.load('cli:direct'), {
    tokenCounter: new EstimatingTokenCounter(),
    contextWindowTokens: 65_536,
    maxOutputTokens: 8_192,
  });
  await builder.build({
    ...replayed,
    current: 'File the bug.',
    sessionKey: 'cli:direct',
    tools: neutralDeferredTools(registry),
    deferredTools: registry.deferred,
  });
}
