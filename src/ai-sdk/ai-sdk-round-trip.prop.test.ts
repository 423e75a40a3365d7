import { test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  canonicalJson,
  modelMessagesArbitrary,
} from '../../test/fixtures/ai-sdk/model-message-arbitraries.js';
import { fromAiSdkMessages } from './from-ai-sdk-messages.js';
import { toAiSdkMessages } from './to-ai-sdk-messages.js';

describe('AI SDK 6 ModelMessages survive JSON (a store, a new process) without origins', () => {
  test.prop([modelMessagesArbitrary()], { numRuns: 300 })(
    'toAiSdkMessages(JSON(fromAiSdkMessages(x))) is x in canonical JSON',
    (input) => {
      const read = fromAiSdkMessages(input);
      const stored = JSON.parse(JSON.stringify(read.messages));
      expect(stored).toEqual(read.messages);
      const back = toAiSdkMessages(stored);
      expect(back.warnings).toEqual([]);
      expect(canonicalJson(back.messages)).toBe(canonicalJson(input));
    },
  );

  test.prop([modelMessagesArbitrary({ maxUnits: 4 })])(
    'reads what it wrote: from(to(from(x))) is from(x)',
    (input) => {
      const read = fromAiSdkMessages(input).messages;
      const again = fromAiSdkMessages(toAiSdkMessages(read).messages).messages;
      expect(again).toEqual(read);
    },
  );
});
