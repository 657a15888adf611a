/**
 * What a node brings from allocations.json joins the running cluster's table without overriding it. Pure.
 *
 * A file is a picture of some past: the node's own last run, or a backup copied back, or a node that was away
 * for a week. Its versions belong to that past, and the table's merge (allocation-table.ts) is last-writer-wins
 * by version, so merging a file like a peer's table would let an old assignment with a bigger number move a
 * service that is running. The daemon therefore holds the file aside until it has heard the cluster (the first
 * table a peer sends, or RESTORE_ALONE_WAIT_MS when nobody answers: allocation-table-sharing.ts) and then restores it:
 * - a service the live table holds in any form (live, restored or released) keeps that entry; where the file
 *   gave it other addresses the difference is reported with both sides, and the live entry stays;
 * - a service the live table does not hold gets the file's entry, marked restored: it ranks below every live
 *   write and does not raise the table's version, so it is used until the allocator writes that service;
 * - the file's header version is never read into the live table.
 * When the whole cluster starts from its files at once, every file is restored into gaps; the restored tier
 * then merges among itself by the usual order, so every node still ends with the same table.
 */
import { compareStrings } from '../../allocator';
import { type AllocationEntry, type AllocationTable, makeAllocationTable, sameAllocationTable, sameIPTexts } from './allocation-table';

/** One service the file assigned differently from the live table: the live entry stays. */
export interface RestoreConflict {
  readonly service: string;
  readonly live: AllocationEntry;
  readonly disk: AllocationEntry;
}

export interface RestoreOutcome {
  readonly table: AllocationTable;
  /** The table differs from the live one: persist and publish it. */
  readonly changed: boolean;
  /** Services the file filled in, by key. */
  readonly filled: readonly string[];
  /** Services the live table holds and the file gave other addresses, by key. */
  readonly conflicts: readonly RestoreConflict[];
  /** Services both hold with the same addresses (or both released): nothing to do. */
  readonly agreed: number;
}

/** The live table with the file's entries in its gaps; never replaces a live entry, never takes the file's version. */
export function restoreAllocations(live: AllocationTable, disk: AllocationTable): RestoreOutcome {
  const entries = new Map(live.entries);
  const filled: string[] = [];
  const conflicts: RestoreConflict[] = [];
  let agreed = 0;
  for (const [service, fromDisk] of disk.entries) {
    const held = live.entries.get(service);
    if (held === undefined) {
      entries.set(service, { ...fromDisk, restored: true });
      filled.push(service);
    } else if (!held.released && !fromDisk.released && !sameIPTexts(held.ips, fromDisk.ips)) {
      conflicts.push({ service, live: held, disk: fromDisk });
    } else {
      agreed++;
    }
  }
  const table = filled.length === 0 ? live : makeAllocationTable(live.version, live.allocator, entries);
  conflicts.sort((a, b) => compareStrings(a.service, b.service));
  return { table, changed: !sameAllocationTable(table, live), filled: filled.sort(compareStrings), conflicts, agreed };
}

/** An entry as the logs show it: enough to tell two assignments of one service apart. */
export function describeEntry(e: AllocationEntry): {
  ips: readonly string[];
  writer: string;
  version: number;
  at: number;
  released: boolean;
  restored: boolean;
} {
  return { ips: e.ips, writer: e.writer, version: e.version, at: e.at, released: e.released, restored: e.restored === true };
}
