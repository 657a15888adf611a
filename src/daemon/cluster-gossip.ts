/**
 * The cluster state mlb daemons share beyond membership: every node's health report, the allocation table and
 * every node's configuration facts (config-facts/).
 * Changes go out as gossip broadcasts at once; the whole state rides on every push/pull as user state, so a
 * lost broadcast or a node that was away catches up within one anti-entropy round. Received tables are merged
 * (allocation-table.ts) and persisted under --state-dir, so a restart, a new allocator or a healed partition
 * keeps every allocation.
 *
 * allocations.json is not merged like a peer's table: it is held aside until this node has heard the cluster
 * (the first table a peer sends, or RESTORE_ALONE_WAIT_MS after the first join attempt when nobody has) and
 * then only fills services the live table does not hold (restore-allocations.ts). Until then this node
 * publishes no table of its own and, as allocator, writes nothing.
 */
import type { Logger } from 'pino';
import type { GossipNode } from '../gossip/gossip-node';
import { decodeNodeMeta } from '../gossip/node-meta';
import { serviceKey, type Snapshot } from '../model';
import { REAL_RUNTIME } from '../runtime/real-runtime';
import type { Clock, Scheduler, Timer } from '../runtime/runtime';
import type { StateFiles } from '../runtime/state-files';
import { stateFilesOf, type StateFilesOption } from './directory-state-files';
import { AllocationStatusCode, effectiveAllocation } from './allocation/effective-allocation';
import { emptyAllocationTable, receiveAllocationTable, type AllocationTable } from './allocation/allocation-table';
import { decodeAllocationTable, encodeAllocationTable } from './allocation/allocation-table-codec';
import { loadAllocationTable, saveAllocationTable } from './allocation/allocation-store';
import type { ServiceHolders, WithheldRelease } from './allocation/allocate-with-table';
import { describeEntry, restoreAllocations } from './allocation/restore-allocations';
import { REJOIN_INTERVAL_MS } from './cluster-membership';
import type { LiveMember, ServiceAddresses } from './cluster-decision';
import { decodeConfigFacts, encodeConfigFacts, mergeConfigFacts, type ConfigFacts } from './config-facts/config-facts-codec';
import { decodeGossipRecordsCounted, encodeGossipRecords, GossipRecordKind, type GossipRecord } from './gossip-records';
import { parseHealthCheck, type HealthCheckSpec } from './health/health-check-spec';
import { HealthMonitor, type Prober } from './health/health-monitor';
import { HealthDetailsSharing } from './health/health-details-sharing';
import { decodeHealthDetails, type HealthDetails } from './health/health-details';
import { runProbe } from './health/health-probers';
import type { RunAs } from './health/run-as';
import {
  decodeHealthReport,
  encodeHealthReport,
  healthVerdicts,
  mergeHealthReport,
  retainHealthReports,
  servingNodes,
  type HealthReport,
} from './health/health-report';

const HAS_ADDRESSES: ReadonlySet<string> = new Set([
  AllocationStatusCode.requested,
  AllocationStatusCode.allocated,
  AllocationStatusCode.fromTable,
]);

/** Broadcast keys: a newer report or table replaces a queued older one instead of queueing behind it. */
const HEALTH_BROADCAST_KEY = 'mlb-health';
const HEALTH_DETAILS_BROADCAST_KEY = 'mlb-health-details';
const TABLE_BROADCAST_KEY = 'mlb-allocation';
const CONFIG_BROADCAST_KEY = 'mlb-config';
/**
 * Push/pull state relays other nodes' configuration facts (so a newcomer learns everyone's at its join) while
 * they fit in this many bytes; beyond it only this node's own travel, and the others' arrive from their owners.
 * The allocation table may take 896 KiB of the 1 MiB user state (allocation-table-codec.ts).
 */
const CONFIG_FACTS_RELAY_BUDGET_BYTES = 64 * 1024;

