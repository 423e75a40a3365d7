import { isBlankContent } from '../core/content.js';
import type { Decision } from '../core/decision.js';
import type { Message } from '../core/message.js';
import type { TraceWarning } from './build-trace.js';

/** The `check` of the warnings {@link findContextLoss} reports (the pipeline runs it on every request). */
export const CONTEXT_LOSS_CHECK = 'context-loss';

/**
 * A request that lost what the model needs most, whatever stage caused it: `history-dropped` when
 * none of the history it was given is sent (the model sees nothing of the conversation before the
 * newest turn), `newest-turn-dropped` when the newest user message is dropped or left empty.
 */
export type ContextLossWarning = TraceWarning & {
  readonly type: 'history-dropped' | 'newest-turn-dropped';
  readonly check: typeof CONTEXT_LOSS_CHECK;
  readonly details: {
    /** `history-dropped`: how many history messages there were (none of them is sent). */
    readonly historyMessages?: number;
    /** `newest-turn-dropped`: the newest user message and what happened to it. */
    readonly messageId?: string;
    readonly outcome?: 'dropped' | 'emptied';
    /** The stages whose decisions name the lost messages, with how many each named. */
    readonly stages: Readonly<Record<string, number>>;
  };
};

/** True for the warnings of {@link findContextLoss}. */
export function isContextLossWarning(warning: TraceWarning): warning is ContextLossWarning {
  return warning.check === CONTEXT_LOSS_CHECK;
}

/** What {@link findContextLoss} looks at. @internal */
export type ContextLossRun = {
  /** The list the filters were given. */
  readonly before: readonly Message[];
  /** The list they returned (what is sent). */
  readonly after: readonly Message[];
  /** The history the build was given (`BuildInput.history`); for `transform`, `before`. */
  readonly history: readonly Message[];
  /** The filter stages' decisions, in order. */
  readonly stages: readonly { readonly id: string; readonly decisions: readonly Decision[] }[];
};

/**
 * The {@link ContextLossWarning}s of one request. The history is the given one without system messages
 * and without the newest turn (from the newest user message on, when it is part of it). A message
 * counts as sent when the sent list holds it (by id) or a message merged from it. Cheap when nothing
 * is lost: it stops at the first history message sent, looked for from the newest. @internal
 */
export function findContextLoss(run: ContextLossRun): readonly ContextLossWarning[] {
  const newest = lastUserMessage(run.before);
  const sent = new SentIds(run);
  const warnings: ContextLossWarning[] = [];
  const end = newest === undefined ? run.history.length : historyEnd(run.history, newest.id);
  const lost = lostHistory(run.history, { end, sent });
  if (lost !== undefined) warnings.push(historyDropped(lost, run.stages));
  if (newest !== undefined && !isBlankContent(newest.content)) {
    const kept = sent.find(newest.id);
    if (kept === undefined || isBlankContent(kept.content))
      warnings.push(
        newestTurnDropped(newest.id, { outcome: kept === undefined ? 'dropped' : 'emptied', run }),
      );
  }
  return warnings;
}

/** The ids of the sent messages, of the messages merged into them, and of every merge decision. */
class SentIds {
  readonly #run: ContextLossRun;
  #ids: Map<string, Message> | undefined;

  constructor(run: ContextLossRun) {
    this.#run = run;
  }

  /** The sent message that is `id` or holds it, else `undefined`. */
  find(id: string): Message | undefined {
    // The newest history messages sit near the end of the sent list: look there before indexing it.
    const { after } = this.#run;
    for (let index = after.length - 1; index >= Math.max(0, after.length - 8); index -= 1) {
      const message = after[index] as Message; // index is in range
      if (message.id === id || message.metadata?.['mergedFrom'] === id) return message;
    }
    this.#ids ??= this.#index();
    return this.#ids.get(id);
  }

