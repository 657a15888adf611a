/**
 * IPAddressPool status (MetalLB v0.16.1 api/v1beta1/ipaddresspool_types.go, allocator.go updatePoolStats): the
 * four int64 counters, always present, written with PUT .../ipaddresspools/NAME/status only when they differ.
 * available = usable size - assigned, per family; the size honours avoidBuggyIPs and is math.MaxInt64 for a
 * CIDR of 62 or more host bits (the allocator's poolCapacity). Counters stay bigint: JSON numbers lose digits
 * past 2^53, so the writer prints them itself (json-int64.ts).
 */
import type { PoolUsage } from '../allocator';
import type { ApiObject } from './api-objects';

export interface PoolStatus {
  readonly assignedIPv4: bigint;
  readonly assignedIPv6: bigint;
  readonly availableIPv4: bigint;
  readonly availableIPv6: bigint;
}

export interface PoolStatusWrite {
  readonly pool: string;
  readonly status: PoolStatus;
  /** The whole object to PUT on /status (with its resourceVersion); undefined when the status is already so. */
  readonly write?: ApiObject;
}

function poolStatusOf(usage: PoolUsage): PoolStatus {
  return {
    assignedIPv4: BigInt(usage.inUseIPv4),
    assignedIPv6: BigInt(usage.inUseIPv6),
    availableIPv4: usage.availableIPv4,
    availableIPv6: usage.availableIPv6,
  };
}

const FIELDS = ['assignedIPv4', 'assignedIPv6', 'availableIPv4', 'availableIPv6'] as const;

/**
 * Whether the stored status already says this. The API returns int64 as JSON numbers, which JSON.parse rounds
 * past 2^53: a stored MaxInt64 compares equal to the wanted one rounded the same way, so it is not rewritten.
 */
function samePoolStatus(stored: unknown, wanted: PoolStatus): boolean {
  if (typeof stored !== 'object' || stored === null) return false;
  const record = stored as Record<string, unknown>;
  return FIELDS.every((f) => typeof record[f] === 'number' && record[f] === Number(wanted[f]));
}

/** One entry per pool object read from the API that the configuration uses; objects are matched by name. */
export function poolStatusWrites(pools: readonly ApiObject[], usage: readonly PoolUsage[]): PoolStatusWrite[] {
  const byName = new Map(usage.map((u) => [u.pool, u]));
  const out: PoolStatusWrite[] = [];
  for (const pool of pools) {
    const u = byName.get(pool.metadata.name ?? '');
    if (u === undefined) continue;
    const status = poolStatusOf(u);
    const write = samePoolStatus(pool['status'], status) ? undefined : { ...pool, status };
    out.push({ pool: u.pool, status, ...(write && { write }) });
  }
  return out;
}
