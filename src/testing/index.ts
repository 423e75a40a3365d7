/**
 * @module ctxloom/testing
 */

export { validateCompactionLineage } from '../core/validate-compaction-lineage.js';
export {
  type AnthropicCompactionServerOptions,
  startAnthropicCompactionServer,
} from './anthropic-compaction-server.js';
export {
  budgetArbitrary,
  CORRUPTIONS,
  type ConversationArbitraryOptions,
  type Corruption,
  contentArbitrary,
  conversationArbitrary,
  malformedConversationArbitrary,
  messageArbitrary,
  PLACEHOLDER_ASSISTANT_TEXT,
  textArbitrary,
  toolDefinitionsArbitrary,
} from './arbitraries.js';
export { assertCompactionLineage } from './assert-compaction-lineage.js';
export {
  describeSessionStoreContract,
  type SessionStoreContractContext,
  type SessionStoreContractOptions,
} from './contracts/session-store-contract.js';
export {
  describeTokenCounterContract,
  type TokenCounterContractOptions,
} from './contracts/token-counter-contract.js';
export {
  anyContentPartArbitrary,
  jsonObjectArbitrary,
  nativeFieldsArbitrary,
  providerOptionsArbitrary,
  providerPartArbitrary,
  reasoningPartArbitrary,
  richConversationArbitrary,
  richMessageArbitrary,
  TOOL_OUTPUT_TYPES,
} from './message-format-2-arbitraries.js';
export {
  type OpenAICompactionServerOptions,
  startOpenAICompactionServer,
} from './openai-compaction-server.js';
export type { ScriptedReply, ScriptedRequest, ScriptedServer } from './scripted-json-server.js';
export {
  createScriptedSummarizer,
  SCRIPTED_SUMMARIZER_KINDS,
  type ScriptedSummarizer,
  type ScriptedSummarizerKind,
  type ScriptedSummarizerOptions,
} from './scripted-summarizer.js';
export {
  createTestBuildContext,
  type TestBuildContextOptions,
} from './test-build-context.js';
