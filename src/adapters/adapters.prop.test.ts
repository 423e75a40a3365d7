import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { anthropicRequestSchema } from '../../test/fixtures/schemas/anthropic-messages-request.js';
import { openAIChatRequestMessagesSchema } from '../../test/fixtures/schemas/openai-chat-request.js';
import type { Message } from '../core/message.js';
import { ContextGovernor } from '../filters/context-governor.js';
import { conversationArbitrary, malformedConversationArbitrary } from '../testing/arbitraries.js';
import { fromOpenAIChatMessages } from './from-openai-chat-messages.js';
import { toAnthropicMessages } from './to-anthropic-messages.js';
import { toOpenAIChatMessages } from './to-openai-chat-messages.js';

const governor = new ContextGovernor({ contextWindowTokens: 1_000_000, maxToolResultChars: 200 });
const anyConversation = fc.oneof(malformedConversationArbitrary(), conversationArbitrary());
const issues = (result: { success: boolean; error?: { issues: unknown } }): unknown =>
  result.success ? [] : result.error?.issues;

describe('adapters over governed arbitrary histories', () => {
  test.prop({ messages: anyConversation }, { numRuns: 150 })(
    'every request passes the providers’ published formats',
    async ({ messages }) => {
      const governed = (await governor.prepareForModel(messages)).messages;

      const openai = toOpenAIChatMessages(governed).messages;
      expect(issues(openAIChatRequestMessagesSchema.safeParse(openai))).toEqual([]);

      const anthropic = toAnthropicMessages(governed);
      if (governed.some((message) => message.role !== 'system')) {
        expect(
          issues(
            anthropicRequestSchema.safeParse({
              ...(anthropic.system === undefined ? {} : { system: anthropic.system }),
              messages: anthropic.messages,
            }),
          ),
        ).toEqual([]);
      } else {
        expect(anthropic.messages).toEqual([]);
      }
    },
  );

  test.prop({ messages: anyConversation }, { numRuns: 150 })(
    'round trips keep everything the warnings do not name',
    async ({ messages }) => {
      const governed = (await governor.prepareForModel(messages)).messages;
      const openai = toOpenAIChatMessages(governed);
      if (openai.warnings.length === 0) {
        const back = fromOpenAIChatMessages(openai.messages).messages;
        // Ids and metadata are ctxloom bookkeeping, never sent to a provider.
        const strip = (list: readonly Message[]) =>
          list.map(({ id: _id, metadata: _metadata, ...rest }) => rest);
        expect(strip(back)).toEqual(strip(governed));
      }
    },
  );
});
