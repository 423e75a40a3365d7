/**
 * The AI SDK 7 shapes of `ModelMessage` (typed against `ai` 7, installed as `ai-v7`): tagged file data
 * (`{ type: 'data' | 'url' | 'reference' | 'text' }`), provider references, `custom` and
 * `reasoning-file` parts, `file` and `file-reference` tool output items, beside a generated AI SDK 6
 * history. Runs under Node 20 and, with `ai` resolved to AI SDK 7, under Node 24
 * (vitest.node24.config.ts).
 */
import { fc, test } from '@fast-check/vitest';
import type { ModelMessage } from 'ai-v7';
import { describe, expect } from 'vitest';
import {
  canonicalJson,
  modelMessagesArbitrary,
} from '../../test/fixtures/ai-sdk/model-message-arbitraries.js';
import { fromAiSdkMessages } from './from-ai-sdk-messages.js';
import { toAiSdkMessages } from './to-ai-sdk-messages.js';

type UserPart = Exclude<Extract<ModelMessage, { role: 'user' }>['content'], string>[number];
type AssistantPart = Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string>[number];
type ToolOutput = Extract<
  Exclude<Extract<ModelMessage, { role: 'tool' }>['content'][number], { type: 'tool-approval-response' }>,
  { type: 'tool-result' }
>['output'];

const cache = { anthropic: { cacheControl: { type: 'ephemeral' } } };
const bytes = fc.uint8Array({ maxLength: 6 });
const taggedData = fc.oneof(
  fc.record({ type: fc.constant('data' as const), data: fc.oneof(bytes, fc.constant('iVBORw0KGgo=')) }),
  fc.record({ type: fc.constant('url' as const), url: fc.constant(new URL('https://example.test/v7.png')) }),
  fc.record({ type: fc.constant('reference' as const), reference: fc.constant({ openai: 'file_7' }) }),
  fc.record({ type: fc.constant('text' as const), text: fc.constantFrom('file text', '') }),
);

const userPart: fc.Arbitrary<UserPart> = fc.oneof(
  fc.record(
    {
      type: fc.constant('file' as const),
      data: taggedData,
      mediaType: fc.constantFrom('image/png', 'application/pdf'),
      filename: fc.constant('v7.bin'),
    },
    { requiredKeys: ['type', 'data', 'mediaType'] },
  ),
  fc.record({ type: fc.constant('image' as const), image: fc.constant({ anthropic: 'file_ref_1' }) }),
);

const assistantPart: fc.Arbitrary<AssistantPart> = fc.oneof(
  fc.record({
    type: fc.constant('custom' as const),
    kind: fc.constantFrom('openai.compaction', 'anthropic.x' as const),
    providerOptions: fc.constant(cache),
  }),
  fc.record({
    type: fc.constant('reasoning-file' as const),
    data: fc.oneof(bytes, fc.record({ type: fc.constant('data' as const), data: fc.constant('AAAA') })),
    mediaType: fc.constant('image/png'),
  }),
  fc.record({
    type: fc.constant('reasoning' as const),
    text: fc.constant('v7'),
    providerOptions: fc.constant({ anthropic: { signature: 'sig-v7' } }),
  }),
);

const output: fc.Arbitrary<ToolOutput> = fc.record({
  type: fc.constant('content' as const),
  value: fc.array(
    fc.oneof(
      fc.record(
        {
          type: fc.constant('file' as const),
          data: taggedData,
          mediaType: fc.constantFrom('image/png', 'text/plain'),
          filename: fc.constant('o.txt'),
        },
        { requiredKeys: ['type', 'data', 'mediaType'] },
      ),
      fc.record({
        type: fc.constant('file-reference' as const),
        providerReference: fc.constant({ openai: 'file_9' }),
      }),
      fc.record({
        type: fc.constant('text' as const),
        text: fc.constant('seen'),
        providerOptions: fc.constant(cache),
      }),
    ),
    { maxLength: 3 },
  ),
});

/** An AI SDK 6 history (valid in 7) with a turn of AI SDK 7 shapes appended. */
const historyArbitrary: fc.Arbitrary<ModelMessage[]> = fc
  .tuple(
    modelMessagesArbitrary({ maxUnits: 3 }),
    fc.array(userPart, { minLength: 1, maxLength: 3 }),
    fc.array(assistantPart, { maxLength: 3 }),
    output,
  )
  .map(([history, user, assistant, result]): ModelMessage[] => [
    // AI SDK 6 ModelMessages are AI SDK 7 ModelMessages (7 widened every union it shares with 6).
    ...(history as ModelMessage[]),
    { role: 'user', content: user },
    {
      role: 'assistant',
      content: [
        ...assistant,
        { type: 'tool-call', toolCallId: 'v7_call', toolName: 'shot', input: { at: 1 } },
      ],
    },
    {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'v7_call', toolName: 'shot', output: result }],
    },
  ]);

describe('AI SDK 7 ModelMessages survive JSON (a store, a new process) without origins', () => {
  test.prop([historyArbitrary], { numRuns: 200 })(
    'toAiSdkMessages(JSON(fromAiSdkMessages(x))) is x in canonical JSON',
    (input) => {
      // fromAiSdkMessages takes the ModelMessage of the installed major; 7's is read the same way.
      const read = fromAiSdkMessages(input as Parameters<typeof fromAiSdkMessages>[0]);
      const stored = JSON.parse(JSON.stringify(read.messages));
      expect(stored).toEqual(read.messages);
      const back = toAiSdkMessages(stored);
      expect(back.warnings).toEqual([]);
      expect(canonicalJson(back.messages)).toBe(canonicalJson(input));
    },
  );
});
