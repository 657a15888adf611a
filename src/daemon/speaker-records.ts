/**
 * What the speaker shares on gossip besides membership, on one RecordsWire (records/records-wire.ts): the
 * cluster's records (cluster-records.ts: health, the allocation table, the configuration facts), this node's
 * conflicts (self-check/conflict-sharing.ts) and drain requests (remote-drain/). Fills `opened` as each part
 * opens, so a failed start closes exactly what is open.
 */
import type { Logger } from 'pino';
import type { Gossip } from '../gossip/gossip-node';
import type { Timer } from '../runtime';
import type { Clock, Scheduler } from '../runtime/runtime';
import { startClusterRecords, type ClusterRecords } from './cluster-records';
import type { EventLog } from './daemon-events';
import { stateFilesOf, type StateFilesOption } from './directory-state-files';
import type { RunAs } from './health/run-as';
import type { Prober } from './health/health-monitor';
import type { OpenedParts } from './opened-parts';
import { GossipRecordKind } from './records/record-kinds';
import { RecordsWire } from './records/records-wire';
import { remoteDrainFor } from './remote-drain';
import { ConflictSharing } from './self-check/conflict-sharing';
import type { SpeakerFlags } from './speaker-flags';

/**
 * How often this node's conflicts are offered for gossip (conflict-sharing.ts publishes only what changed, or a
 * refresh). A conflict held back from the log (conflict-log-gate.ts) emits no event, so this bounds its delay.
 */
const CONFLICT_SHARE_POLL_MS = 1_000;

export type SpeakerRecordsOptions = StateFilesOption & {
  readonly self: string;
  /** This run's start: records from an earlier run of this node are told apart by it. */
  readonly epoch: number;
  /** Gossip is encrypted: drain requests from other hosts are accepted only then. */
  readonly keyed: boolean;
  readonly gossip: Gossip;
  readonly flags: SpeakerFlags;
  readonly events: EventLog;
  readonly logger: Logger;
  readonly runtime: Clock & Scheduler;
  readonly opened: OpenedParts;
  /** A record that changes the decision's inputs arrived or changed. */
  readonly onChange: () => void;
  readonly healthCheckRunAs?: RunAs;
  readonly healthProbe?: Prober;
};

export interface SpeakerRecords {
  readonly cluster: ClusterRecords;
  /** Offers this node's conflicts for gossip; cancelled when the self-check closes. None without a self-check. */
  readonly conflictSharePoll: Timer | undefined;
}

export async function openSpeakerRecords(options: SpeakerRecordsOptions): Promise<SpeakerRecords> {
  const { self, epoch, gossip, events, logger, runtime, opened } = options;
  const wire = new RecordsWire({ gossip, self, onChange: options.onChange, logger });
  const sharing = new ConflictSharing({ self, epoch, logger, runtime, wire });
  opened.conflictSharing = sharing;
  const drain = remoteDrainFor({ self, keyed: options.keyed, gossip, wire, flags: options.flags, events, logger, runtime });
  opened.remoteDrain = drain;
  wire.register([GossipRecordKind.conflictReport], sharing);
  wire.register([GossipRecordKind.drainRequest], drain);
  const cluster = await startClusterRecords({
    wire,
    self,
    epoch,
    stateFiles: stateFilesOf(options),
    logger,
    runtime,
    onChange: options.onChange,
    onHealthChange: (service, passing, detail) => events.record({ type: 'healthChanged', service, node: self, passing, detail }),
    ...(options.healthCheckRunAs ? { healthCheckRunAs: options.healthCheckRunAs } : {}),
    ...(options.healthProbe ? { healthProbe: options.healthProbe } : {}),
  });
  opened.cluster = cluster;
  const checker = opened.selfCheck;
  const conflictSharePoll = checker
    ? runtime.every(CONFLICT_SHARE_POLL_MS, () => sharing.publish(checker.conflicts(), checker.stats().active))
    : undefined;
  return { cluster, conflictSharePoll };
}
