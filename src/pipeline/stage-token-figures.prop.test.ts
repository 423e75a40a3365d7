import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { Message } from '../core/message.js';
import { CachedTokenCounter } from '../tokens/cached-token-counter.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { SentLedger } from './sent-ledger.js';
import { roughMessageTokens, StageTokenFigures } from './stage-token-figures.js';

let made = 0;
const messageArbitrary = fc.string({ maxLength: 40 }).map((text): Message => {
  made += 1;
  return { id: `m${made}`, role: 'user', content: text };
});

/** The lists of one build: a pool, the list sent, a stage's list and one derived from it (shared messages, some not sent). */
const lists = fc
  .record({
    pool: fc.array(messageArbitrary, { minLength: 1, maxLength: 40 }),
    sent: fc.array(fc.nat(), { maxLength: 40 }),
    stage: fc.array(fc.nat(), { maxLength: 60 }),
    derived: fc.array(fc.oneof(fc.nat(), fc.constant(-1)), { maxLength: 60 }),
    counted: fc.array(fc.nat(), { maxLength: 10 }),
  })
  .map(({ pool, sent, stage, derived, counted }) => {
    const pick = (index: number) => pool[index % pool.length] as Message;
    const stageList = stage.map(pick);
    return {
      sent: sent.map(pick),
      stage: stageList,
      // -1 keeps the stage list's message at that position (a list derived from it), else another one.
      derived: derived.map((index, position) =>
        index === -1 ? (stageList[position] ?? pick(0)) : pick(index),
      ),
      counted: counted.map(pick),
    };
  });

describe('StageTokenFigures', () => {
  test.prop([lists], { numRuns: 300 })(
    'a list’s figure, looked up by position in the list sent or derived from another list, is the sum of what is known about each message',
    ({ sent, stage, derived, counted }) => {
      const counter = new CachedTokenCounter({ counter: new SimpleTokenCounter() });
      for (const message of counted) counter.countMessage(message);
      const figures = new SentLedger(counter).update(sent);
      const known = (message: Message) => figures.tokensOf(message) ?? counter.knownMessageCount(message);
      const direct = (list: readonly Message[]) => ({
        tokens: list.reduce((sum, message) => sum + (known(message) ?? roughMessageTokens(message)), 0),
        estimated: list.filter((message) => known(message) === undefined).length,
      });
      const stageFigures = new StageTokenFigures({
        counter,
        sent: figures.tokensOf,
        final: { messages: sent, tokens: figures.tokens, tokensAt: figures.tokensAt },
      });
      expect(stageFigures.of(stage)).toEqual(direct(stage));
      expect(stageFigures.of(derived, stage)).toEqual(direct(derived));
      expect(stageFigures.of(sent)).toEqual({ tokens: counter.countMessages(sent), estimated: 0 });
    },
  );
});
