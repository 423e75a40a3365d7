import { type Decision, decision } from '../core/decision.js';
import type { IdGenerator } from '../core/ids.js';
import type { Message, ToolCall } from '../core/message.js';

/**
 * Fills in missing ids on one transaction (an assistant message with tool calls and the tool run
 * that follows it) when the pairing of calls and results is unambiguous: one call and one result, or
 * as many results as calls with every result's `name` equal to its call's name in order (and every
 * id present on both sides equal). The missing side takes the other side's id; when both lack one, a
 * new id is made. Anything else is left as is (the caller then finds the transaction broken).
 * Returns the transaction's messages (the same objects when nothing was filled in) and one
 * `tool-call-repair` decision per filled id.
 * @internal
 */
export function backfillToolCallIds(transaction: {
  readonly call: Message;
  readonly results: readonly Message[];
  readonly generateId: IdGenerator;
  readonly stage: string;
}): { readonly messages: readonly Message[]; readonly decisions: readonly Decision[] } {
  const { call, results } = transaction;
  const calls = call.toolCalls ?? [];
  const untouched = { messages: [call, ...results], decisions: [] };
  const isMissingAny = calls.some((toolCall) => !toolCall.id) || results.some((result) => !result.toolCallId);
  if (!isMissingAny || !isUnambiguous(calls, results)) return untouched;

  const decisions: Decision[] = [];
  const newCalls: ToolCall[] = [];
  const newResults: Message[] = [];
  calls.forEach((toolCall, index) => {
    const result = results[index] as Message;
    const id = toolCall.id || result.toolCallId || transaction.generateId();
    newCalls.push(toolCall.id === id ? toolCall : { ...toolCall, id });
    newResults.push(result.toolCallId === id ? result : { ...result, toolCallId: id });
    if (toolCall.id === id && result.toolCallId === id) return;
    decisions.push(
      decision('tool-call-repair', {
        stage: transaction.stage,
        reason: describeRepair({ toolCall, result, id }),
        messageIds: [call.id, result.id],
        details: { toolCallId: id, toolName: toolCall.name },
      }),
    );
  });
  return { messages: [{ ...call, toolCalls: newCalls }, ...newResults], decisions };
}

function isUnambiguous(calls: readonly ToolCall[], results: readonly Message[]): boolean {
  if (calls.length !== results.length || calls.length === 0) return false;
  if (calls.length === 1) return true;
  return calls.every((toolCall, index) => {
    const result = results[index] as Message;
    const isNameMatch = toolCall.name !== '' && result.name === toolCall.name;
    const isIdConsistent = !toolCall.id || !result.toolCallId || toolCall.id === result.toolCallId;
    return isNameMatch && isIdConsistent;
  });
}

function describeRepair(repair: {
  readonly toolCall: ToolCall;
  readonly result: Message;
  readonly id: string;
}): string {
  const { toolCall, result, id } = repair;
  if (!toolCall.id && result.toolCallId) {
    return `Backfilled the missing id of the call to '${toolCall.name}' from its result (${id}).`;
  }
  if (toolCall.id) return `Backfilled the missing toolCallId of a result from its call (${id}).`;
  return `Gave the call to '${toolCall.name}' and its result a new id (${id}): neither had one.`;
}
