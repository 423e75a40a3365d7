import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { type Decision, decision } from '../core/decision.js';
import type { Message, ToolCall } from '../core/message.js';
import type { ContextFilter, FilterResult } from '../pipeline/contracts.js';
import { UnchangedListMemo } from './unchanged-list-memo.js';

/** Options for {@link StripMalformedToolCallsFilter}. */
export type StripMalformedToolCallsFilterOptions = {
  /** The stage id. @default 'strip-malformed-tool-calls' */
  readonly id?: string;
};

/** The keys of {@link StripMalformedToolCallsFilterOptions}, for `checkOptions`. @internal */
export const STRIP_MALFORMED_TOOL_CALLS_FILTER_OPTION_KEYS = {
  id: true,
} as const satisfies OptionKeys<StripMalformedToolCallsFilterOptions>;

/** True when a tool call can be sent: its name is a non-empty string (nanobot's rule). */
export function isValidToolCallName(call: ToolCall): boolean {
  return typeof call.name === 'string' && call.name !== '';
}

/**
 * Governor step 2: keeps only valid tool calls. A call is valid when its name is a non-empty string
 * (relays that return `name: null` arrive as `''`) and, beyond nanobot, when it has a non-empty id
 * (a call without an id can never be paired with its result). An assistant left without valid calls
 * loses its `toolCalls` (an empty list included) and is dropped when its content is also empty (`''`
 * or `[]`); its results become orphans for step 3.
 *
 * Beyond nanobot: a call whose id was already declared by an earlier call is renamed
 * (`<id>~2`, `<id>~3`, …) together with the matching result (in order) in its own run of tool messages, because
 * strict providers reject duplicate ids and dropping it would lose a real result.
 *
 * A list derived from the last one it returned unchanged is checked only in the messages that
 * changed: their calls, and their ids against the ids the list declares (kept up to date).
 */
