/**
 * Health results shared through gossip (docs/architecture.md, "Node facts travel in gossip"): this node's own
 * report, published whenever one of its checks flips, the newest report received from every live member, and
 * from them the verdicts the election and status use. Also carries the failing checks' details
 * (health-details-sharing.ts). The checks themselves run in HealthMonitor (health-monitor.ts); health-checks.ts
 * connects the two.
 */
import { serviceKey, type Snapshot } from '../../model';
import { GossipRecordKind, type GossipRecord } from '../records/record-kinds';
import type { RecordEffect, RecordsChannel, RecordsPart } from '../records/records-wire';
import { parseHealthCheck, type HealthCheckSpec } from './health-check-spec';
import { HealthDetailsSharing } from './health-details-sharing';
import type { HealthDetails } from './health-details';
import type { HealthResult, MonitoredService } from './health-monitor';
import { healthVerdicts, mergeHealthReport, retainHealthReports, servingNodes, type HealthReport } from './health-report';

/** Broadcast keys: a newer report replaces a queued older one instead of queueing behind it. */
const HEALTH_BROADCAST_KEY = 'mlb-health';
const HEALTH_DETAILS_BROADCAST_KEY = 'mlb-health-details';

/** What this part needs of the health monitor: its results, and the set of checks to run. */
export interface HealthResults {
  results(): ReadonlyMap<string, HealthResult>;
  update(services: readonly MonitoredService[]): void;
}

export class HealthReportSharing implements RecordsPart {
  private health: ReadonlyMap<string, HealthReport> = new Map();
  private seq = 0;
  private publishedHealth: string | undefined;
  private checked = new Map<string, HealthCheckSpec>();
  /** The snapshot `checked` was read from. */
  private checkedFor: Snapshot | undefined;
  /**
   * Each Service's annotations, parsed, by the annotations object: interning keeps an unchanged service's objects
   * across reloads, so a reload parses only what it changed.
   */
  private readonly parsedAnnotations = new WeakMap<object, ReturnType<typeof parseHealthCheck>>();
  /** Why checks fail, here and on the others: `mlb explain` says it. */
  private readonly details: HealthDetailsSharing;

  constructor(
    private readonly self: string,
    /** The daemon's start time: its reports outrank those of its previous life. */
    private readonly epoch: number,
    private readonly wire: RecordsChannel,
    private readonly monitor: HealthResults,
  ) {
    this.details = new HealthDetailsSharing(self, epoch);
  }

  /** Starts, changes or stops this node's checks to match the configuration. */
  updateHealthChecks(snapshot: Snapshot): void {
    // Every decision asks; most keep the configuration (the same snapshot: interned, nothing retained).
    if (snapshot === this.checkedFor) return;
    this.checkedFor = snapshot;
    const checked = new Map<string, HealthCheckSpec>();
    for (const service of snapshot.services) {
      const parsed = this.parsed(service.meta.annotations);
      if (parsed.ok && parsed.spec) checked.set(serviceKey(service), parsed.spec);
    }
    this.checked = checked;
    this.monitor.update(snapshot.services.map((s) => ({ key: serviceKey(s), spec: checked.get(serviceKey(s)) })));
    this.publishReport();
    this.publishHealthDetails(); // a removed service's details go with it
  }

  private parsed(annotations: Parameters<typeof parseHealthCheck>[0]): ReturnType<typeof parseHealthCheck> {
    let parsed = this.parsedAnnotations.get(annotations);
    if (!parsed) {
      parsed = parseHealthCheck(annotations);
      this.parsedAnnotations.set(annotations, parsed);
    }
    return parsed;
  }

  /** A probe finished: its details go out when what this node says about failing checks changed. */
  probed(key: string, result: HealthResult): void {
    if (this.details.changes(key, result)) this.publishHealthDetails();
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
      const sorted = (serving: boolean) =>
        [...verdicts]
          .filter(([, v]) => v.serving === serving)
          .map(([n]) => n)
          .sort();
      out.set(key, { passing: sorted(true), failing: sorted(false) });
    }
    return out;
  }

  /** Per node, why its failing checks fail, as far as gossip has told this node. */
  healthDetails(): ReadonlyMap<string, HealthDetails> {
    return this.details.view();
  }

  /**
   * Forgets reports of nodes no longer live, and details of nodes gossip no longer remembers: details are kept
   * for dead members until reaped, so a node briefly declared dead that came back does not re-send details that
   * did not change, and its explanation keeps them.
   */
  retain(live: ReadonlySet<string>, known: ReadonlySet<string>): void {
    this.health = retainHealthReports(this.health, live);
    this.details.retain(known);
  }

  /** Every report this node holds, not only its own (a newcomer gets the whole picture at its join), and details. */
  state(): GossipRecord[] {
    return [
      ...[...this.health.values()].map((value): GossipRecord => ({ kind: GossipRecordKind.healthReport, value })),
      ...this.details.records(),
    ];
  }

  receive(record: GossipRecord): RecordEffect {
    if (record.kind === GossipRecordKind.healthReport) return this.receiveReport(record.value);
    if (record.kind === GossipRecordKind.healthDetails) return this.receiveDetails(record.value);
    return 'none';
  }

  /**
   * Publishes this node's report when its content changed (at start, and when a check flips; never on every
   * recomputation: that would echo).
   */
  publishReport(): void {
    const results: Record<string, boolean> = {};
    for (const [key, result] of [...this.monitor.results()].sort(([a], [b]) => (a < b ? -1 : 1))) results[key] = result.state === 'passing';
    const fingerprint = JSON.stringify(results);
    if (fingerprint === this.publishedHealth) return;
    this.publishedHealth = fingerprint;
    const report: HealthReport = { node: this.self, epoch: this.epoch, seq: ++this.seq, results };
    this.health = mergeHealthReport(this.health, report).table;
    this.wire.broadcast([{ kind: GossipRecordKind.healthReport, value: report }], HEALTH_BROADCAST_KEY);
    this.wire.stateChanged();
  }

  private publishHealthDetails(): void {
    const record = this.details.publish(this.monitor.results());
    if (!record) return;
    this.wire.broadcast([record], HEALTH_DETAILS_BROADCAST_KEY);
    this.wire.stateChanged();
  }

  private receiveReport(report: HealthReport): RecordEffect {
    if (report.node === this.self) return 'none';
    const merged = mergeHealthReport(this.health, report);
    this.health = merged.table;
    if (!merged.changed) return 'none';
    this.wire.relay({ kind: GossipRecordKind.healthReport, value: report }, `${HEALTH_BROADCAST_KEY}:${report.node}`);
    return 'election';
  }

  /**
   * Relayed like a report: without it one member of five usually learned why a check fails only at the next
   * push/pull, and its `mlb explain` named the failing node without the reason meanwhile. Details change no
   * election input.
   */
  private receiveDetails(details: HealthDetails): RecordEffect {
    if (!this.details.receive(details)) return 'none';
    this.wire.relay({ kind: GossipRecordKind.healthDetails, value: details }, `${HEALTH_DETAILS_BROADCAST_KEY}:${details.node}`);
    return 'state';
  }
}
