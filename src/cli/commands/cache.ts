import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  anthropicPromptCacheRequest,
  type CacheBreakpointPlan,
  openAIPromptCacheRequest,
  type PromptCacheRequest,
  type PromptCacheSimulation,
  type VolatileContent,
} from '../../cache/index.js';
import { resolveAgentSettings } from '../../config/index.js';
import { createSequentialIdGenerator } from '../../core/index.js';
import {
  ContextBuilder,
  ContextError,
  findVolatileContent,
  JsonlSessionStore,
  loadConfig,
  type Message,
  simulatePromptCache,
  toAnthropicMessages,
  toOpenAIChatMessages,
} from '../../index.js';
import { agentOptionsFromSettings } from '../../presets/index.js';
import type { CliCommand } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';

const USAGE = `Usage: ctxloom cache --session KEY [--workspace DIR] [--provider NAME] [--model NAME]
                     [--context-window N] [--json]

Replays a stored session call by call: the context of every model call (each assistant message) is
built again from the workspace with the agent preset, converted to the provider's request (Anthropic
with planned cache breakpoints, OpenAI as it is) and scored under the provider's prompt-cache rules,
using the messages' timestamps for cache lifetimes. Prints per request the input, cache reads and
writes and the hit rate, then the totals with the cost ratio against no cache, and any volatile
content found in the stable prefix between builds.

Options:
  --workspace DIR        the agent workspace (default: the current folder)
  --session KEY          the stored session to replay (required)
  --provider NAME        anthropic | openai | both (default: both)
  --model NAME           the model (Anthropic minimum cacheable length; default claude-sonnet-4-5)
  --context-window N     the context window used to build each call (default: from ctxloom.yaml, else 200000)
  --json                 print the simulation as JSON
`;

/** `ctxloom cache`: replays a session and prints its prompt-cache simulation. */
export const cacheCommand: CliCommand = {
  name: 'cache',
  summary: 'Replay a session and show its prompt-cache hit rate and cost (Anthropic and OpenAI rules)',
  usage: USAGE,
  async run(args, io) {
    const flags = parseCacheArgs(args);
    if (flags.session === undefined) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: "ctxloom cache needs --session KEY (see 'ctxloom session list' for the stored sessions).",
      });
    }
    const provider = flags.provider ?? 'both';
    if (!['anthropic', 'openai', 'both'].includes(provider)) {
      throw new ContextError({
        code: 'INVALID_OPTIONS',
        message: `--provider must be anthropic, openai or both, got ${JSON.stringify(provider)}.`,
      });
    }
    const workspace = path.resolve(io.cwd, flags.workspace ?? '.');
    const model = flags.model ?? 'claude-sonnet-4-5';
    const replay = await replayCalls({
      workspace,
      session: flags.session,
      model,
      contextWindow: flags['context-window'],
    });
    const simulations = (provider === 'both' ? ['anthropic', 'openai'] : [provider]).map((name) =>
      name === 'anthropic'
        ? simulatePromptCache(replay.anthropic, { provider: 'anthropic', model })
        : simulatePromptCache(replay.openai, { provider: 'openai' }),
    );
    if (flags.json) {
      io.stdout.write(
        `${JSON.stringify({ session: flags.session, model, simulations, volatile: replay.volatile }, null, 2)}\n`,
      );
    } else {
      io.stdout.write(renderText(flags.session, { simulations, volatile: replay.volatile }));
    }
    return EXIT_CODES.ok;
  },
};

type Replay = {
  readonly anthropic: readonly PromptCacheRequest[];
  readonly openai: readonly PromptCacheRequest[];
  readonly volatile: readonly VolatileContent[];
};

