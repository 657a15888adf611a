/**
 * The allocation table of file mode: which addresses the allocator gave to which service, gossiped to every
 * node and kept under --state-dir. Pure.
 *
 * Without an API server there is no Service status to hold an allocation, so the table is that status. It must
 * survive restarts, a change of allocator and partitions in which two allocators write at once, so it is a
 * state-based CRDT: a map from service key to a last-writer-wins entry, merged by a join that is commutative,
 * associative and idempotent. Any two nodes that have seen the same tables hold the same table, whatever the
 * order the tables reached them in.
 *
 * - The table version is a Lamport clock: a writer stamps what it writes with (its table's version + 1), and a
 *   merge keeps the higher version, so a write made after seeing another always carries a higher version.
 * - Two allocators in a partition both continue from the same version; their writes are told apart by the
 *   writer's name, so (version, writer) orders every write totally (and the entry's content orders the last
 *   case: one node writing twice under one version, e.g. after a crash lost its last write).
 * - Per service the entry with the higher (tier, version, writer, content) wins: a later change of a service's
 *   addresses replaces the earlier one however old a table it meets. When both sides of a partition gave one
 *   service different addresses, the write with the higher stamp wins (reported as a conflict, both sides named).
 * - Two tiers: entries written by a live allocator, and entries restored from a node's allocations.json
 *   (`restored`, restore-allocations.ts). Every live entry outranks every restored one whatever the numbers,
 *   and restored entries do not raise the table's version: a file's versions come from another life of the
 *   cluster (a backup, a node that was away), so a stale file with a bigger number can neither replace what the
 *   running cluster assigned nor push the cluster's clock ahead. A restored entry only fills a service the live
 *   table does not hold, and the first live write for that service replaces it. The order stays a total order
 *   per service, so the merge below is still a join (commutative, associative, idempotent).
 * - The allocator writes an entry only when a service's addresses change or it is released; a service whose
 *   addresses stay is never restamped, so a partition side that kept a service's addresses cannot lose them to
 *   the other side's clock running ahead. Between two live entries there is no further "the older assignment
 *   wins" rule: a per-service total order cannot tell the allocator's deliberate change (which every follower
 *   must take, however many writes the follower's copy has seen) from a concurrent one, so two live entries that
 *   differ are either a real change or both sides assigning one service during a partition, settled by stamp.
 * - Removing a service writes a tombstone ("released", keeping the addresses it had), or a merge with any
 *   table still holding the entry would bring it back. Tombstones expire after RELEASED_ENTRY_TTL_MS (by each
 *   node's clock, outside the merge: expiry is housekeeping, not a new version).
 * - Two services holding one address is not resolved here: only the configuration knows whether they may share
 *   it (metallb.io/allow-shared-ip). The merge keeps both entries and reports the address; the claim pass
 *   (claim-addresses.ts) then gives it to the older live entry (a restored entry after every live one), on
 *   every node alike.
 */
import { compareStrings } from '../../allocator';

/**
 * How long a released entry (tombstone) is kept: it stops the entry coming back from a table that has not heard
 * of the removal yet (a node that was down or partitioned), and a service that returns within this time gets
 * its old addresses back when nobody took them. A day outlasts any outage worth healing; a node away longer
 * may bring an entry back, and the allocator releases it again (a service not in its file holds nothing).
 */
export const RELEASED_ENTRY_TTL_MS = 24 * 60 * 60 * 1000;

export interface AllocationEntry {
  /** Canonical IP texts (Go's net.IP.String()), in the allocator's order: the first is the one elected on. */
  readonly ips: readonly string[];
  /** The table version this entry was written at. */
  readonly version: number;
  /** The node that wrote it. */
  readonly writer: string;
  /** The writer's clock when it wrote the entry, ms since the epoch: when a tombstone expires, and for explain. */
  readonly at: number;
  /** A tombstone: the service was released; ips are the addresses it had. */
  readonly released: boolean;
  /**
   * Restored from allocations.json into a gap of the live table (restore-allocations.ts): ranks below every
   * live entry, and its version (another life's) counts neither in the table's version nor as age.
   */
  readonly restored?: boolean;
}

export interface AllocationTable {
  /** Only grows: at least the version of every live (not restored) entry. */
  readonly version: number;
  /** The node that wrote `version` ("" in the empty table). */
  readonly allocator: string;
  /** "namespace/name" -> entry, in key order. */
  readonly entries: ReadonlyMap<string, AllocationEntry>;
}

export function emptyAllocationTable(): AllocationTable {
  return { version: 0, allocator: '', entries: new Map() };
}

/** A table from its parts, entries sorted by key and the version raised to cover every live entry. */
export function makeAllocationTable(
  version: number,
  allocator: string,
  entries: Iterable<readonly [string, AllocationEntry]>,
): AllocationTable {
  const sorted = [...entries].sort(([a], [b]) => compareStrings(a, b));
  let top = { version, allocator };
  for (const [, e] of sorted) if (!e.restored) top = higherStamp(top, { version: e.version, allocator: e.writer });
  return { version: top.version, allocator: top.allocator, entries: new Map(sorted) };
}

interface Stamp {
  readonly version: number;
  readonly allocator: string;
}

function higherStamp(a: Stamp, b: Stamp): Stamp {
  if (a.version !== b.version) return a.version > b.version ? a : b;
  return compareStrings(a.allocator, b.allocator) >= 0 ? a : b;
}

