import { codePointLength } from '../core/code-points.js';
import { type Decision, decision } from '../core/decision.js';
import { throwIfAborted } from '../core/errors.js';
import type { Message } from '../core/message.js';
import type { BuildInput } from '../pipeline/build-input.js';
import type { BuildContext, ContextFilter, FilterResult } from '../pipeline/contracts.js';
import type { PersistToolResultOptions } from '../workspace/tool-result-offload.js';
import { DEFAULT_MAX_TOOL_RESULT_CHARS, DEFAULT_OFFLOAD_EXEMPT_TOOLS } from './governor-constants.js';
import { isEmptyResult, type NormalizedToolResult, normalizeToolResult } from './normalize-tool-result.js';

/** Options for {@link ToolResultBudgetFilter}. */
export type ToolResultBudgetFilterOptions = {
  /** The stage id. @default 'tool-result-budget' */
  readonly id?: string;
  /** Characters a result may have before it is offloaded or truncated. @default 16000 */
  readonly maxToolResultChars?: number;
  /** Workspace root for offloaded results; without it oversized results are truncated. */
  readonly workspace?: string;
  /** Session folder for offloaded results. @default the build input's `sessionKey`, else 'default' */
  readonly sessionKey?: string;
  /** Tools never offloaded or truncated. @default ['read_file'] */
  readonly exemptTools?: readonly string[];
  /** Offload preview size, bucket retention and clock. */
  readonly offload?: Pick<
    PersistToolResultOptions,
    'previewChars' | 'maxBucketAgeMs' | 'maxBuckets' | 'clock' | 'dryRun'
  >;
};

/**
 * Governor step 5: normalises every tool result (history included) with `normalizeToolResult`:
 * empty results get the `({tool} completed with no output)` text, oversized ones are offloaded to
 * the workspace or hard-truncated, `read_file` results are left alone. Every change is a decision
 * (`message-rewrite`, `tool-result-offload`, `message-truncate`).
 */
export class ToolResultBudgetFilter implements ContextFilter {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly #options: ToolResultBudgetFilterOptions;

  constructor(options: ToolResultBudgetFilterOptions = {}) {
    this.id = options.id ?? 'tool-result-budget';
    this.#options = options;
  }

  async apply(messages: readonly Message[], input: BuildInput, context: BuildContext): Promise<FilterResult> {
    let out: Message[] | undefined;
    const decisions: Decision[] = [];
    const sessionKey = this.#options.sessionKey ?? input.sessionKey;
    for (const [index, message] of messages.entries()) {
      if (message.role !== 'tool') {
        out?.push(message);
        continue;
      }
      const toolName = message.name !== undefined && message.name !== '' ? message.name : 'tool';
      if (this.#isUnchanged(message, toolName)) {
        out?.push(message);
        continue;
      }
      throwIfAborted(context.signal);
      const result = await normalizeToolResult({
        toolCallId:
          message.toolCallId !== undefined && message.toolCallId !== ''
            ? message.toolCallId
            : `tool_${index}`,
        toolName,
        content: message.content,
        maxChars: this.#options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS,
        ...(this.#options.workspace === undefined ? {} : { workspace: this.#options.workspace }),
        ...(sessionKey === undefined ? {} : { sessionKey }),
        ...(this.#options.exemptTools === undefined ? {} : { exemptTools: this.#options.exemptTools }),
        ...(this.#options.offload === undefined ? {} : { offload: this.#options.offload }),
      });
      if (result.action === 'unchanged' || result.content === message.content) {
        out?.push(message);
        continue;
      }
      out ??= messages.slice(0, index);
      const next: Message = { ...message, content: result.content };
      out.push(next);
      decisions.push(this.#decide(message, result, context.tokenCounter.countMessage(next)));
    }
    return out === undefined ? { messages, decisions: [] } : { messages: out, decisions };
  }

  /** The synchronous fast path: a result that is not empty and fits (or is exempt) stays as it is. */
  #isUnchanged(message: Message, toolName: string): boolean {
    if (isEmptyResult(message.content)) return false;
    if ((this.#options.exemptTools ?? DEFAULT_OFFLOAD_EXEMPT_TOOLS).includes(toolName)) return true;
    const maxChars = this.#options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS;
    if (maxChars <= 0) return true;
    const content = message.content;
    // Sizes are code points, as nanobot counts them; UTF-16 length is an upper bound, so most results
    // are decided without scanning their text.
    if (typeof content === 'string')
      return content.length <= maxChars || codePointLength(content) <= maxChars;
    let units = -1;
    let points = -1;
    for (const part of content) {
      if (part.type !== 'text') return true;
      units += part.text.length + 1;
    }
    if (units <= maxChars) return true;
    for (const part of content) if (part.type === 'text') points += codePointLength(part.text) + 1;
    return points <= maxChars;
  }

  #decide(message: Message, result: NormalizedToolResult, tokensAfter: number): Decision {
    const base = { stage: this.id, messageIds: [message.id], tokensAfter };
    const callId = message.toolCallId ?? '';
    if (result.action === 'empty') {
      return decision('message-rewrite', { ...base, reason: `empty result of ${callId} marked as such` });
    }
    if (result.action === 'offloaded') {
      return decision('tool-result-offload', {
        ...base,
        reason: `result of ${callId} (${result.originalChars ?? 0} chars) saved to a file`,
        details: {
          toolCallId: callId,
          path: result.path,
          originalChars: result.originalChars,
          ...(result.cleanupErrors === undefined || result.cleanupErrors.length === 0
            ? {}
            : { cleanupErrors: result.cleanupErrors }),
        },
      });
    }
    return decision('message-truncate', {
      ...base,
      reason:
        result.offloadError === undefined
          ? `result of ${callId} (${result.originalChars ?? 0} chars) truncated: no workspace to offload to`
          : `result of ${callId} truncated because the offload failed: ${result.offloadError}`,
      details: {
        toolCallId: callId,
        originalChars: result.originalChars,
        ...(result.offloadError === undefined ? {} : { offloadError: result.offloadError }),
      },
    });
  }
}
