/**
 * @module ctxloom/cache
 * Prompt-cache engineering: plan Anthropic breakpoints (`planCacheBreakpoints`), find what busts the
 * cache (`findVolatileContent`, `diffRequests`), trim so the cached prefix stays put
 * (`planCacheAwareTrim`, `CacheAwareTrimFilter`), read provider usage (`normalizeUsage`), calibrate
 * a token counter on it (`UsageCalibratedTokenCounter`) and replay a session under Anthropic's or
 * OpenAI's caching rules (`simulatePromptCache`). Pure and free of SDK imports.
 */
export {
  applyCacheMarkers,
  type CacheMarkerPlacement,
  stripCacheMarkers,
} from '../adapters/apply-cache-markers.js';
export {
  type AnthropicCacheableRequest,
  type CacheBreakpointPlan,
  type CacheMarkerKind,
  DEFAULT_PLAN_CACHE_BREAKPOINTS,
  type PlanCacheBreakpointsOptions,
  type PlannedCacheMarker,
  type PlannedCacheRequest,
  planCacheBreakpoints,
} from '../adapters/plan-cache-breakpoints.js';
export {
  type PromptCacheArea,
  type PromptCacheBlock,
  type PromptCacheRequest,
  prefixKeys,
  prefixTokens,
  requestTokens,
} from '../adapters/prompt-cache-request.js';
export {
  ANTHROPIC_DEFAULT_MIN_TOKENS,
  ANTHROPIC_LOOKBACK_BLOCKS,
  ANTHROPIC_MAX_BREAKPOINTS,
  ANTHROPIC_TTL_MS,
  anthropicMinCacheableTokens,
  DEFAULT_PROMPT_CACHE_MULTIPLIERS,
  OPENAI_CACHE_INCREMENT,
  OPENAI_MIN_CACHED_TOKENS,
  type PromptCacheMultipliers,
} from '../adapters/prompt-cache-rules.js';
export {
  type AnthropicCacheInput,
  anthropicPromptCacheRequest,
  messagesPromptCacheRequest,
  openAIPromptCacheRequest,
  type PromptCacheRequestOptions,
} from '../adapters/to-prompt-cache-request.js';
export {
  CacheAwareTrimFilter,
  type CacheAwareTrimFilterOptions,
  withCacheAwareTrim,
} from './cache-aware-trim-filter.js';
export {
  type DiffRequestsOptions,
  diffRequests,
  type RequestDiff,
  type RequestDivergence,
} from './diff-requests.js';
export {
  type ContextBuildSample,
  type FindVolatileContentOptions,
  findVolatileContent,
  type VolatileContent,
} from './find-volatile-content.js';
export {
  type NormalizedUsage,
  type NormalizeUsageOptions,
  normalizeUsage,
  type UsagePriceTable,
} from './normalize-usage.js';
export {
  type OpenAIPromptCacheParams,
  type OpenAIPromptCacheParamsOptions,
  openAIPromptCacheParams,
} from './openai-prompt-cache-params.js';
export {
  type CacheAwareTrimPlan,
  DEFAULT_CACHE_AWARE_TRIM,
  type PlanCacheAwareTrimOptions,
  planCacheAwareTrim,
} from './plan-cache-aware-trim.js';
export {
  type PromptCacheSimulation,
  type SimulatedCacheRequest,
  type SimulatedCacheTotals,
  type SimulatePromptCacheOptions,
  simulatePromptCache,
} from './simulate-prompt-cache.js';
export {
  DEFAULT_USAGE_CALIBRATION,
  type TokenCalibrationSample,
  type TokenCalibrationSnapshot,
  UsageCalibratedTokenCounter,
  type UsageCalibratedTokenCounterOptions,
} from './usage-calibrated-token-counter.js';
export {
  DEFAULT_VOLATILE_CONTENT_CHECK,
  VolatileContentCheck,
  type VolatileContentCheckOptions,
} from './volatile-content-check.js';
