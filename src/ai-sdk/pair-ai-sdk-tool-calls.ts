import {
  type RepairToolPairingResult,
  repairToolPairing,
  type ToolPairingPolicy,
} from '../adapters/repair-tool-pairing.js';
import type { Message, ToolCall } from '../core/message.js';
import { AI_SDK_FORMAT, aiSdkNativeOf } from './ai-sdk-native.js';

/**
 * Makes the tool-call pairing legal (see `repairToolPairing`) the way the AI SDK's approval flow
 * needs it: a tool message that holds an approval response (not a result) and a call that awaits its
 * approval (an `ai-sdk` `tool-approval-request` part names it, and no result answers it) are not
 * results and unanswered calls to repair; they are set aside and put back where they were.
 * @throws ContextError `TOOL_CALL_INTEGRITY` with `policy: 'throw'` and a broken pairing.
 */
export function pairAiSdkToolCalls(
  messages: readonly Message[],
  policy: ToolPairingPolicy,
): RepairToolPairingResult {
  const answered = new Set<string>();
  for (const message of messages)
    if (message.role === 'tool' && !isApprovalPart(message)) answered.add(message.toolCallId ?? '');
  const kept: Message[] = [];
  const keptIndexes: number[] = [];
  const aside = new Map<number, Message>();
  const withheld = new Map<number, Message>();
  messages.forEach((message, index) => {
    if (message.role === 'tool' && isApprovalPart(message)) {
      aside.set(index, message);
      return;
    }
    const awaiting = awaitingApproval(message, answered);
    if (awaiting.size > 0) {
      withheld.set(index, message);
      const calls = (message.toolCalls ?? []).filter((call) => !awaiting.has(call.id));
      const { toolCalls: _calls, ...rest } = message;
      kept.push(calls.length === 0 ? rest : { ...rest, toolCalls: calls });
    } else kept.push(message);
    keptIndexes.push(index);
  });
  if (aside.size === 0 && withheld.size === 0) return repairToolPairing(messages, { policy });
  const repaired = repairToolPairing(kept, { policy });
  const out: Message[] = [];
  const sourceIndexes: number[] = [];
  const pending = [...aside.entries()];
  const emitAsideBefore = (limit: number): void => {
    while (pending.length > 0 && (pending[0]?.[0] ?? limit) < limit) {
      const [index, message] = pending.shift() ?? [limit, undefined];
      if (message === undefined) return;
      out.push(message);
      sourceIndexes.push(index);
    }
  };
  repaired.messages.forEach((message, position) => {
    const at = repaired.sourceIndexes[position] ?? position;
    const index = keptIndexes[at] ?? position;
    emitAsideBefore(index);
    const original = withheld.get(index);
    if (original === undefined || message.role !== 'assistant') out.push(message);
    else out.push(message === kept[at] ? original : restoreCalls(message, original));
    sourceIndexes.push(index);
  });
  emitAsideBefore(Number.POSITIVE_INFINITY);
  const warnings = repaired.warnings.map((warning) => ({
    ...warning,
    index: keptIndexes[warning.index] ?? warning.index,
  }));
  return { messages: out, sourceIndexes, warnings };
}

function isApprovalPart(message: Message): boolean {
  return aiSdkNativeOf(message).toolPart === true;
}

/** The ids of the message's calls an approval request names that no result answers. */
function awaitingApproval(message: Message, answered: ReadonlySet<string>): ReadonlySet<string> {
  if (message.role !== 'assistant' || typeof message.content === 'string') return new Set();
  const ids = new Set<string>();
  for (const part of message.content) {
    if (part.type !== 'provider' || part.format !== AI_SDK_FORMAT || part.kind !== 'tool-approval-request')
      continue;
    const id = part.value['toolCallId'];
    if (typeof id === 'string' && !answered.has(id)) ids.add(id);
  }
  return ids;
}

/** The repaired message with the withheld calls back, in the original order. */
function restoreCalls(message: Message, original: Message): Message {
  const keptIds = new Set((message.toolCalls ?? []).map((call) => call.id));
  const byId = new Map((message.toolCalls ?? []).map((call): [string, ToolCall] => [call.id, call]));
  const calls = (original.toolCalls ?? []).flatMap((call) => {
    if (keptIds.has(call.id)) return [byId.get(call.id) ?? call];
    return awaitingIds(original).has(call.id) ? [call] : [];
  });
  return { ...message, toolCalls: calls };
}

function awaitingIds(message: Message): ReadonlySet<string> {
  return awaitingApproval(message, new Set());
}
