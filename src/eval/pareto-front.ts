/** A point of the quality-against-cost chart. */
export type ParetoPoint = { readonly cost: number; readonly quality: number };

/**
 * The points no other point beats on both axes (cheaper or as cheap, and better or as good, one of
 * them strictly), sorted by cost: the front a chart draws.
 */
export function paretoFront<TPoint extends ParetoPoint>(points: readonly TPoint[]): readonly TPoint[] {
  const front = points.filter(
    (point) =>
      !points.some(
        (other) =>
          other.cost <= point.cost &&
          other.quality >= point.quality &&
          (other.cost < point.cost || other.quality > point.quality),
      ),
  );
  return [...front].sort((a, b) => a.cost - b.cost || b.quality - a.quality);
}
