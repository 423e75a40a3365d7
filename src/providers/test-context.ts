import { createSequentialIdGenerator } from '../core/ids.js';
import type { BuildContext } from '../pipeline/contracts.js';
import { SimpleTokenCounter } from '../tokens/simple-token-counter.js';

/**
 * A deterministic {@link BuildContext} for provider tests (sequential ids, a fixed clock).
 * @internal
 */
export function testBuildContext(signal?: AbortSignal): BuildContext {
  return {
    tokenCounter: new SimpleTokenCounter(),
    now: () => 0,
    generateId: createSequentialIdGenerator('p'),
    debug: false,
    ...(signal === undefined ? {} : { signal }),
  };
}
