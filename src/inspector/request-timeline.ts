import type { SectionTokens, TraceWarning } from '../index.js';
import {
  diffRecordedRequests,
  type RecordedCounts,
  type RecordedRequest,
  type RecordedRequestDiff,
  type RecordedUsage,
} from '../recorder/index.js';
import { contextToolCallsOf, type TimelineContextToolCall } from './context-tool-calls.js';

/** One recorded request as the timeline shows it (its messages are fetched on demand). */
export type TimelineStep = {
  readonly id: string;
  readonly at: string;
  readonly source: RecordedRequest['source'];
  readonly stepNumber?: number;
  readonly model?: string;
  readonly totalTokens: number;
  readonly toolTokens: number;
  readonly messageCount: number;
  readonly tools: readonly string[];
  readonly sections: readonly SectionTokens[];
  readonly counts: RecordedCounts;
  readonly usage?: RecordedUsage;
  /** The warnings recorded with the request (e.g. volatile bytes in the cached prefix). */
  readonly warnings?: readonly TraceWarning[];
  /** What changed since the session's previous request (absent for the first). */
  readonly changes?: RecordedRequestDiff;
  /** The context tools' calls answered since the previous request (recall, compact_now, new_context, …). */
  readonly contextToolCalls?: readonly TimelineContextToolCall[];
};

/** A turn: the steps of one run (AI SDK `runId`), or a single build. */
export type TimelineTurn = {
  readonly index: number;
  readonly runId?: string;
  readonly steps: readonly TimelineStep[];
};

/** Groups a session's recorded requests into turns of steps, each step with its changes since the previous request. Pure. */
export function requestTimeline(requests: readonly RecordedRequest[]): readonly TimelineTurn[] {
  const turns: { index: number; runId?: string; steps: TimelineStep[] }[] = [];
  requests.forEach((request, index) => {
    const previous = requests[index - 1];
    const contextToolCalls = contextToolCallsOf(request, previous);
    const step: TimelineStep = {
      id: request.id,
      at: request.at,
      source: request.source,
      ...optionalFields(request),
      totalTokens: request.totalTokens,
      toolTokens: request.toolTokens,
      messageCount: request.messageHashes.length,
      tools: request.tools,
      sections: request.sections,
      counts: request.counts,
      ...(previous === undefined ? {} : { changes: diffRecordedRequests(previous, request) }),
      ...(contextToolCalls.length === 0 ? {} : { contextToolCalls }),
    };
    const last = turns.at(-1);
    if (last !== undefined && request.runId !== undefined && last.runId === request.runId)
      last.steps.push(step);
    else
      turns.push({
        index: turns.length,
        ...(request.runId === undefined ? {} : { runId: request.runId }),
        steps: [step],
      });
  });
  return turns;
}

function optionalFields(
  request: RecordedRequest,
): Pick<TimelineStep, 'stepNumber' | 'model' | 'usage' | 'warnings'> {
  return {
    ...(request.stepNumber === undefined ? {} : { stepNumber: request.stepNumber }),
    ...(request.model === undefined ? {} : { model: request.model }),
    ...(request.usage === undefined ? {} : { usage: request.usage }),
    ...(request.warnings === undefined ? {} : { warnings: request.warnings }),
  };
}
