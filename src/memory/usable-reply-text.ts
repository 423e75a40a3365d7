import type { ChatResult } from '../llm/chat-model.js';
import { ChatModelError, type ModelFailureReason } from '../llm/chat-model-error.js';
import { stripReasoningLeaks } from './strip-reasoning-leaks.js';

/** What {@link usableReplyText} checks the reply for. */
export type UsableReplyOptions = {
  /** What the reply was for, for the error message (e.g. `the summary of cli:direct messages 0–8`). */
  readonly purpose: string;
  /** The request's output cap, named in the message of a reply cut at it. */
  readonly maxOutputTokens?: number;
};

/**
 * The text of a reply that is usable as a summary or a memory file, with reasoning removed. A reply is
 * usable only when it finished normally (`stop`), made no tool calls, and is not blank once
 * `<think>`/`<thinking>`/`<thought>` blocks (closed or not) are stripped. Anything else throws.
 * @throws ChatModelError `SUMMARISER_FAILED` with kind `unusable-reply` and the reason: `length`,
 * `content-filter`, `no-finish-reason`, `unexpected-finish-reason`, `tool-calls`, `reasoning-only`,
 * `empty`.
 */
export function usableReplyText(reply: ChatResult, options: UsableReplyOptions): string {
  const refuse = (reason: ModelFailureReason, why: string): never => {
    throw new ChatModelError({
      kind: 'unusable-reply',
      reason,
      message: `The model's reply for ${options.purpose} is not usable: ${why}`,
    });
  };
  const raw = reply.rawFinishReason === undefined ? '' : ` ('${reply.rawFinishReason}')`;
  const rawName = reply.rawFinishReason ?? 'content_filter';
  switch (reply.finishReason) {
    case 'stop':
      break;
    case 'length':
      return refuse(
        'length',
        `it stopped at the output limit${options.maxOutputTokens === undefined ? '' : ` of ${options.maxOutputTokens} tokens`} (finish reason 'length'), so it is cut. Raise maxOutputTokens (CLI --max-output).`,
      );
    case 'content-filter':
      return refuse(
        'content-filter',
        `the provider's content filter stopped it (finish reason '${rawName}'). Use another model for these turns.`,
      );
    case 'unknown':
      return refuse(
        'no-finish-reason',
        'it has no finish reason, so it may be incomplete. Use an endpoint that reports finish_reason.',
      );
    case 'tool-calls':
      break;
    default:
      return refuse(
        'unexpected-finish-reason',
        `it ended with finish reason '${reply.finishReason}'${raw}, not a normal stop.`,
      );
  }
  if (reply.toolCalls.length > 0 || reply.finishReason === 'tool-calls') {
    const names = reply.toolCalls.map((call) => call.name).join(', ');
    return refuse('tool-calls', `it called tools (${names || 'none named'}) instead of answering with text.`);
  }
  const text = stripReasoningLeaks(reply.text);
  if (text !== '') return text;
  if (reply.text.trim() !== '' || (reply.reasoning ?? '') !== '') {
    return refuse(
      'reasoning-only',
      'it holds only reasoning and no answer. Raise maxOutputTokens (CLI --max-output) or turn reasoning off for this model.',
    );
  }
  return refuse('empty', 'it is empty.');
}
