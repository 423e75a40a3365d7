/**
 * Lets a file written just now age past a `WorkspaceFileCache` with `settleMs: 0`, so its change time
 * is in the past and the cache may reuse what it read.
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5));
}
