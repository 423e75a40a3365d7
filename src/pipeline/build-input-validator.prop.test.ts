import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { ContextError } from '../core/errors.js';
import type { Message } from '../core/message.js';
import { BuildInputValidator } from './build-input-validator.js';

let made = 0;

/** A message, or (one in five) an item with a bad field that the shape check must name. */
const itemArbitrary = fc.integer({ min: 0, max: 4 }).map((kind): unknown => {
  made += 1;
  if (kind === 0) return { id: `bad${made}`, role: 'usr', content: 'x' };
  return { id: `m${made}`, role: kind % 2 === 0 ? 'user' : 'assistant', content: `text ${made}` };
});

/** How a caller may derive the next list from the last one it passed (sessions `a` and `b`). */
const stepArbitrary = fc.record({
  session: fc.constantFrom('a', 'b'),
  cut: fc.nat(6),
  prepended: fc.array(itemArbitrary, { maxLength: 2 }),
  appended: fc.array(itemArbitrary, { maxLength: 4 }),
  replacedAt: fc.option(fc.nat(20), { nil: undefined }),
  replacement: itemArbitrary,
  sameArray: fc.boolean(),
});

/** Where a check of `history` fails (`history[3].role`), or `ok`. */
function verdict(validator: BuildInputValidator, history: readonly unknown[], session: string): string {
  try {
    validator.checkInput({ history, sessionKey: session }, 'build');
    return 'ok';
  } catch (error) {
    if (ContextError.isInstance(error)) return String(error.details['path']);
    throw error;
  }
}

describe('BuildInputValidator across builds', () => {
  test.prop([fc.array(stepArbitrary, { minLength: 1, maxLength: 25 })], { numRuns: 300 })(
    'skipping what an earlier list shared gives the verdict a fresh validator gives',
    (steps) => {
      const warm = new BuildInputValidator();
      const lists = new Map<string, unknown[]>([
        ['a', []],
        ['b', []],
      ]);
      for (const step of steps) {
        const before = lists.get(step.session) ?? [];
        const kept = before.slice(Math.min(step.cut, before.length));
        if (step.replacedAt !== undefined && kept.length > 0)
          kept[step.replacedAt % kept.length] = step.replacement;
        const items = [...step.prepended, ...kept, ...step.appended];
        let next: unknown[] = items;
        if (
          step.sameArray &&
          step.cut === 0 &&
          step.prepended.length === 0 &&
          step.replacedAt === undefined
        ) {
          // The caller pushes to the array it passed last time.
          before.push(...step.appended);
          next = before;
        }
        const expected = verdict(new BuildInputValidator(), next, step.session);
        expect(verdict(warm, next, step.session)).toBe(expected);
        // Only a list that passed is the caller's list from now on (a failed build is retried fixed).
        if (expected === 'ok') lists.set(step.session, next);
      }
    },
  );

  it('reads only what is new in a list cut at the front, grown, and given a new first message', () => {
    const reads = new Set<number>();
    const watched = (index: number): Message =>
      new Proxy({ id: `m${index}`, role: 'user', content: `text ${index}` } as Message, {
        get(target, key, receiver) {
          reads.add(index);
          return Reflect.get(target, key, receiver);
        },
      });
    const history = Array.from({ length: 50 }, (_, index) => watched(index));
    const validator = new BuildInputValidator();
    validator.checkInput({ history, sessionKey: 's' }, 'build');
    expect(reads.size).toBe(50);
    reads.clear();
    const system = watched(100);
    validator.checkInput(
      { history: [system, ...history.slice(10), watched(50), watched(51)], sessionKey: 's' },
      'build',
    );
    expect([...reads].sort((left, right) => left - right)).toEqual([50, 51, 100]);
  });

  it('keeps the last list of each session, so alternating sessions check only what is new', () => {
    const reads = new Set<string>();
    const watched = (id: string): Message =>
      new Proxy({ id, role: 'user', content: id } as Message, {
        get(target, key, receiver) {
          reads.add(id);
          return Reflect.get(target, key, receiver);
        },
      });
    const first = [watched('a1'), watched('a2')];
    const second = [watched('b1'), watched('b2')];
    const validator = new BuildInputValidator();
    validator.checkInput({ history: first, sessionKey: 'a' }, 'build');
    validator.checkInput({ history: second, sessionKey: 'b' }, 'build');
    reads.clear();
    validator.checkInput({ history: [...first, watched('a3')], sessionKey: 'a' }, 'build');
    validator.checkInput({ history: [...second, watched('b3')], sessionKey: 'b' }, 'build');
    expect([...reads].sort()).toEqual(['a3', 'b3']);
  });
});
