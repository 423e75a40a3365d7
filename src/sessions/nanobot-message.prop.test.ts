import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { messageArbitrary } from '../testing/arbitraries.js';
import { fromNanobotDict, toNanobotDict } from './nanobot-message.js';

const extraFields = fc.dictionary(
  fc.constantFrom('media', '_command', 'thinking_blocks', 'latency_ms', 'sender_id', '_channel_delivery'),
  fc.jsonValue(),
  { maxKeys: 3 },
);

describe('nanobot message conversion', () => {
  test.prop([messageArbitrary()])(
    'round-trips every Message through the nanobot dict and JSON',
    (message) => {
      const line = JSON.stringify(toNanobotDict(message));
      expect(fromNanobotDict(JSON.parse(line), 'unused')).toEqual(JSON.parse(JSON.stringify(message)));
    },
  );

  test.prop([fc.constantFrom('user', 'assistant', 'tool', 'system'), fc.string(), extraFields])(
    'keeps nanobot fields it does not model when writing back',
    (role, content, extra) => {
      const dict = JSON.parse(JSON.stringify({ role, content, timestamp: '2026-01-01T00:00:00', ...extra }));
      const message = fromNanobotDict(dict, 'id-1');
      if (typeof message === 'string') throw new Error(message);
      expect(toNanobotDict(message)).toEqual({ ...dict, id: 'id-1' });
    },
  );
});
