/**
 * The allocator's turn: the configuration and the current table in, the next table out. Pure.
 *
 * allocateServices does the allocating (MetalLB's semantics, explicit addresses first); the table supplies
 * what every service holds, after the claim pass settled clashes by age (claim-addresses.ts). What changes in
 * the table is exactly what changed for users:
 * - a service with new or different addresses gets a new entry stamped (table version + 1, this node, now);
 * - a service that is gone from the file, no longer a LoadBalancer, or failed (it holds nothing, as MetalLB's
 *   failed services hold nothing) is released at once, as MetalLB releases a deleted Service's address; its
 *   tombstone remembers the addresses, so if it comes back before the tombstone expires it gets them again
 *   when nobody took them meanwhile (a file edit that drops a service by mistake and is put right);
 * - everything else keeps its entry and stamp, so running again on the output changes nothing and the version
 *   grows only when an allocation changed.
 */
import { type AllocateServicesOutput, allocateServices } from '../../allocator';
import { formatIP } from '../../ip';
import type { Snapshot } from '../../model';
import {
  type AllocationEntry,
  type AllocationTable,
  expireReleasedEntries,
  makeAllocationTable,
  sameIPTexts,
} from './allocation-table';
import { type AddressClaims, claimAddresses } from './claim-addresses';

/** One entry the allocator wrote, with the one it replaced. */
export interface TableChange {
  readonly service: string;
  readonly before?: AllocationEntry;
  readonly after: AllocationEntry;
}

export interface TableAllocation {
  /** The table to persist and publish: a new version only when `changed`. */
  readonly table: AllocationTable;
  readonly results: AllocateServicesOutput;
  readonly changed: boolean;
  /** By service key. */
  readonly changes: readonly TableChange[];
  readonly claims: AddressClaims;
}

export function allocateFromTable(
  snapshot: Pick<Snapshot, 'pools' | 'services'>,
  table: AllocationTable,
  self: string,
  now: number,
): TableAllocation {
  const current = expireReleasedEntries(table, now);
  const claims = claimAddresses(snapshot, current);
  const results = allocateServices({ pools: snapshot.pools, services: snapshot.services, previous: claims.previous });

  const version = current.version + 1;
  const write = (ips: readonly string[], released: boolean): AllocationEntry => ({ ips, version, writer: self, at: now, released });
  const entries = new Map(current.entries);
  const changes: TableChange[] = [];
  const record = (service: string, after: AllocationEntry): void => {
    const before = entries.get(service);
    entries.set(service, after);
    changes.push({ service, ...(before && { before }), after });
  };

  for (const [key, result] of results.results) {
    const before = current.entries.get(key);
    if (result.status === 'assigned') {
      const ips = result.ips.map(formatIP);
      if (before === undefined || before.released || !sameIPTexts(before.ips, ips)) record(key, write(ips, false));
    } else if (before !== undefined && !before.released) {
      record(key, write(before.ips, true));
    }
  }
  for (const [key, before] of current.entries) {
    if (!before.released && !results.results.has(key)) record(key, write(before.ips, true));
  }

  const changed = changes.length > 0;
  const next = changed ? makeAllocationTable(version, self, entries) : current;
  changes.sort((a, b) => (a.service < b.service ? -1 : a.service > b.service ? 1 : 0));
  return { table: next, results, changed, changes, claims };
}