/** The text that orders two entries with one stamp; equal only for equal entries. */
function contentKey(e: AllocationEntry): string {
  return JSON.stringify([e.released ? 1 : 0, e.at, e.ips]);
}

/** 0 for a restored entry, 1 for a live one: the first key of the order. */
function entryTier(e: AllocationEntry): number {
  return e.restored ? 0 : 1;
}

/** The total order of the last-writer-wins register: tier (live above restored), version, writer, content. */
export function compareEntries(a: AllocationEntry, b: AllocationEntry): number {
  const tier = entryTier(a) - entryTier(b);
  if (tier !== 0) return tier;
  if (a.version !== b.version) return a.version - b.version;
  return compareStrings(a.writer, b.writer) || compareContent(a, b);
}

/** The content's order; equal entries (the common case: the same entry heard again) without building their keys. */
function compareContent(a: AllocationEntry, b: AllocationEntry): number {
  if (!a.released === !b.released && a.at === b.at && sameIPTexts(a.ips, b.ips)) return 0;
  return compareStrings(contentKey(a), contentKey(b));
}

function sameEntry(a: AllocationEntry, b: AllocationEntry): boolean {
  return compareEntries(a, b) === 0;
}

export function sameIPTexts(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/** One service both tables hold, neither released, with different addresses: the higher entry won. */
export interface EntryConflict {
  readonly service: string;
  readonly kept: AllocationEntry;
  readonly dropped: AllocationEntry;
}

/** One address several live entries name (legitimate when the services share it, a partition's clash if not). */
export interface SharedAddress {
  readonly ip: string;
  readonly services: readonly string[];
}

export interface MergeReason {
  /** The result differs from the first table (the caller's own): persist and pass it on. */
  readonly changed: boolean;
  /** By service key. */
  readonly conflicts: readonly EntryConflict[];
  /** By address text, services by key. */
  readonly sharedAddresses: readonly SharedAddress[];
}

/**
 * The join of two tables: per service the higher entry, the higher (version, allocator) header. Commutative,
 * associative and idempotent in the table; the reason's `changed` is relative to `a`, the rest symmetric.
 */
export function mergeAllocationTables(a: AllocationTable, b: AllocationTable): { table: AllocationTable; reason: MergeReason } {
  const header = higherStamp(a, b);
  const merged = new Map<string, AllocationEntry>(a.entries);
  const conflicts: EntryConflict[] = [];
  for (const [key, theirs] of b.entries) {
    const ours = merged.get(key);
    const order = ours === undefined ? -1 : compareEntries(ours, theirs);
    if (ours !== undefined && order !== 0) {
      const [kept, dropped] = order > 0 ? [ours, theirs] : [theirs, ours];
      if (!kept.released && !dropped.released && !sameIPTexts(kept.ips, dropped.ips)) conflicts.push({ service: key, kept, dropped });
    }
    if (order < 0) merged.set(key, theirs);
  }
  const table = makeAllocationTable(header.version, header.allocator, merged);
  conflicts.sort((x, y) => compareStrings(x.service, y.service));
  const changed = !sameAllocationTable(table, a);
  return { table, reason: { changed, conflicts, sharedAddresses: sharedAddresses(table) } };
}

/** Addresses named by more than one live entry. */
function sharedAddresses(table: AllocationTable): SharedAddress[] {
  const byIP = new Map<string, string[]>();
  for (const [key, e] of table.entries) {
    if (e.released) continue;
    for (const ip of e.ips) byIP.set(ip, [...(byIP.get(ip) ?? []), key]);
  }
  return [...byIP.entries()]
    .filter(([, services]) => services.length > 1)
    .map(([ip, services]) => ({ ip, services }))
    .sort((x, y) => compareStrings(x.ip, y.ip));
}

/** Drops tombstones older than RELEASED_ENTRY_TTL_MS; the version stays (nothing anyone uses changed). */
export function expireReleasedEntries(table: AllocationTable, now: number): AllocationTable {
  let expired = false;
  const kept = new Map<string, AllocationEntry>();
  for (const [key, e] of table.entries) {
    if (e.released && now - e.at >= RELEASED_ENTRY_TTL_MS) expired = true;
    else kept.set(key, e);
  }
  return expired ? { version: table.version, allocator: table.allocator, entries: kept } : table;
}

export function sameAllocationTable(a: AllocationTable, b: AllocationTable): boolean {
  if (a.version !== b.version || a.allocator !== b.allocator || a.entries.size !== b.entries.size) return false;
  for (const [key, e] of a.entries) {
    const other = b.entries.get(key);
    if (other === undefined || !sameEntry(e, other)) return false;
  }
  return true;
}

/**
 * What a node does with a table it received (a broadcast or push/pull user state): merge it into its own,
 * expire old tombstones. `changed` says whether its own table changed, i.e. whether to persist it. Expiry
 * runs after the merge, so a tombstone this node already dropped does not count as news every time a peer
 * still holding it sends it again.
 */
export function receiveAllocationTable(
  local: AllocationTable,
  remote: AllocationTable,
  now: number,
): { table: AllocationTable; changed: boolean; reason: MergeReason } {
  const { table, reason } = mergeAllocationTables(local, remote);
  const expired = expireReleasedEntries(table, now);
  const changed = !sameAllocationTable(expired, local);
  return { table: expired, changed, reason: { ...reason, changed } };
}

/** The live entries' addresses, by service key. */
export function liveAllocations(table: AllocationTable): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const [key, e] of table.entries) if (!e.released) out.set(key, e.ips);
  return out;
}
