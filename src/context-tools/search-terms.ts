/**
 * The search terms of a text: words split at every character that is not a letter or a digit, at
 * camelCase humps and at letter/digit boundaries, lowercased. `getUserById` and `get_user_by_id` both
 * give `get`, `user`, `by`, `id`; so do the words of a query.
 */
export function searchTerms(text: string): readonly string[] {
  const terms: string[] = [];
  for (const word of text.split(/[^\p{L}\p{N}]+/u)) {
    if (word === '') continue;
    const pieces = word
      .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
      .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
      .replace(/(\p{L})(\p{N})|(\p{N})(\p{L})/gu, (_, a, b, c, d) => `${a ?? c} ${b ?? d}`)
      .split(' ');
    for (const piece of pieces) if (piece !== '') terms.push(piece.toLowerCase());
  }
  return terms;
}
