/**
 * @module ctxloom/tokens
 * The TokenCounter contract and the built-in counters.
 */
export {
  CachedTokenCounter,
  type CachedTokenCounterOptions,
  withTokenCache,
} from './cached-token-counter.js';
export { mediaPartCount, messageText } from './message-text.js';
export { SimpleTokenCounter, type SimpleTokenCounterOptions } from './simple-token-counter.js';
export { TextTokenCounter } from './text-token-counter.js';
export { DEFAULT_MESSAGE_COST, type MessageCostOptions, type TokenCounter } from './token-counter.js';
