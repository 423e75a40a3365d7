import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import { withGovernorRunState } from '../filters/governor-run-state.js';
import type { BuildInput } from '../pipeline/build-input.js';
import { ContextBuilder } from '../presets/context-builder.js';
import type { AgentPresetOptions } from '../presets/for-agent.js';
import type { EvalStrategy } from './eval-strategy.js';

/** Options for {@link agentPresetStrategy}. */
export type AgentPresetStrategyOptions = {
  /** The agent workspace (SOUL.md, USER.md, memory/, skills/); only read (offloads are dry runs). */
  readonly workspace: string;
  /** A folder the strategy may write to: each run gets a project folder whose AGENTS.md holds the system prompt. */
  readonly scratchDir: string;
  /** More `forAgent` options, e.g. `agentOptionsFromSettings(...)` from a `ctxloom.yaml`. @default {} */
  readonly agent?: Omit<AgentPresetOptions, 'workspace' | 'projectWorkspace' | 'tokenCounter'>;
  /** @default 'ctxloom-for-agent' */
  readonly id?: string;
  /** @default 'ctxloom forAgent (governor)' */
  readonly label?: string;
  /** Whether this is a default configuration the invariants apply to. @default true */
  readonly isDefault?: boolean;
};

const AGENT_PRESET_STRATEGY_OPTION_KEYS = {
  workspace: true,
  scratchDir: true,
  agent: true,
  id: true,
  label: true,
  isDefault: true,
} as const satisfies OptionKeys<AgentPresetStrategyOptions>;

const OUTPUT_RESERVE_TOKENS = 8_192;

/**
 * `ContextBuilder.forAgent` (nanobot's whole behaviour: identity, bootstrap files, governor) with the
 * run's budget as the governor's `blockLimit`. The run's system prompt (persona and system rules) is
 * the project's AGENTS.md; each later step of a tool loop runs the governor over the turn's request
 * plus the in-flight messages, with one compaction set per turn.
 */
export function agentPresetStrategy(options: AgentPresetStrategyOptions): EvalStrategy {
  checkOptions(options, { where: 'agentPresetStrategy options', known: AGENT_PRESET_STRATEGY_OPTION_KEYS });
  let runs = 0;
  return {
    specificationVersion: 'v1',
    id: options.id ?? 'ctxloom-for-agent',
    label: options.label ?? 'ctxloom forAgent (governor)',
    usesSummariser: false,
    isDefault: options.isDefault ?? true,
    anthropicCache: 'planned',
    async start(setup) {
      runs += 1;
      const project = path.join(options.scratchDir, `${options.id ?? 'ctxloom-for-agent'}-${runs}`);
      await mkdir(project, { recursive: true });
      await writeFile(path.join(project, 'AGENTS.md'), `${setup.systemPrompt}\n`);
      const builder = ContextBuilder.forAgent({
        channel: 'cli',
        platform: { os: 'linux', arch: 'x64', nodeVersion: '20' },
        ...options.agent,
        workspace: options.workspace,
        projectWorkspace: project,
        contextWindowTokens: setup.budgetTokens + OUTPUT_RESERVE_TOKENS + 1_024,
        maxOutputTokens: OUTPUT_RESERVE_TOKENS,
        tokenCounter: setup.tokenCounter,
        governor: {
          ...options.agent?.governor,
          blockLimit: setup.budgetTokens,
          offload: { ...options.agent?.governor?.offload, dryRun: true },
        },
        generateId: createSequentialIdGenerator('eval'),
      });
      let turnStart: readonly Message[] = [];
      let compacted = new Set<string>();
      return {
        async messagesFor(call) {
          const input: BuildInput = {
            history: call.history,
            current: call.user.content,
            tools: setup.tools,
            sessionKey: `eval:${setup.scenario.id}`,
            ...(setup.signal === undefined ? {} : { signal: setup.signal }),
          };
          if (call.step === 0) {
            compacted = new Set();
            turnStart = (await builder.build(input)).messages;
            return turnStart;
          }
          const result = await builder.transform(
            [...turnStart, ...call.inflight],
            withGovernorRunState(input, {
              inflightStartIndex: turnStart.length,
              inflightMessageIds: new Set(call.inflight.map((message) => message.id)),
              compactedToolCallIds: compacted,
            }),
          );
          return result.messages;
        },
      };
    },
  };
}
