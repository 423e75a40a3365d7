import { checkOptions, type OptionKeys } from '../core/check-options.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { AnthropicCacheControl, AnthropicContentBlock } from './anthropic-types.js';
import {
  type AnthropicCacheableRequest,
  applyCacheMarkers,
  stripCacheMarkers,
} from './apply-cache-markers.js';
import { type PromptCacheBlock, prefixKeys, prefixTokens } from './prompt-cache-request.js';
import {
  ANTHROPIC_LOOKBACK_BLOCKS,
  ANTHROPIC_MAX_BREAKPOINTS,
  anthropicMinCacheableTokens,
} from './prompt-cache-rules.js';
import { anthropicPromptCacheRequest } from './to-prompt-cache-request.js';

export type { AnthropicCacheableRequest } from './apply-cache-markers.js';

/** Options for {@link planCacheBreakpoints}. */
export type PlanCacheBreakpointsOptions = {
  /** The Claude model (picks the minimum cacheable length). @default a 1,024-token minimum */
  readonly model?: string;
  /** The minimum cacheable prefix, overriding the model's. */
  readonly minTokens?: number;
  /** Lifetime of the stable anchors (tools, system); `1h` costs 2× to write. Conversation anchors use 5m. @default '5m' */
  readonly ttl?: '5m' | '1h';
  /** The plan of the previous request of the same conversation: its anchors on the shared prefix are kept. */
  readonly previous?: CacheBreakpointPlan;
  /** Markers already in the request: `keep` them (they count against the four) or `replace` them. @default 'keep' */
  readonly existing?: 'keep' | 'replace';
  /** Counts block tokens for the minimum length. @default an `EstimatingTokenCounter` */
  readonly tokenCounter?: TokenCounter;
};

/** The keys of {@link PlanCacheBreakpointsOptions}, for `checkOptions`. @internal */
export const PLAN_CACHE_BREAKPOINTS_OPTION_KEYS = {
  model: true,
  minTokens: true,
  ttl: true,
  previous: true,
  existing: true,
  tokenCounter: true,
} as const satisfies OptionKeys<PlanCacheBreakpointsOptions>;

/** Why a marker is where it is. */
export type CacheMarkerKind = 'tools' | 'system' | 'carried' | 'tail' | 'spaced';

/** One planned `cache_control` marker. */
export type PlannedCacheMarker = {
  readonly kind: CacheMarkerKind;
  /** The block's position in cache order (tools → system → message blocks). */
  readonly block: number;
  readonly area: PromptCacheBlock['area'];
  readonly index: number;
  readonly part: number;
  /** Tokens of the prefix the marker caches (the block included). */
  readonly prefixTokens: number;
  readonly ttl: '5m' | '1h';
  /** Fingerprint of the prefix, to find the same anchor in the next request. */
  readonly key: string;
};

/** What the planner decided, to pass as `previous` for the next request. */
export type CacheBreakpointPlan = {
  readonly markers: readonly PlannedCacheMarker[];
  /** Markers that were already in the request and kept. */
  readonly existingMarkers: number;
  readonly minTokens: number;
  /** What could not be planned as asked (the request already carries four markers or more). */
  readonly warnings: readonly string[];
};

/** The request with its markers, and the plan. */
export type PlannedCacheRequest = AnthropicCacheableRequest & { readonly plan: CacheBreakpointPlan };

/** Defaults of {@link PlanCacheBreakpointsOptions}. */
export const DEFAULT_PLAN_CACHE_BREAKPOINTS = Object.freeze({ ttl: '5m', existing: 'keep' } as const);

/**
 * Places Anthropic prompt-cache breakpoints on a request: the end of the conversation (the tail, so
 * the next request reads everything sent now), the anchors the previous request wrote (the
 * `previous` plan's anchor still on the shared prefix; without a plan, both places where the previous
 * request likely ended: the end of the user turn before the last assistant turn, where an agent loop's
 * previous step ended, and the end of the last message the user wrote before it, where a request built
 * once per user turn ended), the end of the system prompt and the end of the tool list, in that
 * priority; spare slots go to `spaced` markers walking back from the newest conversation marker at most
 * 20 blocks apart (Anthropic looks back 20 blocks from each breakpoint), so a previous request that
 * ended anywhere in that stretch is still read. At most four markers counting those already present,
 * never on a prefix shorter than the model's minimum cacheable length. The stable anchors take `ttl`
 * (1 h only there, and only when no 5 min marker precedes). A string system prompt becomes one text
 * block when marked. The input is not changed.
 * @example const planned = planCacheBreakpoints(toAnthropicMessages(messages, { tools }), { model: 'claude-sonnet-4-5' });
 */
