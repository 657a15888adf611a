import type { IP } from './ip-address';

/**
 * The canonical text of an address, identical to Go's net.IP.String(), because MetalLB's L2 election hashes
 * sha256(node + "#" + ip.String()) and a single differing character would elect a different owner.
 *
 * - IPv4 (including IPv4-mapped IPv6, held as IPv4): dotted decimal.
 * - IPv6 (RFC 5952 section 4): lowercase hex without leading zeros; the longest run of two or more zero groups
 *   becomes "::", the first run on ties; a single zero group is written "0", never "::".
 */
export function formatIP(ip: IP): string {
  return ip.family === 4 ? formatIPv4(ip.value) : formatIPv6(ip.value);
}

function formatIPv4(value: bigint): string {
  const v = Number(value);
  return `${v >>> 24}.${(v >>> 16) & 0xff}.${(v >>> 8) & 0xff}.${v & 0xff}`;
}

const GROUPS = 8;
/** RFC 5952 section 4.2.2: "::" must not shorten just one 16-bit 0 field. */
const MIN_COMPRESSED_RUN = 2;

function formatIPv6(value: bigint): string {
  const groups: number[] = [];
  for (let i = GROUPS - 1; i >= 0; i--) groups.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  const [runStart, runLength] = longestZeroRun(groups);
  if (runLength < MIN_COMPRESSED_RUN) return groups.map(hex).join(':');
  const before = groups.slice(0, runStart).map(hex).join(':');
  const after = groups
    .slice(runStart + runLength)
    .map(hex)
    .join(':');
  return `${before}::${after}`;
}

/** The first longest run of zero groups, as [start, length] (RFC 5952 section 4.2.3: first on ties). */
function longestZeroRun(groups: number[]): [number, number] {
  let bestStart = -1;
  let bestLength = 0;
  let start = -1;
  for (let i = 0; i <= groups.length; i++) {
    if (i < groups.length && groups[i] === 0) {
      if (start === -1) start = i;
      continue;
    }
    if (start !== -1 && i - start > bestLength) {
      bestStart = start;
      bestLength = i - start;
    }
    start = -1;
  }
  return [bestStart, bestLength];
}

function hex(group: number): string {
  return group.toString(16);
}
