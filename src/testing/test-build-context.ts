import { createSequentialIdGenerator, type IdGenerator } from '../core/ids.js';
import type { BuildContext } from '../pipeline/contracts.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** Options for {@link createTestBuildContext}. */
export type TestBuildContextOptions = {
  /** The counter filters fall back to. @default new SimpleTokenCounter() */
  readonly tokenCounter?: TokenCounter;
  /** Makes new ids. @default sequential ids `t-1`, `t-2`, … */
  readonly generateId?: IdGenerator;
};

/**
 * A deterministic {@link BuildContext} for calling a filter or provider directly in a test: a
 * fixed clock (always 0), sequential ids, no debug checks.
 */
export function createTestBuildContext(options: TestBuildContextOptions = {}): BuildContext {
  return {
    tokenCounter: options.tokenCounter ?? new SimpleTokenCounter(),
    now: () => 0,
    generateId: options.generateId ?? createSequentialIdGenerator('t'),
    debug: false,
  };
}
