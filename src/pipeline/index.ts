/**
 * @module ctxloom/pipeline
 * The Provider → Filter pipeline: contracts, the pipeline runner, the build input and trace.
 */

export type { BuildCheck, BuildCheckRequest } from './build-check.js';
export type {
  ArchivedSummary,
  BuildInput,
  PromptRuntimeContext,
  RuntimeContextBlock,
} from './build-input.js';
export { BuildInputValidator, checkMessageList } from './build-input-validator.js';
export {
  type BuildResult,
  type BuildTrace,
  type SectionTokens,
  type StageTrace,
  type ToolTokens,
  type TraceWarning,
  traceDecisions,
} from './build-trace.js';
export { ContextPipeline, type ContextPipelineOptions } from './context-pipeline.js';
export type {
  BuildContext,
  ContextFilter,
  FilterResult,
  MessageProvider,
  StageErrorPolicy,
} from './contracts.js';
export {
  CONTEXT_LOSS_CHECK,
  type ContextLossWarning,
  isContextLossWarning,
} from './find-context-loss.js';
export type {
  ObservedRequest,
  ObservedRequestSource,
  ObservedUsage,
  RequestObserver,
} from './request-observer.js';