export function planCacheBreakpoints(
  request: AnthropicCacheableRequest,
  options: PlanCacheBreakpointsOptions = {},
): PlannedCacheRequest {
  checkOptions(options, { where: 'planCacheBreakpoints options', known: PLAN_CACHE_BREAKPOINTS_OPTION_KEYS });
  const resolved = { ...DEFAULT_PLAN_CACHE_BREAKPOINTS, ...options };
  const base = resolved.existing === 'replace' ? stripCacheMarkers(request) : request;
  const described = anthropicPromptCacheRequest(base, {
    ...(resolved.tokenCounter === undefined ? {} : { tokenCounter: resolved.tokenCounter }),
  });
  const blocks = described.blocks;
  const totals = prefixTokens(described);
  const keys = prefixKeys(described);
  const minTokens = resolved.minTokens ?? anthropicMinCacheableTokens(resolved.model);
  const existing = blocks.flatMap((block, index) => (block.cacheControl === undefined ? [] : [index]));
  const warnings: string[] = [];
  if (existing.length >= ANTHROPIC_MAX_BREAKPOINTS) {
    warnings.push(
      `the request already carries ${existing.length} cache_control markers (the limit is ${ANTHROPIC_MAX_BREAKPOINTS}); none added. Pass existing: 'replace' to plan them anew.`,
    );
  }
  const budget = Math.max(0, ANTHROPIC_MAX_BREAKPOINTS - existing.length);
  const candidates = candidatesOf(base, { blocks, keys, previous: resolved.previous });
  const chosen: Candidate[] = [];
  const fits = (candidate: Candidate): boolean =>
    chosen.length < budget &&
    candidate.block >= 0 &&
    !existing.includes(candidate.block) &&
    !chosen.some((other) => other.block === candidate.block) &&
    (totals[candidate.block] ?? 0) >= minTokens;
  for (const candidate of candidates) if (fits(candidate)) chosen.push(candidate);
  for (const candidate of spacedCandidates(base, {
    blocks,
    taken: [...existing, ...chosen.map((c) => c.block)],
  })) {
    if (chosen.length >= budget || !fits(candidate)) break;
    chosen.push(candidate);
  }
  const firstShort = existing.find((index) => (blocks[index]?.cacheControl?.ttl ?? '5m') === '5m');
  const markers = chosen
    .sort((a, b) => a.block - b.block)
    .map((candidate): PlannedCacheMarker => {
      const block = blocks[candidate.block] as PromptCacheBlock;
      const stable = candidate.kind === 'tools' || candidate.kind === 'system';
      const longOk = firstShort === undefined || firstShort > candidate.block;
      return {
        kind: candidate.kind,
        block: candidate.block,
        area: block.area,
        index: block.index,
        part: block.part,
        prefixTokens: totals[candidate.block] ?? 0,
        ttl: stable && resolved.ttl === '1h' && longOk ? '1h' : '5m',
        key: keys[candidate.block] ?? '',
      };
    });
  const marked = applyCacheMarkers(
    base,
    markers.map((marker) => ({ ...marker, control: controlOf(marker.ttl) })),
  );
  return { ...marked, plan: { markers, existingMarkers: existing.length, minTokens, warnings } };
}

type Candidate = { readonly kind: CacheMarkerKind; readonly block: number };

