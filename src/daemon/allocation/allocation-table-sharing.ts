/**
 * The allocation table shared through gossip: the allocator (first in hash order over "mlb-allocator") writes new
 * versions and broadcasts them, every node merges the tables it receives (allocation-table.ts), and the table
 * rides on every push/pull, so a restart, a new allocator or a healed partition keeps every allocation. Every
 * change is saved to allocations.json (allocation-table-saver.ts).
 *
 * allocations.json is not merged like a peer's table: it is held aside until this node has heard the cluster
 * (the first table a peer sends, or RESTORE_ALONE_WAIT_MS after the first join attempt when nobody has) and
 * then only fills services the live table does not hold (restore-allocations.ts). Until then this node
 * publishes no table of its own and, as allocator, writes nothing.
 */
import type { Logger } from 'pino';
import { decodeNodeMeta } from '../../gossip/node-meta';
import type { Snapshot } from '../../model';
import type { Clock, Scheduler, Timer } from '../../runtime/runtime';
import { REJOIN_INTERVAL_MS } from '../cluster-membership';
import type { LiveMember, ServiceAddresses } from '../cluster-decision';
import { GossipRecordKind, type GossipRecord } from '../records/record-kinds';
import type { RecordEffect, RecordsChannel, RecordsPart } from '../records/records-wire';
import type { ServiceHolders, WithheldRelease } from './allocate-with-table';
import { emptyAllocationTable, receiveAllocationTable, type AllocationTable } from './allocation-table';
import type { AllocationTableSaver } from './allocation-table-saver';
import { AllocationStatusCode, effectiveAllocation, type ReusableAllocation } from './effective-allocation';
import { describeEntry, restoreAllocations } from './restore-allocations';

const HAS_ADDRESSES: ReadonlySet<string> = new Set([
  AllocationStatusCode.requested,
  AllocationStatusCode.allocated,
  AllocationStatusCode.fromTable,
]);

/** Broadcast key: a newer table replaces a queued older one instead of queueing behind it. */
const TABLE_BROADCAST_KEY = 'mlb-allocation';

/**
 * How long a node that reached nobody on its first join keeps its allocations.json aside before using it alone.
 * Running peers that know this node rejoin it every REJOIN_INTERVAL_MS (cluster-membership.ts), and their
 * push/pull brings the live table; two intervals give them two chances before a lone node decides it is alone.
 */
export const RESTORE_ALONE_WAIT_MS = 2 * REJOIN_INTERVAL_MS;

export interface AllocationView {
  readonly addresses: ReadonlyMap<string, ServiceAddresses>;
  readonly allocator: string | null;
  /** On the allocator: entries of services its file lacks that other live members still define. */
  readonly withheld: readonly WithheldRelease[];
}

export interface AllocationTableSharingOptions {
  readonly self: string;
  readonly wire: RecordsChannel;
  readonly saver: AllocationTableSaver;
  /** allocations.json as read at start (AllocationTableSaver.load), held aside until the cluster is heard. */
  readonly held: AllocationTable | undefined;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
  /** The clock allocations are stamped with and the RESTORE_ALONE_WAIT_MS timer. */
  readonly runtime: Clock & Scheduler;
  /** The table changed without a received record (the held file restored alone, or the first join over). */
  readonly onChange: () => void;
  /** RESTORE_ALONE_WAIT_MS unless a test says otherwise. */
  readonly restoreAloneWaitMs?: number;
}

export class AllocationTableSharing implements RecordsPart {
  private table: AllocationTable = emptyAllocationTable();
  private results = new Map<string, { status: string; message?: string }>();
  private allocator: string | null = null;
  private role: 'allocating' | 'following' | undefined;
  /** The first join attempt is over. */
  private joined = false;
  /** allocations.json, held aside until this node has heard the cluster (undefined: none, or restored). */
  private held: AllocationTable | undefined;
  private restoreTimer: Timer | undefined;
  private withheld: readonly WithheldRelease[] = [];
  /** What the next allocation may reuse of the last one (effective-allocation.ts ReusableAllocation). */
  private reusable: ReusableAllocation | undefined;

  constructor(private readonly options: AllocationTableSharingOptions) {
    this.held = options.held;
  }

  /**
   * The addresses to elect on. The allocator allocates and publishes a new table version when something changed;
   * everyone uses the table, and explicit IPs straight from the file.
   */
  allocate(snapshot: Snapshot, live: readonly LiveMember[], holders?: ServiceHolders): AllocationView {
    const { logger } = this.options;
    // Only mlb nodes can allocate: a plain MetalLB speaker in the cluster is never chosen.
    const mlbNodes = live.filter((m) => decodeNodeMeta(m.meta) !== undefined).map((m) => m.name);
    // Until the first join is over and the file is restored, a restarted allocator must not write a version of
    // its own (it would allocate afresh what the cluster or its file already assigned), nor use such a run.
    const now = this.options.runtime.now();
    const result = effectiveAllocation(snapshot, this.table, mlbNodes, this.options.self, now, holders, this.ready, this.reusable);
    this.reusable = result.reusable;
    this.logWithheld(result.withheld);
    // Logged again when this node starts writing (role "following" until it has heard the cluster).
    if (result.allocator !== this.allocator || result.reason.code !== this.role) {
      this.allocator = result.allocator;
      this.role = result.reason.code;
      logger.info({ event: 'allocatorElected', allocator: this.allocator, role: result.reason.code }, result.reason.message);
    }
    // The control API's contract: "ok" for a service that has its addresses, else the code and the reason.
    this.results = new Map(
      [...result.services].map(([key, s]) => [key, HAS_ADDRESSES.has(s.code) ? { status: 'ok' } : { status: s.code, message: s.message }]),
    );
    if (result.changed) {
      this.table = result.table;
      logger.info(
        {
          event: 'allocationsPublished',
          version: this.table.version,
          changes: result.changes.map((c) => ({ service: c.service, ips: c.after.ips, released: c.after.released })),
        },
        `allocation table version ${this.table.version} published`,
      );
      this.options.saver.save(this.table);
      this.publishTable();
    }
    return { addresses: result.addresses, allocator: this.allocator, withheld: result.withheld };
  }

