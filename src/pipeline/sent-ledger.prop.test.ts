import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { apportionTokens } from '../core/apportion-tokens.js';
import { type Message, sectionOf } from '../core/message.js';
import { withTokenCache } from '../tokens/cached-token-counter.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import { SentLedger } from './sent-ledger.js';

const counter = withTokenCache(new SimpleTokenCounter());
const SECTIONS = ['identity', 'memory', 'history', 'current-message'] as const;

let made = 0;

/** A message of one section, one joined from several (`metadata.parts`), or one with no section. */
const messageArbitrary = fc
  .record({
    text: fc.string({ maxLength: 30 }),
    section: fc.option(fc.constantFrom(...SECTIONS), { nil: undefined }),
    parts: fc.option(
      fc.array(fc.record({ section: fc.constantFrom(...SECTIONS), chars: fc.nat(50) }), {
        minLength: 2,
        maxLength: 3,
      }),
      { nil: undefined, freq: 4 },
    ),
  })
  .map(({ text, section, parts }): Message => {
    const metadata = {
      ...(section === undefined ? {} : { section }),
      ...(parts === undefined ? {} : { parts }),
    };
    made += 1;
    return {
      id: `m${made}`,
      role: 'user',
      content: text,
      ...(Object.keys(metadata).length === 0 ? {} : { metadata }),
    };
  });

/** Lists sent build after build: a block cut from the front, messages appended, some replaced or moved. */
const builds = fc
  .record({
    pool: fc.array(messageArbitrary, { minLength: 1, maxLength: 30 }),
    steps: fc.array(
      fc.record({ cut: fc.nat(4), take: fc.nat(5), swap: fc.option(fc.nat(), { nil: undefined }) }),
      { maxLength: 10 },
    ),
  })
  .map(({ pool, steps }) => {
    let cursor = 0;
    let list: Message[] = [];
    const lists: (readonly Message[])[] = [];
    for (const step of steps) {
      list = [...list.slice(step.cut), ...pool.slice(cursor, cursor + step.take)];
      cursor = (cursor + step.take) % pool.length;
      if (step.swap !== undefined && list.length > 0)
        list[step.swap % list.length] = pool[step.swap % pool.length] as Message;
      lists.push(list);
    }
    return lists;
  });

/** The sections of `list` computed directly: one pass, each section where it first appears. */
function directSections(list: readonly Message[]) {
  const totals = new Map<string, { messages: number; tokens: number; partOf?: string }>();
  const add = (section: string, row: { messages: number; tokens: number; partOf?: string }) => {
    const entry = totals.get(section);
    if (entry === undefined) totals.set(section, { ...row });
    else {
      entry.messages += row.messages;
      entry.tokens += row.tokens;
    }
  };
  for (const message of list) {
    const tokens = counter.countMessage(message);
    const parts = message.metadata?.['parts'] as { section: string; chars: number }[] | undefined;
    if (parts === undefined) {
      add(sectionOf(message) ?? 'unknown', { messages: 1, tokens });
      continue;
    }
    const shares = apportionTokens(
      tokens,
      parts.map((part) => part.chars),
    );
    parts.forEach((part, index) => {
      add(part.section, {
        messages: index === 0 ? 1 : 0,
        tokens: shares[index] ?? 0,
        partOf: sectionOf(message) ?? 'unknown',
      });
    });
  }
  return [...totals].map(([section, entry]) => ({ section, ...entry }));
}

describe('SentLedger', () => {
  test.prop([builds], { numRuns: 300 })(
    'kept up to date build after build, gives what a fresh ledger gives: the tokens, each message’s, the sections in order',
    (lists) => {
      const ledger = new SentLedger(counter);
      for (const list of lists) {
        const kept = ledger.update(list);
        const fresh = new SentLedger(counter).update(list);
        expect(kept.tokens).toBe(fresh.tokens);
        expect(kept.tokens).toBe(counter.countMessages(list));
        expect(kept.sections).toEqual(fresh.sections);
        expect(kept.sections).toEqual(directSections(list));
        expect(kept.sections.reduce((sum, row) => sum + row.tokens, 0)).toBe(kept.tokens);
        for (const message of list) expect(kept.tokensOf(message)).toBe(counter.countMessage(message));
      }
    },
  );
});