function controlOf(ttl: '5m' | '1h'): AnthropicCacheControl {
  return ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

function candidatesOf(
  request: AnthropicCacheableRequest,
  run: {
    readonly blocks: readonly PromptCacheBlock[];
    readonly keys: readonly string[];
    readonly previous: CacheBreakpointPlan | undefined;
  },
): Candidate[] {
  const { blocks, keys } = run;
  const lastOf = (match: (block: PromptCacheBlock) => boolean): number =>
    blocks.findLastIndex((block) => match(block) && markable(request, block));
  const tail = lastOf((block) => block.area === 'messages');
  const carried = (run.previous?.markers ?? [])
    .filter(
      (marker) => marker.area === 'messages' && keys[marker.block] === marker.key && marker.block < tail,
    )
    .map((marker) => marker.block);
  const anchors: Candidate[] =
    carried.length > 0
      ? [{ kind: 'carried', block: Math.max(...carried) }]
      : [
          { kind: 'carried', block: previousStepEnd(request, blocks) },
          { kind: 'carried', block: previousUserTurnEnd(request, blocks) },
        ];
  return [
    { kind: 'tail', block: tail },
    ...anchors,
    { kind: 'system', block: lastOf((block) => block.area === 'system') },
    { kind: 'tools', block: lastOf((block) => block.area === 'tools') },
  ];
}

/**
 * Markers for the spare slots, walking back from the tail so that every conversation block within
 * reach is at most {@link ANTHROPIC_LOOKBACK_BLOCKS} blocks before a marker: wherever the previous
 * request ended in that stretch, one marker's lookback finds the entry it wrote. Newest first.
 */
function* spacedCandidates(
  request: AnthropicCacheableRequest,
  run: { readonly blocks: readonly PromptCacheBlock[]; readonly taken: readonly number[] },
): Generator<Candidate> {
  const { blocks } = run;
  const firstMessage = blocks.findIndex((block) => block.area === 'messages');
  const taken = [...run.taken];
  let cursor = Math.max(-1, ...taken.filter((block) => blocks[block]?.area === 'messages'));
  while (firstMessage !== -1 && cursor - ANTHROPIC_LOOKBACK_BLOCKS >= firstMessage) {
    const reach = cursor - ANTHROPIC_LOOKBACK_BLOCKS;
    const marked = taken.filter((block) => block >= reach && block < cursor);
    if (marked.length > 0) {
      cursor = Math.min(...marked);
      continue;
    }
    let block = reach;
    while (block < cursor && !markable(request, blocks[block] as PromptCacheBlock)) block += 1;
    if (block >= cursor) return;
    yield { kind: 'spaced', block };
    taken.push(block);
    cursor = block;
  }
}

/** The last block of the user turn before the last assistant turn: where the previous loop request ended. */
function previousStepEnd(request: AnthropicCacheableRequest, blocks: readonly PromptCacheBlock[]): number {
  const lastAssistant = request.messages.findLastIndex((message) => message.role === 'assistant');
  if (lastAssistant <= 0) return -1;
  const userTurn = request.messages.findLastIndex(
    (message, index) => index < lastAssistant && message.role === 'user',
  );
  return lastBlockOf(request, { blocks, message: userTurn });
}

/**
 * The last block of the newest user message written by the user (not only tool results) before the
 * tool loop and answer that follow it: where the previous request ended when requests are built once
 * per user turn.
 */
function previousUserTurnEnd(
  request: AnthropicCacheableRequest,
  blocks: readonly PromptCacheBlock[],
): number {
  const lastAssistant = request.messages.findLastIndex((message) => message.role === 'assistant');
  if (lastAssistant <= 0) return -1;
  const userTurn = request.messages.findLastIndex(
    (message, index) =>
      index < lastAssistant &&
      message.role === 'user' &&
      (typeof message.content === 'string' || message.content.some((block) => block.type !== 'tool_result')),
  );
  return lastBlockOf(request, { blocks, message: userTurn });
}

function lastBlockOf(
  request: AnthropicCacheableRequest,
  run: { readonly blocks: readonly PromptCacheBlock[]; readonly message: number },
): number {
  if (run.message < 0) return -1;
  return run.blocks.findLastIndex(
    (block) => block.area === 'messages' && block.index === run.message && markable(request, block),
  );
}

function markable(request: AnthropicCacheableRequest, block: PromptCacheBlock): boolean {
  if (block.area !== 'messages') return true;
  const content = request.messages[block.index]?.content;
  if (typeof content === 'string') return content !== '';
  const entry: AnthropicContentBlock | undefined = content?.[block.part];
  if (entry === undefined || entry.type === 'thinking' || entry.type === 'redacted_thinking') return false;
  return entry.type !== 'text' || entry.text !== '';
}
