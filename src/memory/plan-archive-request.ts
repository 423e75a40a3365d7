import { user } from '../core/factories.js';
import type { Message } from '../core/message.js';
import type { ToolDefinition } from '../core/tool-definition.js';
import { getHistory } from '../sessions/get-history.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { renderArchiveInstruction } from './archive-instruction.js';

/** What {@link planArchiveRequest} and {@link pickArchiveChunkEnd} need. */
export type ArchiveRequestContext = {
  /** The whole session, oldest first. */
  readonly messages: readonly Message[];
  /** The first message not yet archived: the chunk starts here. */
  readonly start: number;
  /** The ordinary turn's system prompt. */
  readonly system: Message;
  readonly tools: readonly ToolDefinition[];
  /** The archive instruction template (`{count}`). */
  readonly instruction: string;
  /** `contextWindowTokens − maxOutputTokens − 1024`. */
  readonly budget: number;
  readonly counter: TokenCounter;
};

/** The request that archives `messages[start:end]`, or why one request cannot hold it. */
export type ArchiveRequestPlan =
  | { readonly kind: 'request'; readonly messages: readonly Message[]; readonly visibleCount: number }
  | { readonly kind: 'too-large'; readonly reason: string };

/**
 * nanobot's rules for what one archive request holds: the ordinary turn's replay prefix for
 * `messages[:end]` (token-capped at the budget) must end with the chunk's whole visible form, and the
 * request (system prompt, prefix, instruction, tool schemas) must fit the budget.
 */
export function planArchiveRequest(context: ArchiveRequestContext, end: number): ArchiveRequestPlan {
  const { messages, start, budget, counter } = context;
  const chunk = messages.slice(start, end);
  const prefix = getHistory(
    { messages: messages.slice(0, end), lastConsolidated: start },
    { maxTokens: budget, tokenCounter: counter },
  );
  const visible = getHistory({ messages: chunk, lastConsolidated: 0 });
  if (visible.length === 0) {
    return { kind: 'too-large', reason: `messages ${start}–${end} have nothing the replay can show` };
  }
  const tail = prefix.slice(prefix.length - visible.length);
  if (tail.length !== visible.length || tail.some((message, index) => message.id !== visible[index]?.id)) {
    return {
      kind: 'too-large',
      reason: `messages ${start}–${end} do not fit into one request (budget ${budget} tokens)`,
    };
  }
  const request = [
    context.system,
    ...prefix,
    user(renderArchiveInstruction(context.instruction, visible.length), { id: 'archive-instruction' }),
  ];
  const tokens = counter.countMessages(request) + counter.countTools(context.tools);
  if (tokens > budget) {
    return {
      kind: 'too-large',
      reason: `the request for messages ${start}–${end} needs ${tokens} tokens, over the budget of ${budget}`,
    };
  }
  return { kind: 'request', messages: request, visibleCount: visible.length };
}

/**
 * The end of the largest chunk from `start` that one archive request holds, at most `limit`: chunk
 * ends are user turns after `start` (so no tool transaction is split), plus `limit` itself when
 * `isTail` (the whole unarchived tail). Per-message estimates pick the candidate, which
 * {@link planArchiveRequest} confirms (else a binary search over the smaller candidates). When not even the first
 * turn fits, returns that turn's end with its `too-large` plan (nanobot then raw-archives it whole).
 * `undefined` when there is no candidate end.
 */
export function pickArchiveChunkEnd(
  context: ArchiveRequestContext,
  options: { readonly limit: number; readonly isTail: boolean },
): { readonly end: number; readonly plan: ArchiveRequestPlan } | undefined {
  const candidates = candidateEnds(context, options);
  const first = candidates[0];
  if (first === undefined) return undefined;
  const fixed =
    context.counter.countMessages([context.system, user(context.instruction)]) +
    context.counter.countTools(context.tools);
  const estimated = estimatedLastFitting(context, { candidates, room: context.budget - fixed });
  // The estimate is usually right: try it and the candidate before it, then search below.
  for (const index of [estimated, estimated - 1]) {
    const end = candidates[index];
    if (end === undefined) continue;
    const plan = planArchiveRequest(context, end);
    if (plan.kind === 'request') return { end, plan };
  }
  let low = 0;
  let high = estimated - 2;
  let best: { end: number; plan: ArchiveRequestPlan } | undefined;
  while (low <= high) {
    const middle = Math.floor((low + high) / 2);
    const end = candidates[middle] ?? first;
    const plan = planArchiveRequest(context, end);
    if (plan.kind === 'request') {
      best = { end, plan };
      low = middle + 1;
    } else high = middle - 1;
  }
  return best ?? { end: first, plan: planArchiveRequest(context, first) };
}

function candidateEnds(
  context: ArchiveRequestContext,
  options: { readonly limit: number; readonly isTail: boolean },
): number[] {
  const ends: number[] = [];
  const limit = Math.min(options.limit, context.messages.length);
  for (let index = context.start + 1; index < limit; index += 1) {
    if (context.messages[index]?.role === 'user') ends.push(index);
  }
  if (limit > context.start && (options.isTail || context.messages[limit]?.role === 'user')) ends.push(limit);
  return ends;
}

/** The index of the last candidate whose messages' estimated tokens fit `room`, plus one for slack. */
function estimatedLastFitting(
  context: ArchiveRequestContext,
  { candidates, room }: { readonly candidates: readonly number[]; readonly room: number },
): number {
  let sum = 0;
  let next = context.start;
  for (const [index, end] of candidates.entries()) {
    for (; next < end; next += 1) {
      const message = context.messages[next];
      if (message !== undefined) sum += context.counter.countMessage(message);
    }
    if (sum > room) return Math.min(index, candidates.length - 1);
  }
  return candidates.length - 1;
}
