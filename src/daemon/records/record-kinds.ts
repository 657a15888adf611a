/**
 * The records mlb daemons tell each other beyond membership, each with its kind number on the wire. Kinds are
 * append-only: a number never changes meaning, and a receiver skips (and counts) kinds it does not know, so a
 * newer node may add one without an older one failing. Whatever the form on the wire (records-codec.ts), a
 * record is one of these values. Pure.
 */
import type { AllocationTable } from '../allocation/allocation-table';
import type { ConfigFacts } from '../config-facts/config-facts-codec';
import type { HealthDetails } from '../health/health-details';
import type { HealthReport } from '../health/health-report';
import type { DrainRequest } from '../remote-drain/drain-request-codec';
import type { ConflictReport } from '../self-check/conflict-report';

export const GossipRecordKind = {
  healthReport: 1,
  allocationTable: 2,
  configFacts: 3,
  conflictReport: 4,
  /** `mlb drain NODE` from any host, and the target's answer (remote-drain/). */
  drainRequest: 5,
  /** Why each failing check fails (health/health-details.ts), for other nodes' `mlb explain`. */
  healthDetails: 6,
} as const;
export type GossipRecordKind = (typeof GossipRecordKind)[keyof typeof GossipRecordKind];

export const KNOWN_RECORD_KINDS: ReadonlySet<number> = new Set(Object.values(GossipRecordKind));

/** One record, typed by its kind. */
export type GossipRecord =
  | { readonly kind: typeof GossipRecordKind.healthReport; readonly value: HealthReport }
  | { readonly kind: typeof GossipRecordKind.allocationTable; readonly value: AllocationTable }
  | { readonly kind: typeof GossipRecordKind.configFacts; readonly value: ConfigFacts }
  | { readonly kind: typeof GossipRecordKind.conflictReport; readonly value: ConflictReport }
  | { readonly kind: typeof GossipRecordKind.drainRequest; readonly value: DrainRequest }
  | { readonly kind: typeof GossipRecordKind.healthDetails; readonly value: HealthDetails };

/**
 * Why received records were dropped, each counted (mlb_gossip_record_drops_total{reason}), never thrown. Stable:
 * metrics and dashboards match on them.
 */
export const RecordDropReason = {
  /** Not mlb records at all (another program's user data), or a records layout this release does not know. */
  notOurs: 'notOurs',
  /** Over RECORDS_MAX_BYTES: refused before anything in it was read. */
  recordsTooLarge: 'recordsTooLarge',
  /** mlb records whose envelope is damaged (truncated, a length that overruns, a malformed list). */
  badEnvelope: 'badEnvelope',
  /** A record of a kind a newer node added: skipped, so a mixed cluster is visible. */
  unknownKind: 'unknownKind',
  badHealthReport: 'badHealthReport',
  badTable: 'badTable',
  badConfigFacts: 'badConfigFacts',
  badConflictReport: 'badConflictReport',
  badDrainRequest: 'badDrainRequest',
  badHealthDetails: 'badHealthDetails',
} as const;
export type RecordDropReason = (typeof RecordDropReason)[keyof typeof RecordDropReason];

/** The drop reason of a damaged record of each kind. */
export const BAD_RECORD_REASON: Readonly<Record<GossipRecordKind, RecordDropReason>> = {
  [GossipRecordKind.healthReport]: RecordDropReason.badHealthReport,
  [GossipRecordKind.allocationTable]: RecordDropReason.badTable,
  [GossipRecordKind.configFacts]: RecordDropReason.badConfigFacts,
  [GossipRecordKind.conflictReport]: RecordDropReason.badConflictReport,
  [GossipRecordKind.drainRequest]: RecordDropReason.badDrainRequest,
  [GossipRecordKind.healthDetails]: RecordDropReason.badHealthDetails,
};
