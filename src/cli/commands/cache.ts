import { resolveAgentSettings } from '../../config/index.js';
import { createSequentialIdGenerator } from '../../core/index.js';
import {
  ContextBuilder,
  ContextError,
  JsonlSessionStore,
  loadConfig,
  type Message,
  simulatePromptCache,
} from '../../index.js';
import { agentOptionsFromSettings } from '../../presets/index.js';
import { readRecordedRequests } from '../../recorder/index.js';
import type { CliCommand } from '../cli-io.js';
import { didYouMean } from '../did-you-mean.js';
import { EXIT_CODES } from '../exit-codes.js';
import { parseIntegerFlag } from '../integer-flag.js';
import { parseCliArgs } from '../parse-cli-args.js';
import {
  type CacheCall,
  type CacheReport,
  type CallSource,
  providerRequests,
  recordedCalls,
  volatileAcross,
} from './cache-calls.js';
import { renderCacheReport } from './cache-report.js';
import { type OpenedRequestStore, openRequestStore } from './request-store-flags.js';
import { stringFlag, workspaceOf } from './session-store-flags.js';

const USAGE = `Usage: ctxloom cache --session KEY [--workspace DIR] [--from recorded|replay]
                     [--provider NAME] [--model NAME] [--context-window N] [--json]

Scores a session's model calls under the providers' prompt-cache rules: Anthropic (with breakpoints
planned as toAnthropicMessages does) and OpenAI (automatic prefix caching), with the calls' times for
cache lifetimes. Prints per request the input, cache reads and writes and the hit rate, then the
totals with the cost ratio against no cache, and any volatile content in the stable prefix.

The calls come from the request recorder's log of the session (<sessions>/requests/, see
docs/recorder.md) when it holds requests with their messages: exactly what was sent, when, and the
provider's reported usage beside the simulation. Otherwise the stored session is replayed: the
context of every model call (each assistant message) is built again from the workspace with the agent
preset. The report says which it used.

Options:
  --workspace DIR        the agent workspace (default: the current folder)
  --session KEY          the session (required)
  --from recorded|replay recorded: only the request log (fails without one); replay: rebuild from the
                         stored session (default: recorded when the log has the session, else replay)
  --provider NAME        anthropic | openai | both (default: both)
  --model NAME           the model (Anthropic minimum cacheable length; default claude-sonnet-4-5)
  --context-window N     replay only: the context window used to build each call (default: from
                         ctxloom.yaml, else 200000); rejected when the calls come from the log
  --json                 print the simulation as JSON
`;

const CACHE_FLAGS = {
  workspace: { type: 'string' },
  session: { type: 'string' },
  from: { type: 'string' },
  provider: { type: 'string' },
  model: { type: 'string' },
  'context-window': { type: 'string' },
  json: { type: 'boolean' },
} as const;

const SOURCES = ['recorded', 'replay'] as const;
const PROVIDERS = ['anthropic', 'openai', 'both'] as const;

/** `ctxloom cache`: the prompt-cache simulation of a recorded or replayed session. */
export const cacheCommand: CliCommand = {
  name: 'cache',
  summary:
    "Show a session's prompt-cache hit rate and cost (Anthropic and OpenAI rules), recorded or replayed",
  usage: USAGE,
  async run(args, io) {
    const { values } = parseCliArgs('cache', args, CACHE_FLAGS);
    const session = stringFlag(values, 'session');
    if (session === undefined) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: "ctxloom cache needs --session KEY (see 'ctxloom session list' for the stored sessions).",
      });
    }
    const from = oneOf('--from', stringFlag(values, 'from'), SOURCES);
    const provider = oneOf('--provider', stringFlag(values, 'provider'), PROVIDERS) ?? 'both';
    const contextWindow = parseWindow(stringFlag(values, 'context-window'));
    if (from === 'recorded' && contextWindow !== undefined) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message:
          '--context-window sets the window of replayed builds, but --from recorded reports the recorded requests as they were sent; drop --context-window, or use --from replay.',
      });
    }
    const workspace = workspaceOf(values, io);
    const model = stringFlag(values, 'model') ?? 'claude-sonnet-4-5';
    const opened = from === 'replay' ? undefined : await openRequestStore(values, io);
    try {
      const { calls, source } = await sessionCalls({
        session,
        from,
        opened,
        contextWindow,
        replay: () => replayCalls({ workspace, session, model, contextWindow }),
      });
      const requests = providerRequests(calls, model);
      const simulations = (provider === 'both' ? ['anthropic', 'openai'] : [provider]).map((name) =>
        name === 'anthropic'
          ? simulatePromptCache(requests.anthropic, { provider: 'anthropic', model })
          : simulatePromptCache(requests.openai, { provider: 'openai' }),
      );
      const result = { session, model, source, calls, simulations, volatile: volatileAcross(calls) };
      io.stdout.write(
        values['json'] === true
          ? `${JSON.stringify(jsonReport(result), null, 2)}\n`
          : renderCacheReport(result),
      );
      return EXIT_CODES.ok;
    } finally {
      await opened?.store.close();
    }
  },
};

