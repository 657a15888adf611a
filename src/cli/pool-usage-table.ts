/**
 * `mlb validate -o wide`: each pool's usage after the offline allocation, the numbers IPAddressPool's status
 * shows in MetalLB (assignedIPv4/6, availableIPv4/6), so a full pool is seen before the daemon runs into it.
 */
import type { AllocateServicesOutput } from '../allocator';
import { renderTable } from './render-table';

export function poolUsageTable(allocation: AllocateServicesOutput): string {
  const rows = allocation.usage.map((u) => [
    u.pool,
    u.total.toString(),
    String(u.inUse),
    u.availableIPv4.toString(),
    u.availableIPv6.toString(),
  ]);
  return renderTable(['POOL', 'ADDRESSES', 'IN USE', 'AVAILABLE IPV4', 'AVAILABLE IPV6'], rows);
}