/**
 * How long a node that reached nobody on its first join keeps its allocations.json aside before using it alone.
 * Running peers that know this node rejoin it every REJOIN_INTERVAL_MS (cluster-membership.ts), and their
 * push/pull brings the live table; two intervals give them two chances before a lone node decides it is alone.
 */
export const RESTORE_ALONE_WAIT_MS = 2 * REJOIN_INTERVAL_MS;

/** `stateDir` (the --state-dir path) or `stateFiles` (the node's store): where allocations.json lives. */
export type ClusterGossipOptions = StateFilesOption & {
  readonly gossip: GossipNode;
  readonly self: string;
  /** The daemon's start time: its health reports outrank those of its previous life. */
  readonly epoch: number;
  readonly logger: Logger;
  /** The clock allocations are stamped with and the RESTORE_ALONE_WAIT_MS timer; the real one by default. */
  readonly runtime?: Clock & Scheduler;
  /** Something another node said, or a local check, changed an election input. */
  readonly onChange: () => void;
  /** This node's own check of a service flipped. */
  readonly onHealthChange?: (service: string, passing: boolean, detail: string) => void;
  /** exec: health checks run as this user (--health-check-user); the daemon's own ids otherwise. */
  readonly healthCheckRunAs?: RunAs;
  /** Runs one health check; the real probes (as healthCheckRunAs) by default. */
  readonly healthProbe?: Prober;
  /** RESTORE_ALONE_WAIT_MS unless a test says otherwise. */
  readonly restoreAloneWaitMs?: number;
  /** Records of other kinds (split-brain conflict reports): their owner's, pushed with the state; true: changed. */
  readonly otherRecords?: { readonly state: () => readonly GossipRecord[]; readonly receive: (record: GossipRecord) => boolean };
};

export interface AllocationView {
  readonly addresses: ReadonlyMap<string, ServiceAddresses>;
  readonly allocator: string | null;
  /** On the allocator: entries of services its file lacks that other live members still define. */
  readonly withheld: readonly WithheldRelease[];
}

export class ClusterGossip {
  private health: ReadonlyMap<string, HealthReport> = new Map();
  private seq = 0;
  private table: AllocationTable;
  private results = new Map<string, { status: string; message?: string }>();
  private allocator: string | null = null;
  private role: 'allocating' | 'following' | undefined;
  /** The first join attempt is over. */
  private joined = false;
  /** allocations.json, held aside until this node has heard the cluster (undefined: none, or restored). */
  private held: AllocationTable | undefined;
  private restoreTimer: Timer | undefined;
  private publishedHealth: string | undefined;
  /** A received report changed the table: the next push/pull must carry it. */
  private stateDirty = false;
  private writes: Promise<void> = Promise.resolve();
  readonly drops = { notOurs: 0, badHealthReport: 0, badTable: 0, badConfigFacts: 0, unknownKind: 0 };
  private configFacts: ReadonlyMap<string, ConfigFacts> = new Map();
  private configSeq = 0;
  private publishedConfig: string | undefined;
  private withheld: readonly WithheldRelease[] = [];
  private readonly monitor: HealthMonitor;
  /** Why checks fail, here and on the others: `mlb explain` says it (health/health-details-sharing.ts). */
  private readonly details: HealthDetailsSharing;
  private checked = new Map<string, HealthCheckSpec>();
  private readonly runtime: Clock & Scheduler;

  private constructor(
    private readonly options: ClusterGossipOptions,
    private readonly files: StateFiles,
    held: AllocationTable | undefined,
  ) {
    this.runtime = options.runtime ?? REAL_RUNTIME;
    this.table = emptyAllocationTable();
    this.held = held;
    const runAs = options.healthCheckRunAs;
    this.details = new HealthDetailsSharing(options.self, options.epoch);
    const probe: Prober | undefined = options.healthProbe ?? (runAs ? (spec, signal) => runProbe(spec, signal, runAs) : undefined);
    this.monitor = new HealthMonitor({
      logger: options.logger,
      node: options.self,
      ...(options.runtime ? { runtime: options.runtime } : {}),
      ...(probe ? { probe } : {}),
    });
    // The monitor logs each flip itself (healthCheckPassing / healthCheckFailing).
    this.monitor.on('change', (key, result) => {
      options.onHealthChange?.(key, result.state === 'passing', result.detail);
      this.publishHealth();
      options.onChange();
    });
    this.monitor.on('probed', (key, result) => {
      if (this.details.changes(key, result)) this.publishHealthDetails();
    });
    options.gossip.on('userMessage', (bytes) => this.receive(bytes));
    options.gossip.on('remoteState', (bytes) => this.receive(bytes));
  }

