import { describe, expect, it } from 'vitest';
import {
  fromAnthropicMessages,
  fromOpenAIChatMessages,
  fromOpenAIResponsesInput,
  toAnthropicMessages,
  toOpenAIChatMessages,
  toOpenAIResponsesInput,
} from '../../src/adapters/index.js';
import {
  AiSdkChatModel,
  createPrepareStep,
  ctxloomMiddleware,
  fromAiSdkMessages,
  toAiSdkMessages,
} from '../../src/ai-sdk/index.js';
import {
  anthropicPromptCacheRequest,
  CacheAwareTrimFilter,
  diffRequests,
  findVolatileContent,
  messagesPromptCacheRequest,
  normalizeUsage,
  openAIPromptCacheParams,
  openAIPromptCacheRequest,
  planCacheAwareTrim,
  planCacheBreakpoints,
  simulatePromptCache,
  UsageCalibratedTokenCounter,
  VolatileContentCheck,
} from '../../src/cache/index.js';
import { ContextError } from '../../src/core/index.js';
import {
  BackfillToolResultsFilter,
  BudgetGuardFilter,
  ContextGovernor,
  DropOrphanToolResultsFilter,
  InflightCompactionFilter,
  JoinSystemMessagesFilter,
  KeepOverBudgetFilter,
  MaxMessagesFilter,
  MergeCurrentMessageFilter,
  RoleAlternationFilter,
  SanitizeToolCallsFilter,
  SnipHistoryFilter,
  StripMalformedToolCallsFilter,
  StripPlaceholderAssistantsFilter,
  TokenBudgetFilter,
  ToolResultBudgetFilter,
} from '../../src/filters/index.js';
import { type ChatModel, OpenAICompatibleChatModel } from '../../src/llm/index.js';
import { MemoryConsolidator, MemoryWriter } from '../../src/memory/index.js';
import { ContextBuilder, resolveForLlm } from '../../src/presets/index.js';
import {
  JsonlRequestStore,
  PostgresRequestStore,
  RequestRecorder,
  SqliteRequestStore,
} from '../../src/recorder/index.js';
import {
  emptySessionRecord,
  getHistory,
  JsonlSessionStore,
  loadReplayedSession,
  MemorySessionStore,
  PostgresSessionStore,
  replaySession,
  SqliteSessionStore,
} from '../../src/sessions/index.js';
import { EstimatingTokenCounter } from '../../src/tokens/index.js';

/** A key no options object has; spread as `object` so each call still type-checks. */
const unknown: object = { bogusOption: 1 };
const model: ChatModel = {
  specificationVersion: 'v1',
  id: 'test:never',
  generate: () => Promise.reject(new Error('not called')),
};
const store = new MemorySessionStore();
const governor = new ContextGovernor();
const record = emptySessionRecord('s');
const budget = {
  contextWindowTokens: 10_000,
  maxOutputTokens: 1_000,
  tokenCounter: new EstimatingTokenCounter(),
};

