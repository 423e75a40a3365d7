/** Runs `work` on every item, at most `limit` at a time, each worker taking the next item in order. */
export async function forEachLimited<T>(
  items: readonly T[],
  { limit, work }: { readonly limit: number; readonly work: (item: T) => Promise<void> },
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T; // next < length
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
