/**
 * @module ctxloom/tokens
 * The TokenCounter contract and the built-in counters.
 */
export { ByteTokenCounter, type ByteTokenCounterOptions } from './byte-token-counter.js';
export {
  CachedTokenCounter,
  type CachedTokenCounterOptions,
  DEFAULT_CACHED_TOKEN_COUNTER,
  withTokenCache,
} from './cached-token-counter.js';
export { EstimatingTokenCounter, type EstimatingTokenCounterOptions } from './estimating-token-counter.js';
export {
  type HFRuntimeImporter,
  HFTokenCounter,
  type HFTokenCounterFromFileOptions,
  type HFTokenCounterFromJsonOptions,
  type HFTokenCounterLoadOptions,
  type HFTokenCounterOptions,
  type HFTokenizer,
} from './hf-token-counter.js';
export { mediaPartCount, messageText } from './message-text.js';
export { ScaledTokenCounter, type ScaledTokenCounterOptions } from './scaled-token-counter.js';
export { SimpleTokenCounter, type SimpleTokenCounterOptions } from './simple-token-counter.js';
export { TextTokenCounter } from './text-token-counter.js';
export {
  loadTiktokenEncoder,
  resolveTiktokenEncoding,
  TIKTOKEN_MODEL_FAMILIES,
  type TiktokenEncoder,
  type TiktokenEncodingName,
} from './tiktoken-encoding.js';
export {
  TiktokenTokenCounter,
  type TiktokenTokenCounterCreateOptions,
  type TiktokenTokenCounterOptions,
} from './tiktoken-token-counter.js';
export {
  DEFAULT_MESSAGE_COST,
  type MessageCostOptions,
  type TokenCounter,
  type TokenCountKind,
} from './token-counter.js';
export { CLAUDE_TOKEN_FACTOR, isClaudeModel, tokenCounterForModel } from './token-counter-for-model.js';
export {
  DEFAULT_TRUNCATE_TEXT_TO_TOKENS,
  type TextTokenizer,
  type TruncateTextToTokensOptions,
  truncateTextToTokens,
} from './truncate-text-to-tokens.js';