async function replayCalls(run: {
  readonly workspace: string;
  readonly session: string;
  readonly model: string;
  readonly contextWindow: string | undefined;
}): Promise<Replay> {
  const { config } = await loadConfig({ dir: run.workspace, optional: true });
  const agent = resolveAgentSettings(config, run.workspace);
  const record = await new JsonlSessionStore({ dir: agent.sessionsDir }).load(run.session);
  if (!record.exists) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `No session ${JSON.stringify(run.session)} in ${agent.sessionsDir}; run 'ctxloom session list' to see the stored ones.`,
    });
  }
  const builder = ContextBuilder.forAgent({
    workspace: run.workspace,
    ...agentOptionsFromSettings(agent),
    channel: agent.channel ?? run.session.split(':')[0] ?? 'cli',
    contextWindowTokens: parseWindow(run.contextWindow) ?? agent.contextWindowTokens ?? 200_000,
    governor: { offload: { dryRun: true } },
    generateId: createSequentialIdGenerator('cache'),
  });
  const messages = record.messages;
  const anthropic: PromptCacheRequest[] = [];
  const openai: PromptCacheRequest[] = [];
  const builds: (readonly Message[])[] = [];
  let previous: CacheBreakpointPlan | undefined;
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
    const sent = [...built.messages, ...messages.slice(turn + 1, index)];
    builds.push(sent);
    const at = timeOf(message);
    const request = toAnthropicMessages(sent, {
      cache: { model: run.model, ...(previous === undefined ? {} : { previous }) },
    });
    previous = request.cachePlan;
    anthropic.push(
      anthropicPromptCacheRequest(request, { model: run.model, ...(at === undefined ? {} : { at }) }),
    );
    openai.push(openAIPromptCacheRequest(toOpenAIChatMessages(sent), at === undefined ? {} : { at }));
  }
  const first = builds[0];
  const volatile =
    first === undefined
      ? []
      : builds
          .slice(1)
          .flatMap((build) => findVolatileContent(build, { compareWith: [{ messages: first }] }));
  return { anthropic, openai, volatile: dedupe(volatile) };
}

function timeOf(message: Message): number | undefined {
  const stamp = message.metadata?.['timestamp'];
  const parsed = typeof stamp === 'string' ? Date.parse(stamp) : Number.NaN;
  return Number.isNaN(parsed) ? undefined : parsed;
}

function dedupe(findings: readonly VolatileContent[]): readonly VolatileContent[] {
  const seen = new Set<string>();
  return findings.filter((finding) => {
    const key = `${finding.area}:${finding.index}:${finding.kind}:${finding.offset}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function renderText(
  session: string,
  result: {
    readonly simulations: readonly PromptCacheSimulation[];
    readonly volatile: readonly VolatileContent[];
  },
): string {
  const lines = [
    `Prompt cache of session ${session} (${result.simulations[0]?.requests.length ?? 0} model calls replayed)`,
  ];
  for (const simulation of result.simulations) {
    lines.push('', `${simulation.provider}:`, '   #     input      read     write   hit');
    for (const request of simulation.requests) {
      const problems = request.problems.length === 0 ? '' : `  refused: ${request.problems.join('; ')}`;
      lines.push(
        `${pad(request.index + 1, 4)} ${pad(request.inputTokens, 9)} ${pad(request.cacheReadTokens, 9)} ${pad(request.cacheWriteTokens, 9)} ${pad(percent(request.hitRate), 5)}${problems}`,
      );
    }
    const { totals } = simulation;
    lines.push(
      `total ${pad(totals.inputTokens, 8)} ${pad(totals.cacheReadTokens, 9)} ${pad(totals.cacheWriteTokens, 9)} ${pad(percent(totals.hitRate), 5)}`,
      `steady-state hit rate ${percent(totals.steadyStateHitRate)}, input cost ${percent(totals.costRatio)} of no cache (${totals.illegalRequests} refused)`,
    );
  }
  lines.push(
    '',
    result.volatile.length === 0 ? 'No volatile content in the stable prefix.' : 'Volatile content:',
  );
  for (const finding of result.volatile) lines.push(`  - ${finding.message}`);
  return `${lines.join('\n')}\n`;
}

function pad(value: number | string, width: number): string {
  return String(value).padStart(width);
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

function parseWindow(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value.replaceAll('_', ''));
  if (Number.isInteger(parsed) && parsed > 0) return parsed;
  throw new ContextError({
    code: 'INVALID_OPTIONS',
    message: `--context-window must be a whole number of tokens, got ${JSON.stringify(value)}; e.g. --context-window 200000.`,
  });
}

function parseCacheArgs(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      options: {
        workspace: { type: 'string' },
        session: { type: 'string' },
        provider: { type: 'string' },
        model: { type: 'string' },
        'context-window': { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    }).values;
  } catch (error) {
    throw new ContextError({
      code: 'INVALID_OPTIONS',
      message: `${error instanceof Error ? error.message : String(error)} Run 'ctxloom cache --help' for the options.`,
      cause: error,
    });
  }
}
