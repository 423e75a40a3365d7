/**
 * Splits `total` whole tokens among pieces in proportion to `weights`, with largest-remainder
 * rounding, so the shares are non-negative integers that add up to `total` exactly. Ties on the
 * remainder go to the earlier piece; when every weight is 0 the first piece takes the whole total.
 * Negative or non-finite weights count as 0. An empty weight list yields an empty list.
 */
export function apportionTokens(total: number, weights: readonly number[]): readonly number[] {
  if (weights.length === 0) return [];
  const whole = Math.max(0, Math.trunc(total));
  const clean = weights.map((weight) => (Number.isFinite(weight) && weight > 0 ? weight : 0));
  const weightSum = clean.reduce((sum, weight) => sum + weight, 0);
  if (weightSum === 0) return clean.map((_, index) => (index === 0 ? whole : 0));
  const exact = clean.map((weight) => (whole * weight) / weightSum);
  const shares = exact.map((value) => Math.floor(value));
  let left = whole - shares.reduce((sum, share) => sum + share, 0);
  const order = exact
    .map((value, index) => ({ index, remainder: value - Math.floor(value) }))
    .sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of order) {
    if (left <= 0) break;
    shares[index] = (shares[index] ?? 0) + 1;
    left -= 1;
  }
  return shares;
}
