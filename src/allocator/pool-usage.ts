import { type CIDR, type IPFamily, bitsOf, cidrFirst, cidrLast, cidrSize } from '../ip';
import type { IPAddressPool } from '../model';
import { isBuggyIP } from './pool-membership';

/**
 * Per-pool counters, the values behind metallb_allocator_addresses_total / _in_use_total (and their ipv4_ /
 * ipv6_ variants) and IPAddressPool status assignedIPv4/6 and availableIPv4/6 (internal/allocator/allocator.go
 * poolCount, updatePoolStats).
 */
export interface PoolUsage {
  readonly pool: string;
  /** Usable addresses, counted as MetalLB counts them (see poolCapacity). */
  readonly total: bigint;
  readonly totalIPv4: bigint;
  readonly totalIPv6: bigint;
  /** Distinct addresses with at least one service (a shared address counts once). */
  readonly inUse: number;
  readonly inUseIPv4: number;
  readonly inUseIPv6: number;
  /** totalIPvN - inUseIPvN: IPAddressPool status availableIPv4 / availableIPv6. */
  readonly availableIPv4: bigint;
  readonly availableIPv6: bigint;
}

/** MetalLB counts a CIDR with this many host bits or more as "enormous, never runs out" (math.MaxInt64). */
const HUGE_CIDR_HOST_BITS = 62;
/** Go's math.MaxInt64, MetalLB's value for an enormous pool; totals saturate here instead of overflowing. */
export const MAX_INT64 = (1n << 63n) - 1n;
/** IPv4 prefixes up to /24 hold whole /24s, each with one .0 and one .255. */
const BUGGY_PAIR_PREFIX = 24;
const BUGGY_PER_SLASH24 = 2n;

export interface PoolCapacity {
  readonly total: bigint;
  readonly ipv4: bigint;
  readonly ipv6: bigint;
}

/**
 * MetalLB poolCount: the number of addresses the pool can hand out. A CIDR with >= 62 host bits makes the
 * family's count (and the total) math.MaxInt64; with avoidBuggyIPs every IPv4 .0 and .255 is left out.
 * mlb saturates at MaxInt64 where Go would overflow, and counts a /32 ending in .0 as zero where MetalLB's
 * first/last test subtracts it twice.
 */
export function poolCapacity(pool: IPAddressPool): PoolCapacity {
  let ipv4 = 0n;
  let ipv6 = 0n;
  let total = 0n;
  for (const cidr of pool.cidrs) {
    const family = cidr.ip.family;
    const hostBits = bitsOf(family) - cidr.prefix;
    if (hostBits >= HUGE_CIDR_HOST_BITS) {
      total = MAX_INT64;
      if (family === 6) ipv6 = MAX_INT64;
      else ipv4 = MAX_INT64;
      continue;
    }
    const size = cidrSize(cidr) - (pool.avoidBuggyIPs ? buggyCount(cidr) : 0n);
    total = saturatingAdd(total, size);
    if (family === 6) ipv6 = saturatingAdd(ipv6, size);
    else ipv4 = saturatingAdd(ipv4, size);
  }
  return { total, ipv4, ipv6 };
}

function buggyCount(cidr: CIDR): bigint {
  if (cidr.ip.family !== 4) return 0n;
  if (cidr.prefix <= BUGGY_PAIR_PREFIX) return (1n << BigInt(BUGGY_PAIR_PREFIX - cidr.prefix)) * BUGGY_PER_SLASH24;
  // Shorter than a /24: only its first and last address can end in .0 / .255.
  const first = cidrFirst(cidr);
  const last = cidrLast(cidr);
  if (first.value === last.value) return isBuggyIP(first) ? 1n : 0n;
  return (isBuggyIP(first) ? 1n : 0n) + (isBuggyIP(last) ? 1n : 0n);
}

function saturatingAdd(a: bigint, b: bigint): bigint {
  const sum = a + b;
  return sum > MAX_INT64 ? MAX_INT64 : sum;
}

export function makePoolUsage(pool: IPAddressPool, inUse: Readonly<Record<IPFamily, number>>): PoolUsage {
  const cap = poolCapacity(pool);
  return {
    pool: pool.meta.name,
    total: cap.total,
    totalIPv4: cap.ipv4,
    totalIPv6: cap.ipv6,
    inUse: inUse[4] + inUse[6],
    inUseIPv4: inUse[4],
    inUseIPv6: inUse[6],
    availableIPv4: cap.ipv4 - BigInt(inUse[4]),
    availableIPv6: cap.ipv6 - BigInt(inUse[6]),
  };
}
