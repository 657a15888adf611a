import { type IP, type IPFamily, compareIP } from '../ip';
import type { IPAddressPool, Labels } from '../model';
import { type AllocationError, allocationErrors } from './allocation-errors';
import { PersistentMap, compareStrings } from './persistent-map';
import { poolHoldingAll } from './pool-membership';
import { type ResolvedPool, type ServiceIdentity, compareNames, poolAdmits, resolvePool } from './pool-order';
import { type PoolUsage, makePoolUsage } from './pool-usage';
import { type AddressUse, type AddressUser, type SharingKey, checkSharing } from './sharing';
import type { Port } from './service-port';
import { UsedAddresses } from './used-addresses';

/** Everything the allocator needs to know about a service to place it. */
export interface AllocationSubject extends ServiceIdentity {
  readonly ports: readonly Port[];
  readonly sharingKey: SharingKey;
}

/** One service's current assignment (MetalLB type alloc). */
export interface Allocation {
  readonly service: string;
  readonly pool: string;
  readonly ips: readonly IP[];
  readonly ports: readonly Port[];
  readonly key: SharingKey;
}

/** MetalLB Assign accepts one address per family, so two at most. */
export const MAX_ADDRESSES_PER_SERVICE = 2;

export type Step<T extends object = object> =
  ({ readonly ok: true; readonly state: AllocatorState } & T) | { readonly ok: false; readonly error: AllocationError };

/** What withPools did to existing allocations (MetalLB SetPools). */
export interface PoolChangeReport {
  readonly state: AllocatorState;
  /** Services whose addresses no pool holds any more: unassigned. */
  readonly dropped: readonly string[];
  /** Services whose addresses now belong to another pool (renamed or re-cut): moved without other checks. */
  readonly moved: readonly string[];
}

type IPIndex<V> = PersistentMap<IP, V>;

/**
 * The allocator's state, immutable: every operation returns a new state and leaves this one valid. It holds
 * the pools and who uses which address, with the indexes MetalLB keeps as maps (internal/allocator/allocator.go
 * type Allocator: allocated, sharingKeyForIP, portsInUse, servicesOnIP, poolIPsInUse):
 * - services: service key -> Allocation;
 * - addresses: address -> AddressUse (pool, sharing key, users and their ports);
 * - used: the used addresses as runs, for "first free address" in O(log n);
 * - sharing: allow-shared-ip key -> addresses currently stored with it, so a search for a shareable address
 *   looks only at addresses that could pass checkSharing.
 */
export class AllocatorState {
  private constructor(
    /** Sorted by name. */
    readonly pools: readonly ResolvedPool[],
    private readonly poolsByName: ReadonlyMap<string, ResolvedPool>,
    private readonly services: PersistentMap<string, Allocation>,
    private readonly addresses: IPIndex<AddressUse>,
    readonly used: UsedAddresses,
    private readonly sharing: PersistentMap<string, IPIndex<true>>,
  ) {}

  /**
   * A state with these pools and no assignments. namespaceLabels (namespace -> labels) resolves
   * serviceAllocation.namespaceSelectors as MetalLB does from the cluster's Namespaces; empty when unknown.
   */
  static create(pools: readonly IPAddressPool[], namespaceLabels: ReadonlyMap<string, Labels> = new Map()): AllocatorState {
    const resolved = resolvePools(pools, namespaceLabels);
    return new AllocatorState(
      resolved,
      new Map(resolved.map((p) => [p.name, p])),
      PersistentMap.empty(compareStrings),
      PersistentMap.empty(compareIP),
      UsedAddresses.empty,
      PersistentMap.empty(compareStrings),
    );
  }

  /**
   * MetalLB SetPools: new pools, existing allocations kept where a pool still holds all their addresses
   * (moved to that pool if it has another name, without re-checking the service against it, as MetalLB does)
   * and dropped otherwise.
   */
  withPools(pools: readonly IPAddressPool[], namespaceLabels: ReadonlyMap<string, Labels> = new Map()): PoolChangeReport {
    const resolved = resolvePools(pools, namespaceLabels);
    let state = new AllocatorState(
      resolved,
      new Map(resolved.map((p) => [p.name, p])),
      this.services,
      this.addresses,
      this.used,
      this.sharing,
    );
    const dropped: string[] = [];
    const moved: string[] = [];
    for (const alloc of this.services.values()) {
      const holder = poolHoldingAll(resolved, alloc.ips);
      if (holder === undefined) {
        dropped.push(alloc.service);
        state = state.unassign(alloc.service);
      } else if (holder.name !== alloc.pool) {
        moved.push(alloc.service);
        state = state.unassign(alloc.service).put({ ...alloc, pool: holder.name });
      }
    }
    return { state, dropped, moved };
  }

  get hasPools(): boolean {
    return this.pools.length > 0;
  }

  pool(name: string): ResolvedPool | undefined {
    return this.poolsByName.get(name);
  }

  allocation(service: string): Allocation | undefined {
    return this.services.get(service);
  }

  /** Every allocation, by service key. */
  allocations(): Allocation[] {
    return [...this.services.values()];
  }

  addressUse(ip: IP): AddressUse | undefined {
    return this.addresses.get(ip);
  }

  /** MetalLB PoolForIP: the pool holding all these addresses. */
  poolFor(ips: readonly IP[]): ResolvedPool | undefined {
    return poolHoldingAll(this.pools, ips);
  }