  static async start(options: ClusterGossipOptions): Promise<ClusterGossip> {
    const files = stateFilesOf(options);
    const table = await loadAllocationTable(files).catch((error: Error) => {
      options.logger.error({ event: 'stateAllocationsUnreadable' }, `${error.message}: starting from the cluster's table`);
      return undefined;
    });
    if (table) {
      options.logger.info(
        { event: 'allocationsLoaded', version: table.version, services: table.entries.size },
        `allocation table version ${table.version} read from disk; held aside until the cluster's table is heard`,
      );
    }
    const cluster = new ClusterGossip(options, files, table);
    cluster.publishHealth();
    return cluster;
  }

  // --- health ------------------------------------------------------------------------------------------------------

  /** Starts, changes or stops this node's checks to match the configuration. */
  updateHealthChecks(snapshot: Snapshot): void {
    const checked = new Map<string, HealthCheckSpec>();
    for (const service of snapshot.services) {
      const parsed = parseHealthCheck(service.meta.annotations);
      if (parsed.ok && parsed.spec) checked.set(serviceKey(service), parsed.spec);
    }
    this.checked = checked;
    this.monitor.update(snapshot.services.map((s) => ({ key: serviceKey(s), spec: checked.get(serviceKey(s)) })));
    this.publishHealth();
    this.publishHealthDetails(); // a removed service's details go with it
  }

