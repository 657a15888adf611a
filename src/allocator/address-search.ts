import { type CIDR, type IP, type IPFamily, cidrFirst, cidrLast } from '../ip';
import type { AllocationSubject, AllocatorState } from './allocator-state';
import { type AllocationError, allocationErrors } from './allocation-errors';
import { isBuggyIP } from './pool-membership';
import type { ResolvedPool } from './pool-order';

/**
 * Finding an address inside a pool (internal/allocator/allocator.go getIPFromCIDR, getFreeIPsFromPool).
 *
 * MetalLB walks each CIDR from its first address and takes the first one that is not "buggy" (when the pool
 * avoids them) and passes checkSharing - an unused address, or a used one the service may share. mlb finds
 * the same address without walking: the first unused address comes from the used-address runs in O(log n),
 * and the only used addresses that can pass checkSharing are those stored with the service's own
 * allow-shared-ip key or held by the service itself, which are looked at in order up to that free address.
 */

/** The first usable address of a CIDR for the subject, or undefined. */
function firstUsableInCIDR(state: AllocatorState, cidr: CIDR, avoidBuggyIPs: boolean, subject: AllocationSubject): IP | undefined {
  const family = cidr.ip.family;
  const first = cidrFirst(cidr).value;
  const last = cidrLast(cidr).value;

  let free: bigint | undefined = first;
  for (;;) {
    free = state.used.firstFreeAtOrAfter(family, free);
    if (free > last) {
      free = undefined;
      break;
    }
    // At most two buggy addresses in a row (x.255, x+1.0), so this loop is short.
    if (avoidBuggyIPs && isBuggyIP({ family, value: free })) {
      free += 1n;
      continue;
    }
    break;
  }

  const shareable = firstShareable(state, subject, family, first, free === undefined ? last : free - 1n, avoidBuggyIPs);
  if (shareable !== undefined) return shareable;
  return free === undefined ? undefined : { family, value: free };
}

/** The lowest used address in [from, to] the subject may share (or already holds alone), or undefined. */
function firstShareable(
  state: AllocatorState,
  subject: AllocationSubject,
  family: IPFamily,
  from: bigint,
  to: bigint,
  avoidBuggyIPs: boolean,
): IP | undefined {
  if (to < from) return undefined;
  const usable = (ip: IP): boolean => !(avoidBuggyIPs && isBuggyIP(ip)) && state.checkSharing(subject, ip) === undefined;

  let best: IP | undefined;
  // The service's own addresses pass checkSharing even with a changed key, when it is their only user.
  for (const ip of state.allocation(subject.key)?.ips ?? []) {
    if (ip.family === family && ip.value >= from && ip.value <= to && usable(ip)) {
      if (best === undefined || ip.value < best.value) best = ip;
    }
  }
  if (subject.sharingKey.sharing !== '') {
    const limit = best === undefined ? to : best.value - 1n;
    for (const ip of state.addressesWithSharingKey(subject.sharingKey.sharing, family, from, limit)) {
      if (usable(ip)) return ip;
    }
  }
  return best;
}

/** What one pool can offer a service: at most one address per family. */
export interface PoolOffer {
  readonly pool: string;
  readonly ipv4?: IP;
  readonly ipv6?: IP;
}

export function offeredFor(offer: PoolOffer, family: IPFamily): IP | undefined {
  return family === 4 ? offer.ipv4 : offer.ipv6;
}

/**
 * MetalLB getFreeIPsFromPool: for each CIDR in the pool's order, the first usable address of its family, until
 * both families have one. Fails with "no available IPs in pool X" when neither family has any.
 */
export function offerFromPool(
  state: AllocatorState,
  pool: ResolvedPool,
  subject: AllocationSubject,
): { readonly ok: true; readonly offer: PoolOffer } | { readonly ok: false; readonly error: AllocationError } {
  let ipv4: IP | undefined;
  let ipv6: IP | undefined;
  for (const cidr of pool.pool.cidrs) {
    const family = cidr.ip.family;
    if ((family === 4 ? ipv4 : ipv6) !== undefined) continue;
    const ip = firstUsableInCIDR(state, cidr, pool.pool.avoidBuggyIPs, subject);
    if (ip === undefined) continue;
    if (family === 4) ipv4 = ip;
    else ipv6 = ip;
  }
  if (ipv4 === undefined && ipv6 === undefined) {
    return { ok: false, error: allocationErrors.noAvailableIPsInPool(pool.name) };
  }
  return { ok: true, offer: { pool: pool.name, ...(ipv4 && { ipv4 }), ...(ipv6 && { ipv6 }) } };
}