  /**
   * Addresses of a family in [from, to] currently stored with this allow-shared-ip key, ascending: the only
   * used addresses a service with that key might share.
   */
  *addressesWithSharingKey(sharing: string, family: IPFamily, from: bigint, to: bigint): IterableIterator<IP> {
    const index = this.sharing.get(sharing);
    if (index === undefined) return;
    for (const [ip] of index.entries({ family, value: from })) {
      if (ip.family !== family || ip.value > to) return;
      yield ip;
    }
  }

  /** MetalLB checkSharing for one address. */
  checkSharing(subject: AllocationSubject, ip: IP): AllocationError | undefined {
    return checkSharing(this.addresses.get(ip), subject.key, subject.ports, subject.sharingKey);
  }

  /**
   * MetalLB Assign: give the service exactly these addresses, if one pool holds them all, admits the service,
   * and every address is free or shareable. Replaces the service's previous allocation.
   */
  assign(subject: AllocationSubject, ips: readonly IP[]): Step<{ readonly pool: string }> {
    const pool = ips.length === 0 ? undefined : this.poolFor(ips);
    if (pool === undefined) return { ok: false, error: allocationErrors.notAllowedInConfig(ips) };
    if (!poolAdmits(pool, subject)) return { ok: false, error: allocationErrors.poolNotCompatible(pool.name) };
    if (ips.length > MAX_ADDRESSES_PER_SERVICE) return { ok: false, error: allocationErrors.tooManyAddresses(ips) };
    if (ips.length === MAX_ADDRESSES_PER_SERVICE && (ips[0] as IP).family === (ips[1] as IP).family) {
      return { ok: false, error: allocationErrors.sameFamily(ips[0] as IP, ips[1] as IP) };
    }
    for (const ip of ips) {
      const problem = this.checkSharing(subject, ip);
      if (problem !== undefined) return { ok: false, error: problem };
    }
    const state = this.unassign(subject.key).put({
      service: subject.key,
      pool: pool.name,
      ips: [...ips],
      ports: [...subject.ports],
      key: subject.sharingKey,
    });
    return { ok: true, state, pool: pool.name };
  }

  /** MetalLB Unassign: free the service's addresses (shared addresses stay with their other users). */
  unassign(service: string): AllocatorState {
    const alloc = this.services.get(service);
    if (alloc === undefined) return this;
    let { addresses, used, sharing } = this;
    for (const ip of alloc.ips) {
      const use = addresses.get(ip);
      if (use === undefined) continue;
      sharing = unindex(sharing, use);
      const users = use.users.filter((u) => u.service !== service);
      if (users.length === 0) {
        addresses = addresses.delete(ip);
        used = used.remove(ip);
      } else {
        const next: AddressUse = { ...use, users };
        addresses = addresses.set(ip, next);
        sharing = index(sharing, next);
      }
    }
    return new AllocatorState(this.pools, this.poolsByName, this.services.delete(service), addresses, used, sharing);
  }

  /** Records an allocation the caller has checked; the service must hold nothing. */
  private put(alloc: Allocation): AllocatorState {
    let { addresses, used, sharing } = this;
    const user: AddressUser = { service: alloc.service, ports: alloc.ports };
    for (const ip of alloc.ips) {
      const previous = addresses.get(ip);
      if (previous !== undefined) sharing = unindex(sharing, previous);
      const users = [...(previous?.users ?? []), user].sort((a, b) => compareStrings(a.service, b.service));
      // The key of the latest assignment is the address's key (MetalLB sharingKeyForIP[ip] = &alloc.key).
      const next: AddressUse = { ip, pool: alloc.pool, key: alloc.key, users };
      addresses = addresses.set(ip, next);
      used = used.add(ip);
      sharing = index(sharing, next);
    }
    return new AllocatorState(this.pools, this.poolsByName, this.services.set(alloc.service, alloc), addresses, used, sharing);
  }

  /** Counters for every pool, by name (MetalLB updatePoolStats). */
  usage(): PoolUsage[] {
    const counts = new Map<string, Record<IPFamily, number>>();
    for (const use of this.addresses.values()) {
      const c = counts.get(use.pool) ?? { 4: 0, 6: 0 };
      c[use.ip.family]++;
      counts.set(use.pool, c);
    }
    return this.pools.map((p) => makePoolUsage(p.pool, counts.get(p.name) ?? { 4: 0, 6: 0 }));
  }
}

function resolvePools(pools: readonly IPAddressPool[], namespaceLabels: ReadonlyMap<string, Labels>): ResolvedPool[] {
  return pools.map((p) => resolvePool(p, namespaceLabels)).sort((a, b) => compareNames(a.name, b.name));
}

function index(sharing: PersistentMap<string, IPIndex<true>>, use: AddressUse): PersistentMap<string, IPIndex<true>> {
  if (use.key.sharing === '') return sharing;
  const set = sharing.get(use.key.sharing) ?? PersistentMap.empty<IP, true>(compareIP);
  return sharing.set(use.key.sharing, set.set(use.ip, true));
}

function unindex(sharing: PersistentMap<string, IPIndex<true>>, use: AddressUse): PersistentMap<string, IPIndex<true>> {
  if (use.key.sharing === '') return sharing;
  const set = sharing.get(use.key.sharing);
  if (set === undefined) return sharing;
  const rest = set.delete(use.ip);
  return rest.size === 0 ? sharing.delete(use.key.sharing) : sharing.set(use.key.sharing, rest);
}
