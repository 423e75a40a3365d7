import type { Message } from './message.js';

/**
 * One way a message list breaks tool-call integrity, discriminated on `type`:
 * - `orphan-result`: a tool result whose id no directly preceding assistant declared;
 * - `duplicate-result`: a second result for the same call id;
 * - `missing-result`: a declared call with no result right after its assistant message;
 * - `missing-result-id`: a tool message without `toolCallId`;
 * - `duplicate-call-id`: two tool calls declared with the same id;
 * - `empty-call-id`: a tool call without an id;
 * - `empty-tool-calls`: an assistant message with an empty `toolCalls` list.
 */
export type ToolCallViolation = {
  readonly type:
    | 'orphan-result'
    | 'duplicate-result'
    | 'missing-result'
    | 'missing-result-id'
    | 'duplicate-call-id'
    | 'empty-call-id'
    | 'empty-tool-calls';
  /** Index of the offending message in the list. */
  readonly index: number;
  readonly messageId: string;
  readonly toolCallId?: string;
  /** A sentence a person can read. */
  readonly message: string;
};

/**
 * Checks tool-call integrity: every tool result directly follows (within the run of tool messages)
 * the assistant message that declared its id, no id is answered twice, every declared call has a
 * result, call ids are unique and non-empty, and no assistant has an empty tool-call list.
 * Returns the violations, empty when the list is legal. O(n).
 */
export function validateToolCallIntegrity(messages: readonly Message[]): readonly ToolCallViolation[] {
  const check = new IntegrityCheck();
  messages.forEach((message, index) => {
    check.visit(message, index);
  });
  check.closeOpen();
  return check.violations;
}

/** Where a violation was found: the message, its index and the call id concerned. */
type Place = {
  readonly type: ToolCallViolation['type'];
  readonly index: number;
  readonly message: Message;
  readonly toolCallId?: string;
};

/** One pass over a list: the open assistant's pending calls, and what was seen before. */
class IntegrityCheck {
  readonly violations: ToolCallViolation[] = [];
  readonly #seenCallIds = new Set<string>();
  readonly #answered = new Set<string>();
  #open: { readonly index: number; readonly message: Message; readonly pending: Set<string> } | undefined;

  visit(message: Message, index: number): void {
    if (message.role === 'tool') {
      this.#checkResult(message, index);
      return;
    }
    this.closeOpen();
    if (message.role === 'assistant' && message.toolCalls !== undefined) this.#openCalls(message, index);
  }

  /** The open assistant's calls that got no result. */
  closeOpen(): void {
    const open = this.#open;
    if (open === undefined) return;
    for (const id of open.pending)
      this.#add(
        { type: 'missing-result', index: open.index, message: open.message, toolCallId: id },
        `call ${id} has no result`,
      );
    this.#open = undefined;
  }

  #openCalls(message: Message, index: number): void {
    const calls = message.toolCalls ?? [];
    if (calls.length === 0) {
      this.#add({ type: 'empty-tool-calls', index, message }, 'assistant has an empty toolCalls list');
      return;
    }
    const pending = new Set<string>();
    for (const call of calls) {
      if (call.id === '') this.#add({ type: 'empty-call-id', index, message }, 'a tool call has no id');
      else if (this.#seenCallIds.has(call.id))
        this.#add(
          { type: 'duplicate-call-id', index, message, toolCallId: call.id },
          `call id ${call.id} is declared twice`,
        );
      else {
        this.#seenCallIds.add(call.id);
        pending.add(call.id);
      }
    }
    this.#open = { index, message, pending };
  }

  #checkResult(message: Message, index: number): void {
    const id = message.toolCallId;
    if (id === undefined || id === '') {
      this.#add({ type: 'missing-result-id', index, message }, 'tool message has no toolCallId');
    } else if (this.#answered.has(id)) {
      this.#add({ type: 'duplicate-result', index, message, toolCallId: id }, `call ${id} is answered twice`);
    } else if (this.#open?.pending.has(id) === true) {
      this.#open.pending.delete(id);
      this.#answered.add(id);
    } else {
      this.#add(
        { type: 'orphan-result', index, message, toolCallId: id },
        `result ${id} does not follow the assistant that declared it`,
      );
    }
  }

  #add(place: Place, text: string): void {
    const { type, index, message, toolCallId } = place;
    this.violations.push({
      type,
      index,
      messageId: message.id,
      ...(toolCallId === undefined ? {} : { toolCallId }),
      message: `message ${index} (${message.id}): ${text}`,
    });
  }
}
