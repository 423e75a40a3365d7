/**
 * @module ctxloom/core
 * Plain data and pure helpers: messages, content parts, tool calls, ids, errors, decisions and
 * transactions. No I/O.
 */
export { type AppliedCompactions, applyCompactions, viewId } from './apply-compactions.js';
export { apportionTokens } from './apportion-tokens.js';
export {
  checkOptions,
  type NestedOptionsShape,
  type OptionKeys,
  type OptionsShape,
} from './check-options.js';
export { closestName } from './closest-name.js';
export {
  COMPACTION_DEPTH_KEY,
  COMPACTION_ID_KEY,
  type CompactionKind,
  type CompactionProducer,
  type CompactionRecord,
  type CompactionTrigger,
} from './compaction-record.js';
export { hasToolCalls, isBlankContent, partsOf, textOf } from './content.js';
export { type Decision, decision } from './decision.js';
export {
  AdapterError,
  BudgetUnsatisfiableError,
  CONTEXT_ERROR_CODES,
  ContextError,
  type ContextErrorCode,
  type ContextErrorOptions,
  type ErrorCategory,
  SessionStoreError,
  throwIfAborted,
  toContextError,
} from './errors.js';
export {
  type AssistantMessageOptions,
  ai,
  assistant,
  human,
  type MessageOptions,
  msg,
  system,
  type ToolCallInput,
  type ToolMessageOptions,
  tool,
  toToolCall,
  user,
} from './factories.js';
export { findLegalMessageStart } from './find-legal-message-start.js';
export {
  createSequentialIdGenerator,
  generateMessageId,
  type IdGenerator,
  type MessageId,
  messageId,
  type SessionId,
  type SkillId,
  sessionId,
  skillId,
  type ToolCallId,
  toolCallId,
} from './ids.js';
export type { JsonObject, JsonValue } from './json.js';
export type { LineageViolation } from './lineage-violation.js';
export {
  type Content,
  type ContentPart,
  type FilePart,
  type ImagePart,
  MESSAGE_FORMAT_VERSION,
  type Message,
  type Metadata,
  type NativeFields,
  type ProviderOptions,
  type ProviderPart,
  type ReasoningPart,
  type Role,
  SECTION_KEY,
  sectionOf,
  type TextPart,
  type ToolCall,
  type ToolOutputType,
  withMetadata,
} from './message.js';
export {
  contentPartSchema,
  formatPath,
  type MessageIssue,
  messageSchema,
  providerPartSchema,
  reasoningPartSchema,
  type SafeParseMessageResult,
  safeParseMessage,
  toolCallSchema,
} from './message-schema.js';
export {
  checkContentShape,
  checkMessageShape,
  describeValue,
  type ShapeIssue,
} from './message-schema-check.js';
export { encryptedPayloadTokens, opaquePayloadTokens, providerPartText } from './opaque-payload.js';
export { pythonSplitLines } from './python-split-lines.js';
export { PYTHON_WHITESPACE, pythonStrip } from './python-strip.js';
export {
  RUNTIME_CONTEXT_KEY,
  type RuntimeContextMarker,
  type RuntimeContextTextBlock,
  stripRuntimeContextExactly,
} from './runtime-context-marker.js';
export { renderSessionNotes, SESSION_NOTES_TITLE, type SessionNotes } from './session-notes.js';
export { sessionView } from './session-view.js';
export { type ToolCallViolation, validateToolCallIntegrity } from './tool-call-integrity.js';
export type { ToolDefinition } from './tool-definition.js';
export { groupTransactions, type MessageUnit } from './transactions.js';
export { TRUNCATION_SUFFIX, truncateText } from './truncate-text.js';
export { toUniversalNewlines } from './universal-newlines.js';
export { validateCompactionLineage } from './validate-compaction-lineage.js';
