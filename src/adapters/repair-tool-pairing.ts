import type { OptionKeys } from '../core/check-options.js';
import { isBlankContent } from '../core/content.js';
import { ContextError } from '../core/errors.js';
import type { Message, ToolCall } from '../core/message.js';
import type { AdapterWarning } from './adapter-warning.js';

/** What the `to*` adapters do with a history that breaks tool-call pairing. */
export type ToolPairingPolicy = 'repair' | 'throw';

/** The `toolPairing` option of the `to*` adapters. */
export type ToolPairingOptions = {
  /**
   * What to do with a list that breaks tool-call pairing (an orphan result, an unanswered call, a call
   * without a name): `repair` it (named in the warnings) or `throw` `TOOL_CALL_INTEGRITY`.
   * @default 'repair'
   */
  readonly toolPairing?: ToolPairingPolicy;
};

/** The keys of {@link ToolPairingOptions}, for `checkOptions`. @internal */
export const TOOL_PAIRING_OPTION_KEYS = {
  toolPairing: true,
} as const satisfies OptionKeys<ToolPairingOptions>;

/** The text sent for a call that has no result. */
export const DEFAULT_MISSING_RESULT_TEXT = '[Tool result unavailable: the call was not answered]';

/** Options for {@link repairToolPairing}. */
export type RepairToolPairingOptions = {
  /** `repair` (drop or answer, with a warning) or `throw` a `TOOL_CALL_INTEGRITY` error. @default 'repair' */
  readonly policy?: ToolPairingPolicy;
  /** The result text for an unanswered call. @default DEFAULT_MISSING_RESULT_TEXT */
  readonly missingResultText?: string;
};

/** What {@link repairToolPairing} returns. */
export type RepairToolPairingResult = {
  /** The legal list (the input array itself when nothing needed repair). */
  readonly messages: readonly Message[];
  /** For each output message, the index of the input message it comes from. */
  readonly sourceIndexes: readonly number[];
  readonly warnings: readonly AdapterWarning[];
};

/**
 * Makes a message list legal for OpenAI and Anthropic before an adapter converts it: a tool call
 * without a name or id, or with an id declared earlier, is dropped with its results; a tool result
 * that answers no call of the assistant message directly before its run of tool messages (an orphan),
 * or answers one twice, is dropped; a call left unanswered gets a result. An assistant message left
 * with no calls and no text is dropped. Every repair is named in the warnings. O(n).
 * @throws ContextError `TOOL_CALL_INTEGRITY` with `policy: 'throw'`, naming every problem.
 */
export function repairToolPairing(
  messages: readonly Message[],
  options: RepairToolPairingOptions = {},
): RepairToolPairingResult {
  const run = new PairingRun(options.missingResultText ?? DEFAULT_MISSING_RESULT_TEXT);
  messages.forEach((message, index) => {
    run.add(message, index);
  });
  run.close();
  if (run.warnings.length === 0) {
    return { messages, sourceIndexes: messages.map((_, index) => index), warnings: [] };
  }
  if (options.policy === 'throw') {
    throw new ContextError({
      code: 'TOOL_CALL_INTEGRITY',
      message: `The messages break tool-call pairing, which the provider would reject: ${run.warnings
        .map((warning) => `message ${warning.index}: ${warning.message}`)
        .join('; ')}. Run the governor first, or pass toolPairing: 'repair'.`,
      details: { problems: run.warnings },
    });
  }
  return { messages: run.out, sourceIndexes: run.sourceIndexes, warnings: run.warnings };
}

type Open = { readonly message: Message; readonly index: number; readonly pending: Map<string, ToolCall> };

class PairingRun {
  readonly out: Message[] = [];
  readonly sourceIndexes: number[] = [];
  readonly warnings: AdapterWarning[] = [];
  readonly #declared = new Set<string>();
  readonly #dropped = new Set<string>();
  readonly #missingText: string;
  #open: Open | undefined;

  constructor(missingText: string) {
    this.#missingText = missingText;
  }

  add(message: Message, index: number): void {
    if (message.role === 'tool') {
      this.#result(message, index);
      return;
    }
    this.close();
    if (message.role === 'assistant' && message.toolCalls !== undefined) this.#assistant(message, index);
    else this.#push(message, index);
  }

  close(): void {
    const open = this.#open;
    if (open === undefined) return;
    this.#open = undefined;
    for (const call of open.pending.values()) {
      this.#push(
        {
          id: `${open.message.id}:missing-result:${call.id}`,
          role: 'tool',
          content: this.#missingText,
          toolCallId: call.id,
          name: call.name,
        },
        open.index,
      );
      this.#warn(open.index, `call ${call.id} (${call.name}) had no result; answered with a placeholder`);
    }
  }

  #assistant(message: Message, index: number): void {
    const calls = message.toolCalls ?? [];
    const kept = calls.filter((call) => this.#keep(call, index));
    if (kept.length === calls.length && kept.length > 0) {
      this.#push(message, index);
      this.#open = { message, index, pending: new Map(kept.map((call) => [call.id, call])) };
      return;
    }
    const { toolCalls: _toolCalls, ...rest } = message;
    const next: Message = kept.length === 0 ? rest : { ...message, toolCalls: kept };
    if (kept.length === 0 && isEmptyAssistant(next)) {
      this.#warn(
        index,
        calls.length === 0
          ? 'assistant message with an empty tool call list dropped'
          : 'assistant message left with no calls and no text dropped',
      );
      return;
    }
    if (calls.length === 0) this.#warn(index, 'empty tool call list removed');
    this.#push(next, index);
    if (kept.length > 0)
      this.#open = { message: next, index, pending: new Map(kept.map((call) => [call.id, call])) };
  }

  /** Whether a declared call can be sent; a call that cannot is named in the warnings. */
  #keep(call: ToolCall, index: number): boolean {
    const problem = callProblem(call, this.#declared);
    if (problem === undefined) {
      this.#declared.add(call.id);
      return true;
    }
    if (call.id !== '' && !this.#declared.has(call.id)) this.#dropped.add(call.id);
    this.#warn(index, `tool call ${JSON.stringify(call.id)} ${problem}; dropped with its result`);
    return false;
  }

  #result(message: Message, index: number): void {
    const id = message.toolCallId ?? '';
    if (this.#open?.pending.delete(id) === true) {
      this.#push(message, index);
      return;
    }
    if (this.#dropped.has(id)) return; // named with its call
    const why =
      id === ''
        ? 'has no tool call id'
        : this.#declared.has(id)
          ? `answers call ${id} again or away from its call`
          : `answers no call (${id})`;
    this.#warn(index, `tool result ${why}; dropped`);
  }

  #push(message: Message, index: number): void {
    this.out.push(message);
    this.sourceIndexes.push(index);
  }

  #warn(index: number, message: string): void {
    this.warnings.push({ type: 'repaired', index, message });
  }
}

function callProblem(call: ToolCall, declared: ReadonlySet<string>): string | undefined {
  if (call.name === '') return 'has no tool name';
  if (call.id === '') return 'has no id';
  return declared.has(call.id) ? 'reuses an id declared earlier' : undefined;
}

function isEmptyAssistant(message: Message): boolean {
  return isBlankContent(message.content) && (message.reasoning === undefined || message.reasoning === '');
}
