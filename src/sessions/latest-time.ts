/** The later of two ISO times (either may be missing or unparsable; an unparsable one loses). */
export function latestTime(left: string | undefined, right: string | undefined): string | undefined {
  if (left === undefined) return right;
  if (right === undefined) return left;
  const leftTime = Date.parse(left);
  const rightTime = Date.parse(right);
  if (Number.isNaN(rightTime)) return left;
  if (Number.isNaN(leftTime)) return right;
  return rightTime > leftTime ? right : left;
}
