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
  const violations: ToolCallViolation[] = [];
  const seenCallIds = new Set<string>();
  const answered = new Set<string>();
  let open: { index: number; message: Message; pending: Set<string> } | undefined;

  const closeOpen = (): void => {
    if (open === undefined) return;
    for (const id of open.pending) {
      violations.push(violation('missing-result', open.index, open.message, id, `call ${id} has no result`));
    }
    open = undefined;
  };

  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      checkResult(message, index);
      return;
    }
    closeOpen();
    if (message.role !== 'assistant' || message.toolCalls === undefined) return;
    if (message.toolCalls.length === 0) {
      violations.push(
        violation('empty-tool-calls', index, message, undefined, 'assistant has an empty toolCalls list'),
      );
      return;
    }
    const pending = new Set<string>();
    for (const call of message.toolCalls) {
      if (call.id === '') {
        violations.push(violation('empty-call-id', index, message, undefined, 'a tool call has no id'));
      } else if (seenCallIds.has(call.id)) {
        violations.push(
          violation('duplicate-call-id', index, message, call.id, `call id ${call.id} is declared twice`),
        );
      } else {
        seenCallIds.add(call.id);
        pending.add(call.id);
      }
    }
    open = { index, message, pending };
  });
  closeOpen();
  return violations;

  function checkResult(message: Message, index: number): void {
    const id = message.toolCallId;
    if (id === undefined || id === '') {
      violations.push(
        violation('missing-result-id', index, message, undefined, 'tool message has no toolCallId'),
      );
    } else if (answered.has(id)) {
      violations.push(violation('duplicate-result', index, message, id, `call ${id} is answered twice`));
    } else if (open?.pending.has(id) === true) {
      open.pending.delete(id);
      answered.add(id);
    } else {
      violations.push(
        violation(
          'orphan-result',
          index,
          message,
          id,
          `result ${id} does not follow the assistant that declared it`,
        ),
      );
    }
  }
}

function violation(
  type: ToolCallViolation['type'],
  index: number,
  message: Message,
  toolCallId: string | undefined,
  text: string,
): ToolCallViolation {
  return {
    type,
    index,
    messageId: message.id,
    ...(toolCallId === undefined ? {} : { toolCallId }),
    message: `message ${index} (${message.id}): ${text}`,
  };
}
