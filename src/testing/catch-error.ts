/**
 * Runs `run` and returns what it threw; fails the test (throws) when it did not throw, so an
 * assertion on the result can never pass vacuously.
 */
export function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, but nothing was thrown');
}
