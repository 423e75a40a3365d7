import path from 'node:path';
import {
  type BuildInput,
  ContextError,
  type CtxloomConfig,
  JsonlSessionStore,
  loadReplayedSession,
  type Message,
  type SessionRecord,
} from '../../index.js';
import { lineageWarnings, readMessagesFile } from '../../sessions/index.js';
import { resolveInside } from '../../workspace/index.js';
import type { CliIo } from '../cli-io.js';
import { type AgentContext, DEFAULT_SESSION_KEY } from './agent-context.js';
import type { BuildFlags } from './build-flags.js';
import { openStore } from './session-store-flags.js';

/** The turn's history (and summary, session key), with what the store warned about while loading it. */
export type BuildTurn = Pick<BuildInput, 'history' | 'summary' | 'notes' | 'sessionKey'> & {
  /** The store's load warnings (corrupt lines skipped), as `session show` prints them; empty without --session. */
  readonly loadWarnings: readonly string[];
};

type Sources = { readonly config: CtxloomConfig; readonly workspace: string; readonly cwd: string };

/**
 * The history of the turn: with --session, the stored session replayed as the agent loop would (the
 * replay budget, the archived summary); else --history or historyFile in ctxloom.yaml (for the agent
 * preset replayed the same way, as `inspect` does); else none.
 */
export async function loadBuildTurn(
  flags: BuildFlags,
  sources: Sources & { readonly agent: AgentContext; readonly io: CliIo; readonly sessionsDir: string },
): Promise<BuildTurn> {
  const storeFlag = (['sessions', 'sqlite', 'pg', 'pg-schema', 'nanobot-config'] as const).find(
    (name) => flags[name] !== undefined,
  );
  if (flags.session === undefined) {
    if (storeFlag !== undefined)
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `--${storeFlag} names the store --session is read from; add --session KEY, or drop --${storeFlag}.`,
      });
    const history = await loadHistory(flags.history, sources);
    if ((flags.preset ?? sources.config.preset) !== 'agent') return { history, loadWarnings: [] };
    return replayed(sources.agent, {
      key: DEFAULT_SESSION_KEY,
      messages: history,
      metadata: {},
      lastConsolidated: 0,
      exists: true,
      warnings: [],
    });
  }
  if (flags.history !== undefined) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: 'Pass either --session or --history, not both.',
    });
  }
  const store =
    storeFlag === undefined
      ? new JsonlSessionStore({ dir: sources.sessionsDir })
      : await openStore(flags, sources.io, 'read');
  try {
    // Only the newest messages the replay uses are loaded (the whole session when it needs more).
    const { record, history, summary, notes } = await loadReplayedSession(store, {
      sessionKey: flags.session,
      ...sources.agent.replayOptions,
    });
    if (!record.exists) {
      throw new ContextError({
        code: 'NOT_FOUND',
        message: `No session ${JSON.stringify(flags.session)} in the ${store.id} store; 'ctxloom session list' shows the stored ones.`,
      });
    }
    return {
      history,
      sessionKey: record.key,
      ...(summary === undefined ? {} : { summary }),
      ...(notes === undefined ? {} : { notes }),
      loadWarnings: record.warnings,
    };
  } finally {
    await store.close();
  }
}

function replayed(agent: AgentContext, record: SessionRecord): BuildTurn {
  const { history, input } = agent.replay(record);
  return {
    history,
    sessionKey: record.key,
    loadWarnings: lineageWarnings(record),
    ...(input?.summary === undefined ? {} : { summary: input.summary }),
    ...(input?.notes === undefined ? {} : { notes: input.notes }),
  };
}

async function loadHistory(flag: string | undefined, sources: Sources): Promise<readonly Message[]> {
  if (flag !== undefined) return readMessagesFile(path.resolve(sources.cwd, flag));
  const { historyFile } = sources.config;
  return historyFile === undefined ? [] : readMessagesFile(resolveInside(sources.workspace, historyFile));
}
