import type { ObservedUsage } from '../pipeline/request-observer.js';

/** A request an observer remembers, to match usage reports to. */
export type RecentRequest<TValue> = {
  readonly id: string;
  readonly runId?: string;
  readonly stepNumber?: number;
  readonly value: TValue;
};

/**
 * The last `capacity` requests an observer saw, for matching a usage report: by `requestId`, else
 * by `runId` + `stepNumber`, else the latest request not matched yet. @internal
 */
export class RecentRequests<TValue> {
  readonly #capacity: number;
  readonly #entries: RecentRequest<TValue>[] = [];
  readonly #matched = new Set<string>();

  constructor(capacity = 512) {
    this.#capacity = capacity;
  }

  add(entry: RecentRequest<TValue>): void {
    this.#entries.push(entry);
    for (const evicted of this.#entries.splice(0, Math.max(0, this.#entries.length - this.#capacity))) {
      this.#matched.delete(evicted.id);
    }
  }

  /** The request a usage report is for (marked as matched), or `undefined`. */
  match(usage: ObservedUsage): RecentRequest<TValue> | undefined {
    const found =
      usage.requestId !== undefined
        ? this.#entries.find((entry) => entry.id === usage.requestId)
        : usage.runId !== undefined && usage.stepNumber !== undefined
          ? this.#entries.findLast(
              (entry) => entry.runId === usage.runId && entry.stepNumber === usage.stepNumber,
            )
          : this.#entries.findLast((entry) => !this.#matched.has(entry.id));
    if (found !== undefined) this.#matched.add(found.id);
    return found;
  }
}