  /** Health-checked services -> the live nodes whose latest report passes. */
  passing(snapshot: Snapshot, live: readonly string[]): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    for (const service of snapshot.services) {
      const key = serviceKey(service);
      if (this.checked.has(key)) out.set(key, servingNodes(this.health, key, live, true));
    }
    return out;
  }

  /** For status: per health-checked service, the nodes passing and failing (a node without a report fails). */
  healthView(snapshot: Snapshot | undefined): Map<string, { passing: string[]; failing: string[] }> {
    const out = new Map<string, { passing: string[]; failing: string[] }>();
    if (!snapshot) return out;
    const nodes = [...this.health.keys()];
    for (const key of this.checked.keys()) {
      const verdicts = healthVerdicts(this.health, key, nodes, true);
      const passing = [...verdicts]
        .filter(([, v]) => v.serving)
        .map(([n]) => n)
        .sort();
      const failing = [...verdicts]
        .filter(([, v]) => !v.serving)
        .map(([n]) => n)
        .sort();
      out.set(key, { passing, failing });
    }
    return out;
  }

  /** Publishes this node's report when its content changed (never on every recomputation: that would echo). */
  private publishHealth(): void {
    const results: Record<string, boolean> = {};
    for (const [key, result] of [...this.monitor.results()].sort(([a], [b]) => (a < b ? -1 : 1))) results[key] = result.state === 'passing';
    const fingerprint = JSON.stringify(results);
    if (fingerprint === this.publishedHealth) return;
    this.publishedHealth = fingerprint;
    const report: HealthReport = { node: this.options.self, epoch: this.options.epoch, seq: ++this.seq, results };
    this.health = mergeHealthReport(this.health, report).table;
    const record = { kind: GossipRecordKind.healthReport, bytes: encodeHealthReport(report) };
    this.options.gossip.broadcast(encodeGossipRecords([record]), HEALTH_BROADCAST_KEY);
    this.publishState();
  }

  /** Per node, why its failing checks fail, as far as gossip has told this node. */
  healthDetails(): ReadonlyMap<string, HealthDetails> {
    return this.details.view();
  }

  private publishHealthDetails(): void {
    const record = this.details.publish(this.monitor.results());
    if (!record) return;
    this.options.gossip.broadcast(encodeGossipRecords([record]), HEALTH_DETAILS_BROADCAST_KEY);
    this.publishState();
  }

  // --- allocation --------------------------------------------------------------------------------------------------

  /**
   * The addresses to elect on. The allocator (first in hash order over "mlb-allocator") allocates and publishes a
   * new table version when something changed; everyone uses the table, and explicit IPs straight from the file.
   */
  allocate(snapshot: Snapshot, live: readonly LiveMember[], holders?: ServiceHolders): AllocationView {
    const now = this.runtime.now();
    const liveNames = new Set(live.map((m) => m.name));
    this.health = retainHealthReports(this.health, liveNames);
    // Kept while gossip remembers the member (dead ones too, until reaped): a node that was briefly declared dead
    // and came back does not re-send details that did not change, and its explanation would lose them.
    this.details.retain(new Set(this.options.gossip.members().map((m) => m.name)));
    this.configFacts = new Map([...this.configFacts].filter(([node]) => liveNames.has(node) || node === this.options.self));
    // Only mlb nodes can allocate: a plain MetalLB speaker in the cluster is never chosen.
    const mlbNodes = live.filter((m) => decodeNodeMeta(m.meta) !== undefined).map((m) => m.name);
    // Until the first join is over and the file is restored, a restarted allocator must not write a version of
    // its own (it would allocate afresh what the cluster or its file already assigned), nor use such a run.
    const result = effectiveAllocation(snapshot, this.table, mlbNodes, this.options.self, now, holders, this.ready);
    this.logWithheld(result.withheld);
    // Logged again when this node starts writing (role "following" until it has heard the cluster).
    if (result.allocator !== this.allocator || result.reason.code !== this.role) {
      this.allocator = result.allocator;
      this.role = result.reason.code;
      this.options.logger.info({ event: 'allocatorElected', allocator: this.allocator, role: result.reason.code }, result.reason.message);
    }
    // The control API's contract: "ok" for a service that has its addresses, else the code and the reason.
    this.results = new Map(
      [...result.services].map(([key, s]) => [key, HAS_ADDRESSES.has(s.code) ? { status: 'ok' } : { status: s.code, message: s.message }]),
    );
    if (result.changed) {
      this.table = result.table;
      this.options.logger.info(
        {
          event: 'allocationsPublished',
          version: this.table.version,
          changes: result.changes.map((c) => ({ service: c.service, ips: c.after.ips, released: c.after.released })),
        },
        `allocation table version ${this.table.version} published`,
      );
      this.persist();
      this.options.gossip.broadcast(encodeGossipRecords([this.tableRecord()]), TABLE_BROADCAST_KEY);
      this.publishState();
    }
    return { addresses: result.addresses, allocator: this.allocator, withheld: result.withheld };
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

  // --- configuration facts -----------------------------------------------------------------------------------------

  /** The newest configuration facts per node (this node's own included once published). */
  configFactsTable(): ReadonlyMap<string, ConfigFacts> {
    return this.configFacts;
  }

  /** Publishes this node's configuration facts when they changed (a reload, or retention starting or ending). */
  publishConfigFacts(facts: Omit<ConfigFacts, 'node' | 'epoch' | 'seq'>): void {
    const fingerprint = JSON.stringify([
      facts.digest,
      facts.services,
      facts.keysTruncated,
      [...facts.keyHashes].sort(),
      [...facts.retainedHashes].sort(),
      facts.refusedReason ?? null,
    ]);
    if (fingerprint === this.publishedConfig) return;
    this.publishedConfig = fingerprint;
    const own: ConfigFacts = { ...facts, node: this.options.self, epoch: this.options.epoch, seq: ++this.configSeq };
    this.configFacts = mergeConfigFacts(this.configFacts, own).table;
    this.options.gossip.broadcast(
      encodeGossipRecords([{ kind: GossipRecordKind.configFacts, bytes: encodeConfigFacts(own) }]),
      CONFIG_BROADCAST_KEY,
    );
    this.publishState();
  }

  /** The allocator may write: the first join is over and nothing is held aside. */
  private get ready(): boolean {
    return this.joined && this.held === undefined;
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
      this.restoreTimer = this.runtime.after(wait, () => {
        this.restoreTimer = undefined;
        if (this.restoreHeld('alone')) this.publishTable();
        this.options.onChange();
      });
    }
    this.options.onChange();
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
    this.persist();
    return true;
  }

  private publishTable(): void {
    this.options.gossip.broadcast(encodeGossipRecords([this.tableRecord()]), TABLE_BROADCAST_KEY);
    this.publishState();
  }

  allocationView(): { allocator: string | null; version: number; results: ReadonlyMap<string, { status: string; message?: string }> } {
    return { allocator: this.allocator, version: this.table.version, results: this.results };
  }

  private tableRecord(): GossipRecord {
    return { kind: GossipRecordKind.allocationTable, bytes: encodeAllocationTable(this.table) };
  }

  private persist(): void {
    const table = this.table;
    this.writes = this.writes
      .then(() => saveAllocationTable(this.files, table))
      .catch((error: Error) =>
        this.options.logger.error({ event: 'stateWriteFailed' }, `cannot persist the allocation table: ${error.message}`),
      );
  }

  // --- the wire ----------------------------------------------------------------------------------------------------

  /**
   * Push/pull carries the table and every health report this node holds, not only its own: a broadcast lost on
   * the way (or sent before a peer joined) reaches everyone through whichever pair exchanges state next, and a
   * join (itself a push/pull) brings the newcomer the whole picture at once.
   */
  private publishState(): void {
    const records: GossipRecord[] = [this.tableRecord()];
    for (const report of this.health.values()) records.push({ kind: GossipRecordKind.healthReport, bytes: encodeHealthReport(report) });
    records.push(...this.configRecords());
    records.push(...this.details.records());
    records.push(...(this.options.otherRecords?.state() ?? []));
    this.options.gossip.setLocalState(encodeGossipRecords(records));
  }

  /** What otherRecords.state() returns changed: the next push/pull carries it. */
  stateChanged(): void {
    this.publishState();
  }

  /** This node's facts first, then others' while they fit CONFIG_FACTS_RELAY_BUDGET_BYTES. */
  private configRecords(): GossipRecord[] {
    const own = this.configFacts.get(this.options.self);
    const others = [...this.configFacts.values()].filter((f) => f.node !== this.options.self);
    const records: GossipRecord[] = [];
    let budget = CONFIG_FACTS_RELAY_BUDGET_BYTES;
    for (const facts of own ? [own, ...others] : others) {
      const bytes = encodeConfigFacts(facts);
      if (facts !== own && bytes.length > budget) continue;
      budget -= bytes.length;
      records.push({ kind: GossipRecordKind.configFacts, bytes });
    }
    return records;
  }

  private receive(bytes: Uint8Array): void {
    const decoded = decodeGossipRecordsCounted(bytes);
    if (!decoded) {
      this.drops.notOurs++;
      return;
    }
    const { records } = decoded;
    // A newer peer's records (records-protocol.ts): skipped, and counted so a mixed cluster is visible.
    this.drops.unknownKind += decoded.unknownKinds;
    let changed = false;
    for (const record of records) {
      if (record.kind === GossipRecordKind.healthReport) changed = this.receiveHealth(record.bytes) || changed;
      else if (record.kind === GossipRecordKind.configFacts) changed = this.receiveConfigFacts(record.bytes) || changed;
      else if (record.kind === GossipRecordKind.allocationTable) changed = this.receiveTable(record.bytes) || changed;
      // Details change no election input: only the push/pull, the relay and `mlb explain` need them.
      else if (record.kind === GossipRecordKind.healthDetails) this.receiveHealthDetails(record.bytes);
      else changed = (this.options.otherRecords?.receive(record) ?? false) || changed;
    }
    if (this.stateDirty) {
      this.stateDirty = false;
      this.publishState();
    }
    if (changed) this.options.onChange();
  }

  /**
   * Passes on a record this node has just learned (newer than what it held): a broadcast goes out a limited number
   * of times to random members (4 in a cluster of up to 9, memberlist's retransmit limit), so one member of five
   * usually missed the originator's and would learn it only at a push/pull, 15 s or more later, electing from stale
   * facts meanwhile (an IP dark, or announced twice). Relayed once per new record, keyed by its origin so a newer
   * record from the same node replaces an older one still queued; a record already held is not relayed, so it dies
   * out. The way serf spreads its user events.
   */
  private relay(kind: GossipRecordKind, bytes: Uint8Array, key: string): void {
    this.options.gossip.broadcast(encodeGossipRecords([{ kind, bytes }]), key);
  }

  private receiveHealth(bytes: Uint8Array): boolean {
    const report = decodeHealthReport(bytes);
    if (!report) {
      this.drops.badHealthReport++;
      return false;
    }
    if (report.node === this.options.self) return false;
    const merged = mergeHealthReport(this.health, report);
    this.health = merged.table;
    if (merged.changed) {
      this.stateDirty = true;
      this.relay(GossipRecordKind.healthReport, bytes, `${HEALTH_BROADCAST_KEY}:${report.node}`);
    }
    return merged.changed;
  }

  /**
   * Passed on like a health report (relay's comment): without it one member of five usually learned why a check
   * fails only at the next push/pull, and its `mlb explain` named the failing node without the reason meanwhile.
   */
  private receiveHealthDetails(bytes: Uint8Array): void {
    if (!this.details.receive(bytes)) return;
    this.stateDirty = true;
    const node = decodeHealthDetails(bytes)?.node;
    if (node !== undefined) this.relay(GossipRecordKind.healthDetails, bytes, `${HEALTH_DETAILS_BROADCAST_KEY}:${node}`);
  }

  private receiveConfigFacts(bytes: Uint8Array): boolean {
    const facts = decodeConfigFacts(bytes);
    if (!facts) {
      this.drops.badConfigFacts++;
      return false;
    }
    if (facts.node === this.options.self) return false;
    const merged = mergeConfigFacts(this.configFacts, facts);
    this.configFacts = merged.table;
    if (merged.changed) {
      this.stateDirty = true;
      this.relay(GossipRecordKind.configFacts, bytes, `${CONFIG_BROADCAST_KEY}:${facts.node}`);
    }
    return merged.changed;
  }

  private receiveTable(bytes: Uint8Array): boolean {
    const remote = decodeAllocationTable(bytes);
    if (!remote) {
      this.drops.badTable++;
      return false;
    }
    const merged = receiveAllocationTable(this.table, remote, this.runtime.now());
    for (const c of merged.reason.conflicts) {
      this.options.logger.warn(
        { event: 'allocationConflict', service: c.service, kept: describeEntry(c.kept), dropped: describeEntry(c.dropped) },
        `${c.service} was given ${c.kept.ips.join(',')} (version ${c.kept.version} by ${c.kept.writer}) and ${c.dropped.ips.join(',')} (version ${c.dropped.version} by ${c.dropped.writer}); keeping the first, the higher entry`,
      );
    }
    if (merged.changed) this.table = merged.table;
    // The first table heard from the cluster: what the file holds may now fill its gaps.
    const restored = this.restoreHeld('heard');
    if (!merged.changed && !restored) return false;
    if (merged.changed) this.persist();
    // A newer table is passed on (relay's comment), the merged one: what this node now uses.
    if (restored || merged.changed) this.publishTable();
    else this.publishState();
    return true;
  }

  close(): Promise<void> {
    this.restoreTimer?.cancel();
    this.restoreTimer = undefined;
    return this.monitor.close();
  }

  /** Resolves when the table has been written. */
  flush(): Promise<void> {
    return this.writes;
  }
}
