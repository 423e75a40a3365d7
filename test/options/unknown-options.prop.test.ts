import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { toAnthropicMessages } from '../../src/adapters/index.js';
import { TO_ANTHROPIC_MESSAGES_OPTION_KEYS } from '../../src/adapters/to-anthropic-messages.js';
import { ContextError } from '../../src/core/index.js';
import { TOKEN_BUDGET_FILTER_OPTION_KEYS, TokenBudgetFilter } from '../../src/filters/token-budget-filter.js';
import {
  OPENAI_COMPATIBLE_CHAT_MODEL_OPTION_KEYS,
  OpenAICompatibleChatModel,
} from '../../src/llm/openai-compatible-chat-model.js';
import { ContextBuilder, PRESET_OBSERVER_OPTION_KEYS } from '../../src/presets/context-builder.js';
import { AGENT_PRESET_OPTION_KEYS } from '../../src/presets/for-agent.js';
import { CHAT_PRESET_OPTION_KEYS } from '../../src/presets/for-chat.js';
import {
  JSONL_SESSION_STORE_OPTION_KEYS,
  JsonlSessionStore,
} from '../../src/sessions/jsonl-session-store.js';

type Factory = {
  readonly name: string;
  readonly known: readonly string[];
  /** Calls the factory with its required options plus `extra`. */
  readonly call: (extra: object) => unknown;
};

const factories: readonly Factory[] = [
  {
    name: 'ContextBuilder.forChat',
    known: Object.keys({ ...CHAT_PRESET_OPTION_KEYS, ...PRESET_OBSERVER_OPTION_KEYS }),
    call: (extra) => ContextBuilder.forChat({ ...extra }),
  },
  {
    name: 'ContextBuilder.forAgent',
    known: Object.keys({ ...AGENT_PRESET_OPTION_KEYS, ...PRESET_OBSERVER_OPTION_KEYS }),
    call: (extra) => ContextBuilder.forAgent({ workspace: '/w', ...extra }),
  },
  {
    name: 'new TokenBudgetFilter',
    known: Object.keys(TOKEN_BUDGET_FILTER_OPTION_KEYS),
    call: (extra) => new TokenBudgetFilter({ maxTokens: 100, ...extra }),
  },
  {
    name: 'new JsonlSessionStore',
    known: Object.keys(JSONL_SESSION_STORE_OPTION_KEYS),
    call: (extra) => new JsonlSessionStore({ dir: '/nowhere', ...extra }),
  },
  {
    name: 'toAnthropicMessages',
    known: Object.keys(TO_ANTHROPIC_MESSAGES_OPTION_KEYS),
    call: (extra) => toAnthropicMessages([], { ...extra }),
  },
  {
    name: 'new OpenAICompatibleChatModel',
    known: Object.keys(OPENAI_COMPATIBLE_CHAT_MODEL_OPTION_KEYS),
    call: (extra) => new OpenAICompatibleChatModel({ baseURL: 'http://localhost:1', model: 'm', ...extra }),
  },
];

function thrownBy(call: () => unknown): unknown {
  try {
    call();
    return undefined;
  } catch (error) {
    return error;
  }
}

function isUnknownOptionError(error: unknown): boolean {
  return ContextError.isInstance(error) && error.code === 'INVALID_OPTIONS' && 'unknown' in error.details;
}

describe.each(factories)('$name options', ({ known, call }) => {
  test.prop([fc.subarray([...known])])('accepts every known key (left undefined: the default)', (keys) => {
    const options = Object.fromEntries(keys.map((key) => [key, undefined]));
    expect(isUnknownOptionError(thrownBy(() => call(options)))).toBe(false);
  });

  const otherKey = fc
    .oneof(
      fc.string({ minLength: 1, maxLength: 20 }),
      fc.constantFrom('toString', 'constructor', '__proto__'),
    )
    .filter((key) => !known.includes(key));
  test.prop([otherKey, fc.anything(), fc.subarray([...known])])(
    'rejects any other key, whatever its value, naming it',
    (key, value, keys) => {
      const options = { ...Object.fromEntries(keys.map((name) => [name, undefined])) };
      Object.defineProperty(options, key, { value, enumerable: true, configurable: true, writable: true });
      const error = thrownBy(() => call(options));
      expect(isUnknownOptionError(error)).toBe(true);
      expect((error as ContextError).details['unknown']).toEqual([expect.objectContaining({ key })]);
    },
  );
});