/**
 * The recorded calls of the session when the log has any (or `--from recorded` asks for them), else
 * the replayed ones.
 * @throws ContextError `NOT_FOUND` for `--from recorded` without a usable recorded request;
 * `INVALID_OPTIONS` for `--context-window` (a replay flag) when the calls come from the log.
 */
async function sessionCalls(request: {
  readonly session: string;
  readonly from: (typeof SOURCES)[number] | undefined;
  readonly opened: OpenedRequestStore | undefined;
  /** `--context-window`, which only a replay uses. */
  readonly contextWindow: number | undefined;
  readonly replay: () => Promise<readonly CacheCall[]>;
}): Promise<{ readonly calls: readonly CacheCall[]; readonly source: CallSource }> {
  const { session, from, opened } = request;
  const recorded =
    opened === undefined ? [] : await readRecordedRequests(opened.store, { sessionKey: session });
  const calls = recordedCalls(recorded);
  const where = opened?.where ?? 'the request log';
  if (calls.length > 0) {
    if (request.contextWindow !== undefined) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `--context-window sets the window of replayed builds, but session ${JSON.stringify(session)} has ${calls.length} recorded requests in ${where}, reported as they were sent; drop --context-window, or add --from replay to rebuild the calls with that window.`,
      });
    }
    return {
      calls,
      source: {
        kind: 'recorded',
        log: where,
        requests: calls.length,
        skipped: recorded.length - calls.length,
      },
    };
  }
  if (from === 'recorded') {
    throw new ContextError({
      code: 'NOT_FOUND',
      message:
        recorded.length === 0
          ? `No request of session ${JSON.stringify(session)} is recorded in ${where}; record them with RequestRecorder (docs/recorder.md) or drop --from recorded to replay the stored session.`
          : `The ${recorded.length} recorded requests of session ${JSON.stringify(session)} in ${where} were logged without their messages (includeMessages: false); drop --from recorded to replay the stored session.`,
    });
  }
  return { calls: await request.replay(), source: { kind: 'replay' } };
}

/**
 * The model calls of a stored session, rebuilt: the agent preset's context for each assistant
 * message, plus the tool-loop messages of its turn before it.
 * @throws ContextError `INVALID_OPTIONS` when nothing is stored under the key.
 */
async function replayCalls(run: {
  readonly workspace: string;
  readonly session: string;
  readonly model: string;
  readonly contextWindow: number | undefined;
}): Promise<readonly CacheCall[]> {
  const { config } = await loadConfig({ dir: run.workspace, optional: true });
  const agent = resolveAgentSettings(config, run.workspace);
  const record = await new JsonlSessionStore({ dir: agent.sessionsDir }).load(run.session);
  if (!record.exists) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `No session ${JSON.stringify(run.session)} in ${agent.sessionsDir} and no request recorded for it; run 'ctxloom session list' to see the stored ones.`,
    });
  }
  const builder = ContextBuilder.forAgent({
    workspace: run.workspace,
    ...agentOptionsFromSettings(agent),
    channel: agent.channel ?? run.session.split(':')[0] ?? 'cli',
    contextWindowTokens: run.contextWindow ?? agent.contextWindowTokens ?? 200_000,
    governor: { offload: { dryRun: true } },
    generateId: createSequentialIdGenerator('cache'),
  });
  const messages = record.messages;
  const calls: CacheCall[] = [];
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'assistant') continue;
    const turn = messages.findLastIndex((candidate, at) => at < index && candidate.role === 'user');
    if (turn === -1) continue;
    const current = messages[turn] as Message;
    const built = await builder.build({
      history: messages.slice(0, turn),
      current: current.content,
      sessionKey: run.session,
    });
    const at = timeOf(message);
    calls.push({
      messages: [...built.messages, ...messages.slice(turn + 1, index)],
      ...(at === undefined ? {} : { at }),
    });
  }
  return calls;
}

function timeOf(message: Message): number | undefined {
  const stamp = message.metadata?.['timestamp'];
  const parsed = typeof stamp === 'string' ? Date.parse(stamp) : Number.NaN;
  return Number.isNaN(parsed) ? undefined : parsed;
}

/** What `--json` prints. */
function jsonReport(result: CacheReport): Readonly<Record<string, unknown>> {
  const reported = result.calls.map((call, index) => ({ index, ...call.reported }));
  return {
    session: result.session,
    model: result.model,
    source: result.source,
    simulations: result.simulations,
    ...(result.calls.some((call) => call.reported !== undefined)
      ? { reported: reported.filter((entry) => Object.keys(entry).length > 1) }
      : {}),
    volatile: result.volatile,
  };
}

/** The value when it is one of `allowed`; `undefined` when not given. */
function oneOf<TValue extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly TValue[],
): TValue | undefined {
  if (value === undefined) return undefined;
  const match = allowed.find((candidate) => candidate === value);
  if (match !== undefined) return match;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `${flag} must be ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}, got ${JSON.stringify(value)}.${didYouMean(value, allowed)}`,
  });
}

function parseWindow(value: string | undefined): number | undefined {
  return parseIntegerFlag('--context-window', { text: value, min: 1 });
}