  #index(): Map<string, Message> {
    const ids = new Map<string, Message>();
    for (const message of this.#run.after) {
      ids.set(message.id, message);
      const from = message.metadata?.['mergedFrom'];
      if (typeof from === 'string') ids.set(from, message);
    }
    for (const stage of this.#run.stages)
      for (const entry of stage.decisions)
        if (entry.type === 'message-merge') indexMerge(ids, entry.messageIds);
    return ids;
  }
}

/** Every message of a merge maps to what the merge became, when that is sent. */
function indexMerge(ids: Map<string, Message>, merged: readonly string[]): void {
  const into = merged.map((id) => ids.get(id)).find((found) => found !== undefined);
  if (into !== undefined) for (const id of merged) ids.set(id, into);
}

/** The history messages before `end`, when there are some and none of them is sent. */
function lostHistory(
  history: readonly Message[],
  where: { readonly end: number; readonly sent: SentIds },
): readonly Message[] | undefined {
  const lost: Message[] = [];
  for (let index = where.end - 1; index >= 0; index -= 1) {
    const message = history[index] as Message; // index is in range
    if (message.role === 'system') continue;
    if (where.sent.find(message.id) !== undefined) return undefined;
    lost.push(message);
  }
  return lost.length === 0 ? undefined : lost.reverse();
}

function lastUserMessage(messages: readonly Message[]): Message | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1)
    if (messages[index]?.role === 'user') return messages[index];
  return undefined;
}

/**
 * Where the history ends: at the newest user message when the history holds it (then it is the
 * history's last user message), else its length (the newest turn is the build's current message).
 */
function historyEnd(history: readonly Message[], newestId: string): number {
  for (let index = history.length - 1; index >= 0; index -= 1)
    if (history[index]?.role === 'user') return history[index]?.id === newestId ? index : history.length;
  return history.length;
}

function historyDropped(lost: readonly Message[], stages: ContextLossRun['stages']): ContextLossWarning {
  const named = stagesNaming(new Set(lost.map((message) => message.id)), stages);
  const by = Object.entries(named).map(([stage, count]) => `${stage} dropped ${count}`);
  const leftOut = lost.length - Object.values(named).reduce((sum, count) => sum + count, 0);
  if (leftOut > 0) by.push(`${leftOut} never reached the filters (a history window left them out)`);
  return {
    type: 'history-dropped',
    check: CONTEXT_LOSS_CHECK,
    message:
      `None of the ${lost.length} history messages is sent (${by.join(', ')}): the model sees nothing of ` +
      'the conversation before the newest turn. Usually the newest turn alone nearly fills the budget (a ' +
      'large tool result, e.g. a read_file result, which is exempt from offload unless ' +
      'governor.offloadExemptTools leaves it out); see the decisions, then raise the context window or ' +
      'shorten that turn.',
    details: { historyMessages: lost.length, stages: named },
  };
}

function newestTurnDropped(
  messageId: string,
  loss: { readonly outcome: 'dropped' | 'emptied'; readonly run: ContextLossRun },
): ContextLossWarning {
  const named = stagesNaming(new Set([messageId]), loss.run.stages);
  const stages = Object.keys(named);
  return {
    type: 'newest-turn-dropped',
    check: CONTEXT_LOSS_CHECK,
    message:
      `The newest user message (${messageId}) was ${loss.outcome}` +
      `${stages.length === 0 ? '' : ` by ${stages.join(', ')}`}: the model does not see the question it ` +
      'is asked to answer. Check the filters that drop or rewrite messages (a message cap, a budget), or ' +
      'raise the budget.',
    details: { messageId, outcome: loss.outcome, stages: named },
  };
}

/** For each stage, how many of `ids` its decisions name (stages naming none are left out). */
function stagesNaming(ids: ReadonlySet<string>, stages: ContextLossRun['stages']): Record<string, number> {
  const named: Record<string, number> = {};
  for (const stage of stages) {
    const count = stage.decisions.reduce(
      (sum, entry) =>
        entry.type === 'message-merge' ? sum : sum + entry.messageIds.filter((id) => ids.has(id)).length,
      0,
    );
    if (count > 0) named[stage.id] = (named[stage.id] ?? 0) + count;
  }
  return named;
}
