/**
 * Something an adapter could not carry over exactly, discriminated on `type`:
 * - `unsupported-part`: a content part the target format cannot hold was left out;
 * - `dropped-field`: a message field the target format has no place for was left out;
 * - `converted`: a value was changed to fit the format (named in `message`);
 * - `inserted`: the adapter added content the format requires;
 * - `repaired`: the adapter fixed what the provider would reject (an orphan tool result dropped, an
 *   unanswered call answered, a call without a name dropped, an illegal name or lone surrogates
 *   replaced).
 */
export type AdapterWarning = {
  readonly type: 'unsupported-part' | 'dropped-field' | 'converted' | 'inserted' | 'repaired';
  /** Index of the source message. */
  readonly index: number;
  /** A sentence a person can read. */
  readonly message: string;
};

/** What every adapter returns: the converted messages and what did not convert exactly. */
export type AdapterResult<TMessage> = {
  readonly messages: readonly TMessage[];
  readonly warnings: readonly AdapterWarning[];
};

/** A parsed `data:` URL. */
export type DataUrl = { readonly mediaType: string; readonly data: string };

/** Parses a base64 `data:` URL (`data:image/png;base64,…`); `undefined` for anything else. */
export function parseDataUrl(url: string): DataUrl | undefined {
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  if (match === null) return undefined;
  return { mediaType: match[1] ?? '', data: match[2] ?? '' };
}
