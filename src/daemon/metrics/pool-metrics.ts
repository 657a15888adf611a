/**
 * The numbers behind MetalLB's allocator metrics (internal/allocator/stats.go: metallb_allocator_addresses_total,
 * _addresses_in_use_total, their ipv4_/ipv6_ variants and services_allocated_total, all per pool), from the
 * configuration's pools and the addresses services use on this node. In MetalLB only the controller exports
 * them; on plain hosts every node knows the whole allocation table, so every node can. Pure.
 */
import { poolCapacity, type PoolUsage } from '../../allocator';
import { poolForIPs } from '../../election';
import { formatIP, type IP } from '../../ip';
import type { IPAddressPool } from '../../model';

/** The allocator's per-pool counters (PoolUsage, counted the same way) without its status-only fields. */
export interface PoolMetrics extends Omit<PoolUsage, 'availableIPv4' | 'availableIPv6'> {
  /** Services holding at least one address of the pool. */
  readonly servicesAllocated: number;
}

/** What poolMetrics needs of a service's addresses (cluster-decision.ts ServiceAddresses fits). */
export interface PooledAddresses {
  readonly ips: readonly IP[];
  readonly pool?: string;
}

/**
 * One entry per configured pool, in configuration order. Addresses that do not name their pool count in the
 * pool holding them all; addresses of pools no longer configured are ignored.
 */
export function poolMetrics(pools: readonly IPAddressPool[], addresses: ReadonlyMap<string, PooledAddresses>): PoolMetrics[] {
  const used = new Map<string, { v4: Set<string>; v6: Set<string>; services: number }>();
  for (const pool of pools) used.set(pool.meta.name, { v4: new Set(), v6: new Set(), services: 0 });
  for (const service of addresses.values()) {
    const name = service.pool ?? poolForIPs(pools, service.ips)?.meta.name;
    const entry = name === undefined ? undefined : used.get(name);
    if (!entry || service.ips.length === 0) continue;
    entry.services++;
    for (const ip of service.ips) (ip.family === 6 ? entry.v6 : entry.v4).add(formatIP(ip));
  }
  return pools.map((pool) => {
    const capacity = poolCapacity(pool);
    const entry = used.get(pool.meta.name)!;
    return {
      pool: pool.meta.name,
      total: capacity.total,
      totalIPv4: capacity.ipv4,
      totalIPv6: capacity.ipv6,
      inUse: entry.v4.size + entry.v6.size,
      inUseIPv4: entry.v4.size,
      inUseIPv6: entry.v6.size,
      servicesAllocated: entry.services,
    };
  });
}