/** Every public factory that takes an options object: where its messages say the options belong, and a call with one unknown key. */
const factories: readonly (readonly [string, () => unknown])[] = [
  ['ContextBuilder.forChat options', () => ContextBuilder.forChat({ ...unknown })],
  ['ContextBuilder.forReact options', () => ContextBuilder.forReact({ ...unknown })],
  ['ContextBuilder.forSkill options', () => ContextBuilder.forSkill({ ...unknown })],
  ['ContextBuilder.forAgent options', () => ContextBuilder.forAgent({ workspace: '/w', ...unknown })],
  [
    'ContextBuilder.forAgent options.governor',
    () => ContextBuilder.forAgent({ workspace: '/w', governor: { ...unknown } }),
  ],
  [
    'ContextBuilder.forAgent options.governor.offload',
    () => ContextBuilder.forAgent({ workspace: '/w', governor: { offload: { ...unknown } } }),
  ],
  [
    'ContextBuilder.forAgent options.skills',
    () => ContextBuilder.forAgent({ workspace: '/w', skills: { ...unknown } }),
  ],
  [
    'ContextBuilder.forAgent options.recentHistory',
    () => ContextBuilder.forAgent({ workspace: '/w', recentHistory: { ...unknown } }),
  ],
  [
    'ContextBuilder.forAgent options.currentMessage',
    () => ContextBuilder.forAgent({ workspace: '/w', currentMessage: { ...unknown } }),
  ],
  [
    'ContextBuilder.forAgent options.bootstrap',
    () => ContextBuilder.forAgent({ workspace: '/w', bootstrap: { ...unknown } }),
  ],
  [
    'ContextBuilder.forChat options.runtimePrompt',
    () => ContextBuilder.forChat({ runtimePrompt: { ...unknown } }),
  ],
  ['ContextBuilder.forChat options.prompts', () => ContextBuilder.forChat({ prompts: { ...unknown } })],
  ['resolveForLlm options', () => resolveForLlm({ ...unknown })],
  ['new ContextGovernor options', () => new ContextGovernor({ ...unknown })],
  ['new ContextGovernor options.offload', () => new ContextGovernor({ offload: { ...unknown } })],
  ['new BackfillToolResultsFilter options', () => new BackfillToolResultsFilter({ ...unknown })],
  ['new BudgetGuardFilter options', () => new BudgetGuardFilter({ budgetTokens: 1, ...unknown })],
  ['new DropOrphanToolResultsFilter options', () => new DropOrphanToolResultsFilter({ ...unknown })],
  [
    'new InflightCompactionFilter options',
    () => new InflightCompactionFilter({ budgetTokens: 1, ...unknown }),
  ],
  ['new JoinSystemMessagesFilter options', () => new JoinSystemMessagesFilter({ ...unknown })],
  [
    'new KeepOverBudgetFilter options',
    () => new KeepOverBudgetFilter({ filter: new SanitizeToolCallsFilter(), ...unknown }),
  ],
  ['new MaxMessagesFilter options', () => new MaxMessagesFilter({ maxMessages: 1, ...unknown })],
  ['new MergeCurrentMessageFilter options', () => new MergeCurrentMessageFilter({ ...unknown })],
  ['new RoleAlternationFilter options', () => new RoleAlternationFilter({ ...unknown })],
  ['new SanitizeToolCallsFilter options', () => new SanitizeToolCallsFilter({ ...unknown })],
  ['new SnipHistoryFilter options', () => new SnipHistoryFilter({ budgetTokens: 1, ...unknown })],
  ['new StripMalformedToolCallsFilter options', () => new StripMalformedToolCallsFilter({ ...unknown })],
  [
    'new StripPlaceholderAssistantsFilter options',
    () => new StripPlaceholderAssistantsFilter({ ...unknown }),
  ],
  ['new TokenBudgetFilter options', () => new TokenBudgetFilter({ maxTokens: 1, ...unknown })],
  ['new ToolResultBudgetFilter options', () => new ToolResultBudgetFilter({ ...unknown })],
  [
    'new ToolResultBudgetFilter options.offload',
    () => new ToolResultBudgetFilter({ offload: { ...unknown } }),
  ],
  ['new MemorySessionStore options', () => new MemorySessionStore({ ...unknown })],
  ['new JsonlSessionStore options', () => new JsonlSessionStore({ dir: '/nowhere', ...unknown })],
  ['new SqliteSessionStore options', () => new SqliteSessionStore({ path: ':memory:', ...unknown })],
  [
    'new PostgresSessionStore options',
    () => new PostgresSessionStore({ connectionString: 'postgres://nowhere/db', ...unknown }),
  ],
  ['getHistory options', () => getHistory(record, { ...unknown })],
  ['replaySession options', () => replaySession(record, { ...budget, ...unknown })],
  [
    'loadReplayedSession options',
    () => loadReplayedSession(store, { sessionKey: 's', ...budget, ...unknown }),
  ],
  [
    'new MemoryConsolidator options',
    () => new MemoryConsolidator({ workspace: '/w', store, model, ...budget, ...unknown }),
  ],
  ['new MemoryWriter options', () => new MemoryWriter({ workspace: '/w', model, ...unknown })],
  ['toAnthropicMessages options', () => toAnthropicMessages([], { ...unknown })],
  ['toAnthropicMessages options.cache', () => toAnthropicMessages([], { cache: { ...unknown } })],
  [
    'toAnthropicMessages options.cacheBreakpoints',
    () => toAnthropicMessages([], { cacheBreakpoints: { ...unknown } }),
  ],
  ['toOpenAIChatMessages options', () => toOpenAIChatMessages([], { ...unknown })],
  ['toOpenAIResponsesInput options', () => toOpenAIResponsesInput([], { ...unknown })],
  ['fromAnthropicMessages options', () => fromAnthropicMessages({ messages: [] }, { ...unknown })],
  ['fromOpenAIChatMessages options', () => fromOpenAIChatMessages([], { ...unknown })],
  ['fromOpenAIResponsesInput options', () => fromOpenAIResponsesInput([], { ...unknown })],
  ['toAiSdkMessages options', () => toAiSdkMessages([], { ...unknown })],
  ['fromAiSdkMessages options', () => fromAiSdkMessages([], { ...unknown })],
  ['openAIPromptCacheParams options', () => openAIPromptCacheParams({ sessionKey: 's', ...unknown })],
  [
    'anthropicPromptCacheRequest options',
    () => anthropicPromptCacheRequest({ messages: [] }, { ...unknown }),
  ],
  ['openAIPromptCacheRequest options', () => openAIPromptCacheRequest({ messages: [] }, { ...unknown })],
  ['messagesPromptCacheRequest options', () => messagesPromptCacheRequest([], { ...unknown })],
  ['planCacheBreakpoints options', () => planCacheBreakpoints({ messages: [] }, { ...unknown })],
  ['planCacheAwareTrim options', () => planCacheAwareTrim([], { budgetTokens: 1, ...unknown })],
  ['simulatePromptCache options', () => simulatePromptCache([], { provider: 'openai', ...unknown })],
  ['diffRequests options', () => diffRequests([], [], { ...unknown })],
  ['findVolatileContent options', () => findVolatileContent([], { ...unknown })],
  ['normalizeUsage options', () => normalizeUsage({}, { ...unknown })],
  [
    'new UsageCalibratedTokenCounter options',
    () => new UsageCalibratedTokenCounter(new EstimatingTokenCounter(), { ...unknown }),
  ],
  ['new VolatileContentCheck options', () => new VolatileContentCheck({ ...unknown })],
  ['new CacheAwareTrimFilter options', () => new CacheAwareTrimFilter({ maxTokens: 1, ...unknown })],
  ['new JsonlRequestStore options', () => new JsonlRequestStore({ dir: '/nowhere', ...unknown })],
  ['new SqliteRequestStore options', () => new SqliteRequestStore({ path: ':memory:', ...unknown })],
  [
    'new PostgresRequestStore options',
    () => new PostgresRequestStore({ connectionString: 'postgres://nowhere/db', ...unknown }),
  ],
  [
    'new RequestRecorder options',
    () => new RequestRecorder({ store: new JsonlRequestStore({ dir: '/nowhere' }), ...unknown }),
  ],
  ['createPrepareStep options', () => createPrepareStep({ governor }, { ...unknown })],
  ['createPrepareStep options.cache', () => createPrepareStep({ governor }, { cache: { ...unknown } })],
  ['ctxloomMiddleware options', () => ctxloomMiddleware({ governor }, { ...unknown })],
  ['ctxloomMiddleware options.cache', () => ctxloomMiddleware({ governor }, { cache: { ...unknown } })],
  ['new AiSdkChatModel options', () => new AiSdkChatModel({ model: 'openai/gpt-4o', ...unknown })],
  [
    'new OpenAICompatibleChatModel options',
    () => new OpenAICompatibleChatModel({ baseURL: 'http://localhost:1', model: 'm', ...unknown }),
  ],
  [
    'new OpenAICompatibleChatModel options.promptCache',
    () =>
      new OpenAICompatibleChatModel({
        baseURL: 'http://localhost:1',
        model: 'm',
        promptCache: { sessionKey: 's', ...unknown },
      }),
  ],
];