export class StripMalformedToolCallsFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly #memo = new UnchangedListMemo();
  /** The call ids declared in the last list returned unchanged (each once: none needed a rename). */
  #declared = new Set<string>();

  constructor(options: StripMalformedToolCallsFilterOptions = {}) {
    checkOptions(options, {
      where: 'new StripMalformedToolCallsFilter options',
      known: STRIP_MALFORMED_TOOL_CALLS_FILTER_OPTION_KEYS,
    });
    this.id = options.id ?? 'strip-malformed-tool-calls';
  }

  apply(messages: readonly Message[]): FilterResult {
    const unchanged = this.#stillUnchanged(messages) || this.#isUnchanged(messages);
    this.#memo.remember(messages, unchanged);
    if (unchanged) return { messages, decisions: [] };
    return this.#repair(messages);
  }

  /** Whether `messages`, derived from the last list returned unchanged, needs no repair either. */
  #stillUnchanged(messages: readonly Message[]): boolean {
    const changes = this.#memo.changesSince(messages);
    if (changes === undefined) return false;
    const declared = this.#declared;
    for (const message of changes.removed)
      for (const call of message.toolCalls ?? []) declared.delete(call.id);
    return !changes.added.some(needsRepair(declared));
  }

  /** Whether `messages` needs no repair, checked in full (and the ids it declares, kept). */
  #isUnchanged(messages: readonly Message[]): boolean {
    this.#declared = new Set();
    return !messages.some(needsRepair(this.#declared));
  }

  #repair(messages: readonly Message[]): FilterResult {
    const decisions: Decision[] = [];
    const declared = new Set<string>();
    const allIds = new Set(messages.flatMap((message) => (message.toolCalls ?? []).map((call) => call.id)));
    let renames = new Map<string, string[]>();
    const out: Message[] = [];
    for (const message of messages) {
      if (message.role === 'tool') {
        out.push(this.#renameResult(message, { renames, decisions }));
        continue;
      }
      renames = new Map();
      if (message.role !== 'assistant' || message.toolCalls === undefined) {
        out.push(message);
        continue;
      }
      const repaired = this.#repairCalls(message, { declared, allIds, renames, decisions });
      if (repaired !== undefined) out.push(repaired);
    }
    return { messages: out, decisions };
  }

  #renameResult(
    message: Message,
    { renames, decisions }: { readonly renames: Map<string, string[]>; readonly decisions: Decision[] },
  ): Message {
    const queue = message.toolCallId === undefined ? undefined : renames.get(message.toolCallId);
    const renamed = queue?.shift();
    if (renamed === undefined || message.toolCallId === undefined || renamed === message.toolCallId) {
      return message;
    }
    decisions.push(
      decision('tool-call-repair', {
        stage: this.id,
        reason: `result renamed from duplicate id ${message.toolCallId} to ${renamed}`,
        messageIds: [message.id],
        details: { toolCallId: message.toolCallId, newToolCallId: renamed },
      }),
    );
    return { ...message, toolCallId: renamed };
  }

  #repairCalls(
    message: Message,
    run: {
      readonly declared: Set<string>;
      readonly allIds: Set<string>;
      readonly renames: Map<string, string[]>;
      readonly decisions: Decision[];
    },
  ): Message | undefined {
    const kept: ToolCall[] = [];
    const finalIds = new Map<string, string[]>();
    let changed = false;
    for (const call of message.toolCalls ?? []) {
      const problem = callProblem(call);
      if (problem !== undefined) {
        changed = true;
        run.decisions.push(
          decision('tool-call-repair', {
            stage: this.id,
            reason: `removed malformed call: ${problem}`,
            messageIds: [message.id],
            details: { toolCallId: call.id, name: call.name },
          }),
        );
        continue;
      }
      if (run.declared.has(call.id)) {
        const fresh = uniqueId(call.id, run.allIds);
        finalIds.set(call.id, [...(finalIds.get(call.id) ?? []), fresh]);
        changed = true;
        run.decisions.push(
          decision('tool-call-repair', {
            stage: this.id,
            reason: `call id ${call.id} was already declared; renamed to ${fresh}`,
            messageIds: [message.id],
            details: { toolCallId: call.id, newToolCallId: fresh },
          }),
        );
        kept.push({ ...call, id: fresh });
        run.declared.add(fresh);
        continue;
      }
      run.declared.add(call.id);
      finalIds.set(call.id, [...(finalIds.get(call.id) ?? []), call.id]);
      kept.push(call);
    }
    for (const [original, ids] of finalIds) {
      if (ids.some((id) => id !== original)) run.renames.set(original, ids);
    }
    if (!changed && kept.length > 0) return message;
    if (kept.length > 0) return { ...message, toolCalls: kept };
    return this.#withoutCalls(message, run.decisions);
  }

  /** An assistant message none of whose calls were kept: dropped when it says nothing either. */
  #withoutCalls(message: Message, decisions: Decision[]): Message | undefined {
    const { toolCalls: _dropped, ...rest } = message;
    const isEmpty = message.content === '' || message.content.length === 0;
    if (isEmpty) {
      decisions.push(
        decision('message-drop', {
          stage: this.id,
          reason: 'assistant message had only malformed tool calls and no content',
          messageIds: [message.id],
        }),
      );
      return undefined;
    }
    if ((message.toolCalls ?? []).length === 0) {
      decisions.push(
        decision('tool-call-repair', {
          stage: this.id,
          reason: 'removed an empty toolCalls list',
          messageIds: [message.id],
        }),
      );
    }
    return rest;
  }
}

function callProblem(call: ToolCall): string | undefined {
  if (!isValidToolCallName(call)) return `tool call ${JSON.stringify(call.id)} has no name`;
  if (typeof call.id !== 'string' || call.id === '') return `tool call ${call.name} has no id`;
  return undefined;
}

function needsRepair(declared: Set<string>): (message: Message) => boolean {
  return (message) => {
    if (message.role !== 'assistant' || message.toolCalls === undefined) return false;
    if (message.toolCalls.length === 0) return true;
    for (const call of message.toolCalls) {
      if (!isValidToolCallName(call) || typeof call.id !== 'string' || call.id === '') return true;
      if (declared.has(call.id)) return true;
      declared.add(call.id);
    }
    return false;
  };
}

function uniqueId(id: string, taken: Set<string>): string {
  let suffix = 2;
  while (taken.has(`${id}~${suffix}`)) suffix += 1;
  const fresh = `${id}~${suffix}`;
  taken.add(fresh);
  return fresh;
}
