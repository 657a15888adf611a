import { type IP, cidrContains } from '../ip';
import type { ResolvedPool } from './pool-order';

const LAST_OCTET_MASK = 0xffn;
const NETWORK_OCTET = 0n;
const BROADCAST_OCTET = 0xffn;

/**
 * MetalLB ipConfusesBuggyFirmwares: an IPv4 address ending in .0 or .255, whatever the pool's prefix length,
 * because smurf protection on some old CPE firmware drops traffic to them. IPv6 is never "buggy".
 */
export function isBuggyIP(ip: IP): boolean {
  if (ip.family !== 4) return false;
  const last = ip.value & LAST_OCTET_MASK;
  return last === NETWORK_OCTET || last === BROADCAST_OCTET;
}

/** Does the pool hold this address? An avoidBuggyIPs pool does not hold its .0 and .255 addresses. */
function poolHolds(pool: ResolvedPool, ip: IP): boolean {
  if (pool.pool.avoidBuggyIPs && isBuggyIP(ip)) return false;
  return pool.pool.cidrs.some((c) => cidrContains(c, ip));
}

/**
 * MetalLB poolFor: the pool that holds every one of the addresses. Pools never overlap (validation refuses
 * it), so at most one pool holds a given address; MetalLB scans its map in random order, mlb in the order
 * given, which AllocatorState keeps sorted by name.
 */
export function poolHoldingAll(pools: readonly ResolvedPool[], ips: readonly IP[]): ResolvedPool | undefined {
  return pools.find((p) => ips.every((ip) => poolHolds(p, ip)));
}
