/** True for a plain object (not `null`, not an array): a JSON object read from untrusted input. */
export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
