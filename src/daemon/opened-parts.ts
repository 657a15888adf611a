/**
 * The speaker's parts as its start opens them, one after the other: each undefined until it is open, and some
 * never (--no-announce opens no layer 2, a host without probes has no self-check). The decisions, the control
 * views and the stop read them from here when they run, so none holds a part of its own that a failed start or
 * a stop has already closed.
 */
import type { Gossip } from '../gossip/gossip-node';
import type { ClusterMembership } from './cluster-membership';
import type { ClusterRecords } from './cluster-records';
import type { LocalAnnouncements } from './local-announcements';
import type { RemoteDrain } from './remote-drain';
import type { ConflictSharing } from './self-check/conflict-sharing';
import type { SelfChecker } from './self-check/self-checker';
import type { BgpSessions, ControlEndpoint, HostLinks, LayerTwoAnnouncer, VipBinding } from './speaker-parts';

export interface OpenedParts {
  /** What this node answers for and binds; without announcing, the same bookkeeping with nothing to drive. */
  announcements?: LocalAnnouncements;
  links?: HostLinks;
  l2?: LayerTwoAnnouncer;
  vips?: VipBinding;
  selfCheck?: SelfChecker;
  bgp?: BgpSessions;
  gossip?: Gossip;
  /** This node's conflicts for the others, and theirs for this node's status (self-check/conflict-sharing.ts). */
  conflictSharing?: ConflictSharing;
  /** `mlb drain NODE` from any host, carried by gossip (remote-drain/). */
  remoteDrain?: RemoteDrain;
  /** Health reports, the allocation table and the configuration facts in gossip (cluster-records.ts). */
  cluster?: ClusterRecords;
  control?: ControlEndpoint;
  membership?: ClusterMembership;
}
