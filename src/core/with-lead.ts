/**
 * `lead`, then the items of `list` from `skip + lead.length` on, in one copy (a slice of `list`
 * written over at its start): for a list whose first items stay or are replaced and whose next ones
 * go (a window moved, a joined system prompt, a snip).
 * @internal
 */
export function withLead<TItem>(
  list: readonly TItem[],
  cut: { readonly skip: number; readonly lead: readonly TItem[] },
): TItem[] {
  const out = list.slice(cut.skip);
  for (let index = 0; index < cut.lead.length; index += 1) out[index] = cut.lead[index] as TItem;
  return out;
}
