/**
 * The shell around conflict-report.ts: publishes this node's conflicts (a broadcast when they change, and every
 * CONFLICT_REPORT_REFRESH_MS while there are any; its latest report rides on every push/pull), keeps the other
 * members' latest reports, and lists their conflicts, marked with the node that observed them, for status and
 * metrics. A peer's new finding is logged at info here (the observer warns): an operator reading any node's log
 * learns of it.
 */
import type { Logger } from 'pino';
import { REAL_RUNTIME } from '../../runtime/real-runtime';
import type { Clock } from '../../runtime/runtime';
import { GossipRecordKind, type GossipRecord } from '../records/record-kinds';
import type { RecordEffect, RecordsChannel, RecordsPart } from '../records/records-wire';
import type { Conflict } from './conflict-registry';
import type { ControlSnapshot } from '../control/control-snapshot';
import {
  mergeConflictReport,
  reportDue,
  retainConflictReports,
  type ConflictReport,
  type ConflictReportTable,
  type ReportedConflict,
} from './conflict-report';

/** Broadcast key: a newer report replaces a queued older one. */
const CONFLICT_BROADCAST_KEY = 'mlb-conflicts';

/** A conflict another node observed, as status lists it. */
export interface SharedConflict extends ReportedConflict {
  readonly observedBy: string;
}

export interface ConflictSharingOptions {
  readonly self: string;
  /** The daemon's start time: its reports outrank those of its previous life. */
  readonly epoch: number;
  readonly wire: RecordsChannel;
  readonly logger: Pick<Logger, 'info'>;
  /** When a report is due and what it is stamped with (the real clock by default). */
  readonly runtime?: Clock;
}

export class ConflictSharing implements RecordsPart {
  private table: ConflictReportTable = new Map();
  private own: ConflictReport | undefined;
  private published: { fingerprint: string; at: number } | undefined;
  private seq = 0;

  constructor(private readonly options: ConflictSharingOptions) {}

  private now(): number {
    return (this.options.runtime ?? REAL_RUNTIME).now();
  }

  /** This node's conflicts now (SelfChecker.conflicts) and its active count: published when due. */
  publish(conflicts: readonly Conflict[], active: number): void {
    const now = this.now();
    const listed = conflicts.map((c) => ({ ip: c.ip, mac: c.mac, firstSeen: Date.parse(c.firstSeen), lastSeen: Date.parse(c.lastSeen) }));
    const due = reportDue(this.published, listed, active, now);
    if (!due.due) return;
    this.published = { fingerprint: due.fingerprint, at: now };
    this.own = { node: this.options.self, epoch: this.options.epoch, seq: ++this.seq, active, conflicts: listed };
    this.options.wire.broadcast(this.state(), CONFLICT_BROADCAST_KEY);
    this.options.wire.stateChanged();
  }

  /** This node's latest report for the push/pull state, once it has one. */
  state(): GossipRecord[] {
    return this.own ? [{ kind: GossipRecordKind.conflictReport, value: this.own }] : [];
  }

  /**
   * A report from gossip; 'election' when what status shows changed. A report newer than what this node held is
   * relayed (RecordsWire.relay): a broadcast reaches a few random members, so one node of five often learned of a
   * conflict only at the observer's refresh (CONFLICT_REPORT_REFRESH_MS) or a push/pull, past the 10 s in which
   * every node's status should show it. Keyed by observer; a report already held is not relayed again.
   */
  receive(record: GossipRecord): RecordEffect {
    if (record.kind !== GossipRecordKind.conflictReport) return 'none';
    const report = record.value;
    if (report.node === this.options.self) return 'none';
    const before = this.table.get(report.node)?.report;
    const merged = mergeConflictReport(this.table, report, this.now());
    this.table = merged.table;
    if (!merged.changed) return 'none';
    this.options.wire.relay(record, `${CONFLICT_BROADCAST_KEY}:${report.node}`);
    const known = new Set((before?.conflicts ?? []).map((c) => `${c.ip}|${c.mac}`));
    for (const c of report.conflicts.filter((x) => !known.has(`${x.ip}|${x.mac}`))) {
      this.options.logger.info(
        { event: 'conflictReported', observedBy: report.node, ip: c.ip, mac: c.mac, firstSeen: new Date(c.firstSeen).toISOString() },
        `${report.node} reports ${c.ip} also answered by ${c.mac} (see its log and mlb status there)`,
      );
    }
    return 'election';
  }

  /**
   * The other live members' conflicts, by observer, IP and MAC, and how many active (IP, MAC) conflicts they add to
   * `counted` (the pairs this node already counts): a pair two nodes both see is one conflict, counted once.
   */
  shared(live: ReadonlySet<string>, counted: ReadonlySet<string> = new Set()): { conflicts: SharedConflict[]; active: number } {
    this.table = retainConflictReports(this.table, live, this.now()).table;
    const reports = [...this.table.values()].map((h) => h.report).sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
    const seen = new Set(counted);
    let active = 0;
    for (const report of reports) {
      const keys = report.conflicts.map((c) => conflictPairKey(c.ip, c.mac));
      // What the report folds beyond its list cannot be matched; only its listed pairs are compared.
      active += Math.max(0, report.active - keys.filter((k) => seen.has(k)).length);
      for (const key of keys) seen.add(key);
    }
    return { conflicts: reports.flatMap((r) => r.conflicts.map((c) => ({ ...c, observedBy: r.node }))), active };
  }

  /** Status: this node's conflicts (`local`, with where and why), then those the other live members observed. */
  view(local: readonly Conflict[], live: ReadonlySet<string>, macOwners: ReadonlyMap<string, string>): ControlSnapshot['conflicts'] {
    const self = this.options.self;
    return [
      ...local.map((c) => ({
        ip: c.ip,
        mac: c.mac,
        node: c.node,
        interface: c.interface,
        firstSeen: c.firstSeen,
        lastSeen: c.lastSeen,
        observedBy: self,
        reason: c.reason,
      })),
      ...this.shared(live).conflicts.map((c) => ({
        ip: c.ip,
        mac: c.mac,
        node: macOwners.get(c.mac) ?? null,
        interface: null,
        firstSeen: new Date(c.firstSeen).toISOString(),
        lastSeen: new Date(c.lastSeen).toISOString(),
        observedBy: c.observedBy,
      })),
    ];
  }
}

/** One (IP, MAC) conflict, whoever observed it. */
export function conflictPairKey(ip: string, mac: string): string {
  return `${ip} ${mac}`;
}
