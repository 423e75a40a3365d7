import { checkOptions, type OptionKeys } from '../core/check-options.js';
import { createSequentialIdGenerator } from '../core/ids.js';
import type { Message } from '../core/message.js';
import type { BuildInput } from '../pipeline/build-input.js';
import { ContextBuilder } from '../presets/context-builder.js';
import type { ChatPresetOptions } from '../presets/for-chat.js';
import type { EvalStrategy } from './eval-strategy.js';

/** Options for {@link chatPresetStrategy}. */
export type ChatPresetStrategyOptions = {
  /** @default 'ctxloom-for-chat' */
  readonly id?: string;
  /** @default 'ctxloom forChat (maxInputTokens)' */
  readonly label?: string;
  /** More `forChat` options (the system prompt, budget and counter come from the run). @default {} */
  readonly chat?: Omit<ChatPresetOptions, 'systemPrompt' | 'maxInputTokens' | 'tokenCounter'>;
  /**
   * Whether this is a default configuration the invariants apply to. forChat is the preset for chat
   * turns; in a tool loop its token budget pins the last message only when it is a user message, so
   * a later step may trim the turn's user request (the eval reports it). @default false
   */
  readonly isDefault?: boolean;
};

const CHAT_PRESET_STRATEGY_OPTION_KEYS = {
  id: true,
  label: true,
  chat: true,
  isDefault: true,
} as const satisfies OptionKeys<ChatPresetStrategyOptions>;

/**
 * `ContextBuilder.forChat` with `maxInputTokens` set to the run's budget: each turn is built from the
 * stored history and the user message; each later step of a tool loop runs the filters over the
 * turn's request plus the in-flight messages (`transform`), as a tool loop would.
 */
export function chatPresetStrategy(options: ChatPresetStrategyOptions = {}): EvalStrategy {
  checkOptions(options, { where: 'chatPresetStrategy options', known: CHAT_PRESET_STRATEGY_OPTION_KEYS });
  return {
    specificationVersion: 'v1',
    id: options.id ?? 'ctxloom-for-chat',
    label: options.label ?? 'ctxloom forChat (maxInputTokens)',
    usesSummariser: false,
    isDefault: options.isDefault ?? false,
    anthropicCache: 'planned',
    async start(setup) {
      const builder = ContextBuilder.forChat({
        ...options.chat,
        systemPrompt: setup.systemPrompt,
        maxInputTokens: setup.budgetTokens,
        tokenCounter: setup.tokenCounter,
        generateId: createSequentialIdGenerator('eval'),
      });
      let turnStart: readonly Message[] = [];
      return {
        async messagesFor(call) {
          const input: BuildInput = {
            tools: setup.tools,
            ...(setup.signal === undefined ? {} : { signal: setup.signal }),
          };
          if (call.step === 0) {
            turnStart = (await builder.build({ ...input, history: call.history, current: call.user.content }))
              .messages;
            return turnStart;
          }
          return (await builder.transform([...turnStart, ...call.inflight], input)).messages;
        },
      };
    },
  };
}
