import { closestName } from '../core/index.js';

/** The candidate closest to `given` (see `closestName`), or `undefined`. */
export const closest = closestName;

/** ` Did you mean X?` for the closest candidate, else the empty string. */
export function didYouMean(given: string, candidates: readonly string[]): string {
  const match = closestName(given, candidates);
  return match === undefined ? '' : ` Did you mean ${match}?`;
}