  allocationView(): { allocator: string | null; version: number; results: ReadonlyMap<string, { status: string; message?: string }> } {
    return { allocator: this.allocator, version: this.table.version, results: this.results };
  }

  /**
   * The first join is over (merged or nobody reachable). A file still held aside (nobody has sent a table) is
   * restored after RESTORE_ALONE_WAIT_MS, unless a peer's table comes first.
   */
  markJoined(): void {
    if (this.joined) return;
    this.joined = true;
    if (this.held !== undefined && this.restoreTimer === undefined) {
      const wait = this.options.restoreAloneWaitMs ?? RESTORE_ALONE_WAIT_MS;
      this.restoreTimer = this.options.runtime.after(wait, () => {
        this.restoreTimer = undefined;
        if (this.restoreHeld('alone')) this.publishTable();
        this.options.onChange();
      });
    }
    this.options.onChange();
  }

  /** The table rides on every push/pull. */
  state(): GossipRecord[] {
    return [this.tableRecord()];
  }

  receive(record: GossipRecord): RecordEffect {
    if (record.kind !== GossipRecordKind.allocationTable) return 'none';
    const merged = receiveAllocationTable(this.table, record.value, this.options.runtime.now());
    for (const c of merged.reason.conflicts) {
      this.options.logger.warn(
        { event: 'allocationConflict', service: c.service, kept: describeEntry(c.kept), dropped: describeEntry(c.dropped) },
        `${c.service} was given ${c.kept.ips.join(',')} (version ${c.kept.version} by ${c.kept.writer}) and ${c.dropped.ips.join(',')} (version ${c.dropped.version} by ${c.dropped.writer}); keeping the first, the higher entry`,
      );
    }
    if (merged.changed) this.table = merged.table;
    // The first table heard from the cluster: what the file holds may now fill its gaps.
    const restored = this.restoreHeld('heard');
    if (!merged.changed && !restored) return 'none';
    if (merged.changed) this.options.saver.save(this.table);
    // A newer table is passed on (the merged one: what this node now uses), as RecordsWire.relay explains.
    this.options.wire.broadcast([this.tableRecord()], TABLE_BROADCAST_KEY);
    return 'election';
  }

  close(): void {
    this.restoreTimer?.cancel();
    this.restoreTimer = undefined;
  }

  /** The allocator may write: the first join is over and nothing is held aside. */
  private get ready(): boolean {
    return this.joined && this.held === undefined;
  }

  /** Logs the releases the allocator holds back when that set changes (not on every recomputation). */
  private logWithheld(withheld: readonly WithheldRelease[]): void {
    const fingerprint = (list: readonly WithheldRelease[]) => JSON.stringify(list.map((w) => [w.service, w.definedBy]));
    if (fingerprint(withheld) === fingerprint(this.withheld)) return;
    this.withheld = withheld;
    if (withheld.length === 0) return;
    this.options.logger.warn(
      { event: 'releaseWithheld', services: withheld.map((w) => ({ service: w.service, ips: w.ips, definedBy: w.definedBy })) },
      withheld.map((w) => w.message).join('; '),
    );
  }

  /**
   * Restores the held file into the live table (restore-allocations.ts) and logs what it did; true when the
   * table changed. `heard`: a peer's table arrived; `alone`: nobody sent one within the wait.
   */
  private restoreHeld(trigger: 'heard' | 'alone'): boolean {
    const disk = this.held;
    if (disk === undefined) return false;
    this.held = undefined;
    this.restoreTimer?.cancel();
    this.restoreTimer = undefined;
    const outcome = restoreAllocations(this.table, disk);
    const { logger } = this.options;
    for (const c of outcome.conflicts) {
      logger.warn(
        { event: 'allocationRestoreConflict', service: c.service, kept: 'live', live: describeEntry(c.live), disk: describeEntry(c.disk) },
        `${c.service}: allocations.json gives ${c.disk.ips.join(',')} (version ${c.disk.version} by ${c.disk.writer}), the cluster ${c.live.ips.join(',')} (version ${c.live.version} by ${c.live.writer}); keeping the cluster's`,
      );
    }
    logger.info(
      {
        event: 'allocationsRestored',
        trigger,
        filled: outcome.filled,
        conflicts: outcome.conflicts.length,
        agreed: outcome.agreed,
        version: outcome.table.version,
      },
      trigger === 'heard'
        ? `allocations.json merged into the cluster's table: ${outcome.filled.length} filled, ${outcome.conflicts.length} conflicting kept as the cluster has them`
        : `nobody sent a table within the wait: allocations.json restored (${outcome.filled.length} services)`,
    );
    if (!outcome.changed) return false;
    this.table = outcome.table;
    this.options.saver.save(this.table);
    return true;
  }

  private publishTable(): void {
    this.options.wire.broadcast([this.tableRecord()], TABLE_BROADCAST_KEY);
    this.options.wire.stateChanged();
  }

  private tableRecord(): GossipRecord {
    return { kind: GossipRecordKind.allocationTable, value: this.table };
  }
}
