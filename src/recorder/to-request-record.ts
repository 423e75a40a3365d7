import { sectionOf } from '../core/message.js';
import { traceDecisions } from '../pipeline/build-trace.js';
import type { ObservedRequest } from '../pipeline/request-observer.js';
import { countDecisions } from './count-decisions.js';
import { messageContentHash } from './message-content-hash.js';
import { REQUEST_RECORD_VERSION, type RequestRecord } from './request-record.js';

/** What {@link toRequestRecord} needs besides the request. */
export type ToRequestRecordOptions = {
  readonly id: string;
  readonly at: string;
  readonly sessionKey: string;
  /** Keep the full messages (and the integration's `sent` copy). */
  readonly includeMessages: boolean;
};

/** Turns an observed request into its log line (pure; the request is not changed). */
export function toRequestRecord(request: ObservedRequest, options: ToRequestRecordOptions): RequestRecord {
  const { trace } = request;
  const decisions = traceDecisions(trace);
  return {
    type: 'request',
    version: REQUEST_RECORD_VERSION,
    id: options.id,
    at: options.at,
    sessionKey: options.sessionKey,
    source: request.source,
    ...(request.runId === undefined ? {} : { runId: request.runId }),
    ...(request.stepNumber === undefined ? {} : { stepNumber: request.stepNumber }),
    ...(request.model === undefined ? {} : { model: request.model }),
    totalTokens: trace.totalTokens,
    toolTokens: trace.toolTokens,
    tokenCounter: trace.tokenCounter,
    ...(trace.tokenCounterKind === undefined ? {} : { tokenCounterKind: trace.tokenCounterKind }),
    durationMs: trace.durationMs,
    sections: trace.sections,
    stages: trace.stages.map((stage) => ({
      id: stage.id,
      kind: stage.kind,
      messagesIn: stage.messagesIn,
      messagesOut: stage.messagesOut,
      tokensIn: stage.tokensIn,
      tokensOut: stage.tokensOut,
      durationMs: stage.durationMs,
    })),
    decisions,
    counts: countDecisions(decisions),
    ...(trace.warnings === undefined ? {} : { warnings: trace.warnings }),
    tools: request.tools.map((tool) => tool.name),
    ...(trace.tools === undefined ? {} : { toolCosts: trace.tools }),
    messageHashes: request.messages.map((message) => {
      const section = sectionOf(message);
      return {
        id: message.id,
        role: message.role,
        ...(section === undefined ? {} : { section }),
        hash: messageContentHash(message),
      };
    }),
    ...(options.includeMessages ? { messages: request.messages } : {}),
    ...(options.includeMessages && request.sent !== undefined ? { sent: request.sent } : {}),
  };
}
