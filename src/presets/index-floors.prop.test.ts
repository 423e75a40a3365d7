import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { IndexFloors } from './index-floors.js';

type Operation =
  | { readonly kind: 'set'; readonly index: number; readonly floor: number }
  | { readonly kind: 'forget-below'; readonly index: number }
  | { readonly kind: 'session'; readonly session: 'a' | 'b' }
  | { readonly kind: 'clear' };

const operation = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('set' as const), index: fc.nat(200), floor: fc.nat(5000) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forget-below' as const), index: fc.nat(220) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('session' as const), session: fc.constantFrom('a', 'b') }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const) }) },
) as fc.Arbitrary<Operation>;

/** A map of index to floor: what {@link IndexFloors} must answer. */
class FloorModel {
  readonly floors = new Map<number, number>();
  session: string | undefined;

  apply(step: Operation): void {
    const { floors } = this;
    if (step.kind === 'set') floors.set(step.index, step.floor);
    else if (step.kind === 'forget-below') {
      for (const index of [...floors.keys()]) if (index < step.index) floors.delete(index);
    } else if (step.kind === 'clear' || step.session !== this.session) floors.clear();
    if (step.kind === 'session') this.session = step.session;
  }
}

function applyTo(floors: IndexFloors, step: Operation): void {
  if (step.kind === 'set') floors.set(step.index, step.floor);
  else if (step.kind === 'forget-below') floors.forgetBelow(step.index);
  else if (step.kind === 'session') floors.useSession(step.session);
  else floors.clear();
}

describe('IndexFloors', () => {
  test.prop([fc.array(operation, { maxLength: 80 })], { numRuns: 100 })(
    'answers what a map of index to floor answers, after any sets, forgets, session changes and clears',
    (operations) => {
      const floors = new IndexFloors();
      const model = new FloorModel();
      for (const step of operations) {
        applyTo(floors, step);
        model.apply(step);
        for (let index = 0; index <= 220; index += 1) expect(floors.get(index)).toBe(model.floors.get(index));
      }
    },
  );

  it('forgets what falls below the walk as it moves up a growing history', () => {
    const floors = new IndexFloors();
    // The first walk goes down from the newest message, 5,000 of them.
    for (let index = 5_399; index >= 400; index -= 1) floors.set(index, 7);
    expect(floors.get(400)).toBe(7);
    for (let turn = 0; turn < 10_000; turn += 1) {
      floors.set(turn + 400, 7);
      floors.forgetBelow(turn);
    }
    expect(floors.get(9_999)).toBe(7);
    expect(floors.get(10_399)).toBe(7);
    expect(floors.get(10_400)).toBeUndefined(); // never set
    expect(floors.get(9_998)).toBeUndefined(); // forgotten
    floors.set(5, 3); // below the walk again: covered anew
    expect(floors.get(5)).toBe(3);
    expect(floors.get(10_399)).toBe(7);
  });
});
