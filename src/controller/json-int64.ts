/**
 * JSON text with bigint values printed as integers: Kubernetes int64 fields (IPAddressPool status counters can
 * be math.MaxInt64) do not fit a JavaScript number, and JSON.stringify refuses bigint.
 */
const MARK = '\u0000int64:';

export function stringifyWithInt64(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${MARK}${v.toString()}` : v));
  return text.replace(/"\\u0000int64:(-?\d+)"/g, '$1');
}
