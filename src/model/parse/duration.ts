/**
 * Kubernetes metav1.Duration, as the metallb.io CRDs take holdTime, keepaliveTime and connectTime: a string
 * read by Go's time.ParseDuration ("90s", "1m30s", "500ms", "1.5h", "-3s", "0"). A bare number is not a
 * duration in Kubernetes (it fails JSON unmarshalling), so it is not one here either.
 */

const NANOS_PER_MILLI = 1_000_000n;

/** Go's units (time/format.go unitMap), in nanoseconds. Both micro signs are accepted, as Go does. */
const UNIT_NANOS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek small letter mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Go's Duration is an int64 of nanoseconds; longer texts overflow (about 292 years). */
const MAX_DURATION_NANOS = (1n << 63n) - 1n;

export type DurationResult = { readonly ok: true; readonly milliseconds: number } | { readonly ok: false; readonly reason: string };

export function parseDuration(text: string): DurationResult {
  const bad = (why: string): DurationResult => ({ ok: false, reason: `time: ${why} in duration "${text}"` });
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return { ok: true, milliseconds: 0 };
  if (rest === '') return bad('invalid syntax');
  let total = 0n;
  while (rest !== '') {
    const match = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/.exec(rest);
    const whole = match?.[1] ?? '';
    const fraction = match?.[2] ?? '';
    const unitText = match?.[3] ?? '';
    if (!match || (whole === '' && fraction === '')) return bad('invalid syntax');
    if (unitText === '') return bad('missing unit');
    const unit = UNIT_NANOS[unitText];
    if (unit === undefined) return bad(`unknown unit "${unitText}"`);
    total += BigInt(whole === '' ? '0' : whole) * unit;
    if (fraction !== '') total += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    if (total > MAX_DURATION_NANOS) return bad('overflow');
    rest = rest.slice(match[0].length);
  }
  const milliseconds = Number(total) / Number(NANOS_PER_MILLI);
  return { ok: true, milliseconds: negative ? -milliseconds : milliseconds };
}