async function errorOf(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('unknown options', () => {
  it.each(factories)(
    '%s: an unknown key is an INVALID_OPTIONS error naming it and where it was',
    async (where, run) => {
      const error = await errorOf(run);
      expect(ContextError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'INVALID_OPTIONS' });
      expect((error as ContextError).message).toContain(`Unknown option bogusOption in ${where}.`);
      expect((error as ContextError).details['unknown']).toEqual([{ key: 'bogusOption', where }]);
    },
  );

  it('forChat({ maxTokens }) suggests maxInputTokens instead of building without a budget', () => {
    expect(() => ContextBuilder.forChat({ maxTokens: 8000 } as never)).toThrow(
      'Unknown option maxTokens in ContextBuilder.forChat options; did you mean maxInputTokens?',
    );
  });

  it("forAgent({ onOverBudget: 'keep' }) says the option belongs under governor", () => {
    expect(() => ContextBuilder.forAgent({ workspace: '/w', onOverBudget: 'keep' } as never)).toThrow(
      'Unknown option onOverBudget in ContextBuilder.forAgent options; it belongs under governor: pass { governor: { onOverBudget } } (at ContextBuilder.forAgent options.governor.onOverBudget).',
    );
  });

  it('forAgent governor settings the preset sets itself belong at the top level', () => {
    expect(() =>
      ContextBuilder.forAgent({ workspace: '/w', governor: { contextWindowTokens: 128_000 } } as never),
    ).toThrow(
      'Unknown option contextWindowTokens in ContextBuilder.forAgent options.governor; it belongs one level up, next to governor (not inside it).',
    );
  });

  it('accepts the observer and checks every preset takes, and resolveForLlm passes the skill fields on', () => {
    expect(() =>
      ContextBuilder.forChat({
        observer: { specificationVersion: 'v1', id: 'o', observeRequest: () => undefined },
        checks: [],
      }),
    ).not.toThrow();
    expect(() =>
      resolveForLlm({ preferReact: true, skillSet: [], allowSkillContext: false, toolsDesc: 'x' }),
    ).not.toThrow();
  });
});
