/**
 * The records this node shares with the cluster beyond membership, assembled on one RecordsWire
 * (records/records-wire.ts): its health checks and every node's reports (health/health-checks.ts), the
 * allocation table with allocations.json (allocation/allocation-table-sharing.ts, allocation-table-saver.ts)
 * and every node's configuration facts (config-facts/config-facts-sharing.ts). The speaker registers the other
 * parts (conflict reports, drain requests) on the same wire.
 */
import type { Logger } from 'pino';
import { REAL_RUNTIME } from '../runtime/real-runtime';
import type { Clock, Scheduler } from '../runtime/runtime';
import { stateFilesOf, type StateFilesOption } from './directory-state-files';
import { AllocationTableSaver } from './allocation/allocation-table-saver';
import { AllocationTableSharing } from './allocation/allocation-table-sharing';
import { ConfigFactsSharing } from './config-facts/config-facts-sharing';
import { startHealthChecks, type HealthChecksOptions } from './health/health-checks';
import type { HealthReportSharing } from './health/health-report-sharing';
import { GossipRecordKind } from './records/record-kinds';
import type { RecordsWire } from './records/records-wire';

export type ClusterRecordsOptions = StateFilesOption &
  Omit<HealthChecksOptions, 'runtime'> & {
    readonly wire: RecordsWire;
    readonly logger: Logger;
    /** The clock allocations are stamped with, and every timer; the real one by default. */
    readonly runtime?: Clock & Scheduler;
    /** RESTORE_ALONE_WAIT_MS unless a test says otherwise. */
    readonly restoreAloneWaitMs?: number;
  };

export interface ClusterRecords {
  readonly wire: RecordsWire;
  readonly health: HealthReportSharing;
  readonly allocation: AllocationTableSharing;
  readonly config: ConfigFactsSharing;
  /** Forgets what nodes no longer live sent (failing-check details: once gossip no longer knows the node). */
  forgetGone(live: ReadonlySet<string>, known: ReadonlySet<string>): void;
  close(): Promise<void>;
  /** Resolves when allocations.json holds the latest table. */
  flush(): Promise<void>;
}

export async function startClusterRecords(options: ClusterRecordsOptions): Promise<ClusterRecords> {
  const { wire, self, epoch, logger } = options;
  const runtime = options.runtime ?? REAL_RUNTIME;
  const saver = new AllocationTableSaver(stateFilesOf(options), logger);
  const held = await saver.load();
  const { monitor, sharing: health } = startHealthChecks({ ...options, ...(options.runtime ? { runtime: options.runtime } : {}) });
  const allocation = new AllocationTableSharing({
    self,
    wire,
    saver,
    held,
    logger,
    runtime,
    onChange: options.onChange,
    ...(options.restoreAloneWaitMs === undefined ? {} : { restoreAloneWaitMs: options.restoreAloneWaitMs }),
  });
  const config = new ConfigFactsSharing(self, epoch, wire);
  wire.register([GossipRecordKind.allocationTable], allocation);
  wire.register([GossipRecordKind.healthReport, GossipRecordKind.healthDetails], health);
  wire.register([GossipRecordKind.configFacts], config);
  health.publishReport();
  return {
    wire,
    health,
    allocation,
    config,
    forgetGone: (live, known) => {
      health.retain(live, known);
      config.retain(live);
    },
    close: () => {
      allocation.close();
      return monitor.close();
    },
    flush: () => saver.flush(),
  };
}
