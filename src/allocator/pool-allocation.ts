import type { IP, IPFamily } from '../ip';
import type { IPFamilyPolicy } from '../model';
import type { AllocationSubject, AllocatorState, Step } from './allocator-state';
import { type AllocationError, type MetalLBFamily, allocationErrors } from './allocation-errors';
import { type PoolOffer, offerFromPool, offeredFor } from './address-search';
import { type ResolvedPool, defaultPools, pinnedPools } from './pool-order';
import { metallbFamilyOf } from './service-family';

/**
 * Automatic allocation (internal/allocator/allocator.go Allocate, allocateFromPools, findBestPoolForService,
 * AllocateFromPool, AllocateFromPoolForAdditionalFamily; allocation.go selectIPsForFamilyAndPolicy).
 */

/** How a service wants its addresses: the family it needs, its policy and which family comes first. */
export interface FamilyRequest {
  readonly family: MetalLBFamily;
  readonly policy: IPFamilyPolicy;
  readonly primary: IPFamily;
}

/** Which group of pools an automatic allocation came from. */
export type PoolGroup = 'pinned' | 'default';

export type Allocated = Step<{ readonly ips: readonly IP[]; readonly pool: string }>;

/**
 * MetalLB selectIPsForFamilyAndPolicy: the addresses to take from a pool's offer. Dual stack takes IPv4 then
 * IPv6 (MetalLB's order, whatever spec.ipFamilies says); PreferDualStack settles for whichever it has.
 * Where MetalLB returns a nil address for a single-family service whose family the pool lacks (and then fails
 * with `["<nil>"] is not allowed in config`), mlb reports "no available IPs in pool X for ipv6 IPFamily".
 */
function selectAddresses(
  offer: PoolOffer,
  request: Pick<FamilyRequest, 'family' | 'policy'>,
): { readonly ok: true; readonly ips: readonly IP[] } | { readonly ok: false; readonly error: AllocationError } {
  const { ipv4, ipv6 } = offer;
  // Built only on failure: an Error captures a stack trace, which cost more than the allocation itself when
  // every call built one (a third of allocating 10,000 services).
  const fail = () => ({ ok: false, error: allocationErrors.noAvailableIPsForFamily(offer.pool, request.family) }) as const;
  if (request.family === 'ipv4') return ipv4 ? { ok: true, ips: [ipv4] } : fail();
  if (request.family === 'ipv6') return ipv6 ? { ok: true, ips: [ipv6] } : fail();
  if (ipv4 && ipv6) return { ok: true, ips: [ipv4, ipv6] };
  if (request.policy === 'PreferDualStack') {
    if (ipv4) return { ok: true, ips: [ipv4] };
    if (ipv6) return { ok: true, ips: [ipv6] };
  }
  return fail();
}

/**
 * MetalLB findBestPoolForService: the first pool (in the given order) offering what the service needs. A
 * single-family service needs its family; a dual-stack service both. PreferDualStack accepts, when no pool
 * offers both, the first pool offering its primary family, else the first offering the other.
 */
function bestOffer(
  state: AllocatorState,
  pools: readonly ResolvedPool[],
  subject: AllocationSubject,
  request: FamilyRequest,
): PoolOffer | undefined {
  const secondary: IPFamily = request.primary === 4 ? 6 : 4;
  let primaryCandidate: PoolOffer | undefined;
  let secondaryCandidate: PoolOffer | undefined;
  for (const pool of pools) {
    const result = offerFromPool(state, pool, subject);
    if (!result.ok) continue;
    const offer = result.offer;
    if (request.family !== 'dual') {
      if (offeredFor(offer, request.family === 'ipv4' ? 4 : 6)) return offer;
      continue;
    }
    const hasPrimary = offeredFor(offer, request.primary) !== undefined;
    const hasSecondary = offeredFor(offer, secondary) !== undefined;
    if (hasPrimary && hasSecondary) return offer;
    if (request.policy !== 'PreferDualStack') continue;
    if (hasPrimary && primaryCandidate === undefined) primaryCandidate = offer;
    if (hasSecondary && secondaryCandidate === undefined) secondaryCandidate = offer;
  }
  return primaryCandidate ?? secondaryCandidate;
}

/** MetalLB allocateFromPools: the best offer among these pools, assigned. */
function allocateFromGroup(
  state: AllocatorState,
  pools: readonly ResolvedPool[],
  subject: AllocationSubject,
  request: FamilyRequest,
): Allocated | undefined {
  const offer = bestOffer(state, pools, subject, request);
  if (offer === undefined) return undefined;
  const selected = selectAddresses(offer, request);
  if (!selected.ok) return undefined;
  const assigned = state.assign(subject, selected.ips);
  if (!assigned.ok) return undefined;
  return { ok: true, state: assigned.state, ips: selected.ips, pool: assigned.pool };
}

/**
 * MetalLB Allocate: first the pools that pin the service (by priority), then - only if none of them can serve
 * it - every autoAssign pool without serviceAllocation. Any failure is "no available IPs".
 */
export function allocateAutomatically(
  state: AllocatorState,
  subject: AllocationSubject,
  request: FamilyRequest,
): Step<{ readonly ips: readonly IP[]; readonly pool: string; readonly group: PoolGroup }> {
  const pinned = allocateFromGroup(state, pinnedPools(state.pools, subject), subject, request);
  if (pinned?.ok) return { ...pinned, group: 'pinned' };
  const fallback = allocateFromGroup(state, defaultPools(state.pools), subject, request);
  if (fallback?.ok) return { ...fallback, group: 'default' };
  return { ok: false, error: allocationErrors.noAvailableIPs() };
}

/**
 * MetalLB AllocateFromPool (the address-pool annotation): that pool only, whatever its autoAssign; its
 * serviceAllocation still has to admit the service (Assign checks it).
 */
export function allocateFromNamedPool(
  state: AllocatorState,
  subject: AllocationSubject,
  request: FamilyRequest,
  poolName: string,
): Allocated {
  const pool = state.pool(poolName);
  if (pool === undefined) return { ok: false, error: allocationErrors.unknownPool(poolName) };
  const offer = offerFromPool(state, pool, subject);
  if (!offer.ok) return offer;
  const selected = selectAddresses(offer.offer, request);
  if (!selected.ok) return selected;
  const assigned = state.assign(subject, selected.ips);
  if (!assigned.ok) return assigned;
  return { ok: true, state: assigned.state, ips: selected.ips, pool: assigned.pool };
}

/**
 * MetalLB AllocateFromPoolForAdditionalFamily: a PreferDualStack service holding one address gets one of the
 * other family from the same pool, keeping the one it has.
 */
export function allocateAdditionalFamily(
  state: AllocatorState,
  subject: AllocationSubject,
  existing: IP,
  poolName: string,
): Step<{ readonly ips: readonly IP[]; readonly added: IP }> {
  const pool = state.pool(poolName);
  if (pool === undefined) return { ok: false, error: allocationErrors.unknownPool(poolName) };
  const offer = offerFromPool(state, pool, subject);
  if (!offer.ok) return offer;
  const family: IPFamily = existing.family === 4 ? 6 : 4;
  const added = offeredFor(offer.offer, family);
  if (added === undefined) {
    return { ok: false, error: allocationErrors.noAvailableIPsForFamily(poolName, metallbFamilyOf(family)) };
  }
  const ips = [existing, added];
  const assigned = state.assign(subject, ips);
  if (!assigned.ok) return assigned;
  return { ok: true, state: assigned.state, ips, added };
}
