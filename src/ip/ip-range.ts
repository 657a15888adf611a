import { type IP, bitsOf } from './ip-address';
import { type CIDR } from './cidr';
import { parseIP } from './parse-ip';

/**
 * The smallest list of CIDRs covering first..last exactly, in address order (what MetalLB does with an "a-b"
 * pool range before allocating from it, so allocation order is the same).
 */
export function rangeToCIDRs(first: IP, last: IP): CIDR[] {
  if (first.family !== last.family) throw new RangeError('a range cannot span address families');
  if (first.value > last.value) throw new RangeError('a range must not end before it starts');
  const bits = bitsOf(first.family);
  const cidrs: CIDR[] = [];
  let start = first.value;
  const end = last.value;
  while (start <= end) {
    let hostBits = trailingZeroBits(start, bits);
    while (hostBits > 0 && start + (1n << BigInt(hostBits)) - 1n > end) hostBits--;
    cidrs.push({ ip: { family: first.family, value: start }, prefix: bits - hostBits });
    start += 1n << BigInt(hostBits);
  }
  return cidrs;
}

function trailingZeroBits(value: bigint, bits: number): number {
  if (value === 0n) return bits;
  let n = 0;
  while (((value >> BigInt(n)) & 1n) === 0n) n++;
  return n;
}

/** Why "a-b" could not be read; the model turns each into MetalLB's wording. */
export type IPRangeProblem = 'notARange' | 'badStart' | 'badEnd' | 'mixedFamilies' | 'reversed';

export type IPRangeResult =
  | { readonly ok: true; readonly first: IP; readonly last: IP }
  | { readonly ok: false; readonly problem: IPRangeProblem; readonly startText: string; readonly endText: string };

/**
 * Reads "first-last" with optional spaces around either address ("10.0.0.1 - 10.0.0.9"), as MetalLB's
 * parseCIDR does (internal/config/config.go: split on "-", trim spaces, net.ParseIP each end).
 */
export function parseIPRange(text: string): IPRangeResult {
  const parts = text.split('-');
  if (parts.length !== 2) return { ok: false, problem: 'notARange', startText: text, endText: '' };
  const startText = (parts[0] as string).trim();
  const endText = (parts[1] as string).trim();
  const first = parseIP(startText);
  if (!first) return { ok: false, problem: 'badStart', startText, endText };
  const last = parseIP(endText);
  if (!last) return { ok: false, problem: 'badEnd', startText, endText };
  if (first.family !== last.family) return { ok: false, problem: 'mixedFamilies', startText, endText };
  if (first.value > last.value) return { ok: false, problem: 'reversed', startText, endText };
  return { ok: true, first, last };
}
