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
      .replace(/(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/gu, ' ')
      .replace(/(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/gu, ' ')
      .split(' ');
    for (const piece of pieces) if (piece !== '') terms.push(piece.toLowerCase());
  }
  return terms;
}
