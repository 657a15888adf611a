/**
 * One recomputation of the speaker, as a pure step: from everything the node knows now (the election's inputs,
 * whether it has joined, what it is handing over, what it announces, the owner history and what the failure
 * detector knows of gone members) to what it must do (announce these IPs here, keep these BGP sessions and
 * routes, expect these MACs, report these owner changes). The speaker (speaker.ts) gathers the inputs and applies
 * the plan; nothing here touches a socket, a timer or a log, so every decision is tested alone
 * (test/daemon/speaker-plan.test.ts).
 */
import { bgpPeerPlans, type BgpPeerPlan } from '../announce/bgp/bgp-peer-plan';
import type { BGPAnnouncement, Elector } from '../election';
import type { Member } from '../gossip/swim';
import { formatIP, type IP } from '../ip';
import { decideCluster, type ClusterDecision, type ClusterInputs, type OwnedL2 } from './cluster-decision';
import { explanationOf } from './explanation-index';
import type { AnnouncedIP } from './local-announcements';
import { trackOwners, unheldText, type GoneHolders, type Holding, type OwnerChange, type OwnerHistory } from './owner-history';
import { macOwnersOf } from './self-check/answer-context';

export interface SpeakerPlanInputs {
  /** What the election reads: the configuration with retained services, live members, allocation, health. */
  readonly election: ClusterInputs;
  /** The first join attempt is over: until then this node has heard only itself. */
  readonly joined: boolean;
  /**
   * While leaving: the IPs this node announced when its handover began and whose successor it has not heard yet
   * (leaving-handover.ts); undefined when not leaving.
   */
  readonly handingOver: readonly string[] | undefined;
  /** What this node announces now (layer 2), with the interfaces chosen for each IP. */
  readonly announced: readonly AnnouncedIP[];
  /** Since when each service IP has had its holders, as of the previous recomputation. */
  readonly owners: OwnerHistory;
  /** What the failure detector knows of members that are gone: an owner change's unheld time starts there. */
  readonly gone: GoneHolders;
  /** Every member gossip remembers, with its meta: which member answers with which MAC. */
  readonly members: readonly Pick<Member, 'name' | 'meta'>[];
  /** Whether mlb-only inputs (health, drain, warm-up) took part in the previous election; undefined before it. */
  readonly previousMlbInputs: boolean | undefined;
  readonly now: number;
  /** The speaker's election across recomputations (election/incremental-election.ts); default: from scratch. */
  readonly elector?: Elector;
}

/** An owner change, and the line that tells an operator about it. */
export interface OwnerChangeReport {
  readonly change: OwnerChange;
  readonly message: string;
}

export interface SpeakerPlan {
  readonly decision: ClusterDecision;
  /** The owner history to keep for the next recomputation. */
  readonly owners: ReadonlyMap<string, Holding>;
  /** Who took which IPs from whom, and for how long nobody answered for them. */
  readonly ownerChanges: readonly OwnerChangeReport[];
  /** Whether mlb-only inputs take part, and why: set only when that changed since the previous election. */
  readonly electionInputsChanged: { readonly allowed: boolean; readonly reason: string } | undefined;
  /** The IPs this node answers ARP/NDP for, and on which interfaces. */
  readonly layer2: readonly OwnedL2[];
  /** The IPs this node advertises by BGP: bound locally like the layer-2 ones, answered by nobody. */
  readonly bgpBound: readonly IP[];
  /** The BGP sessions to keep and the routes to advertise; undefined: leave BGP as it is (not joined yet). */
  readonly bgp: { readonly peers: readonly BgpPeerPlan[]; readonly routes: readonly BGPAnnouncement[] } | undefined;
  /** MAC (lowercase) -> member: another member's answer with its own MAC may be expected (self-check/). */
  readonly macOwners: ReadonlyMap<string, string>;
}

export function planSpeaker(inputs: SpeakerPlanInputs): SpeakerPlan {
  const decision = decideCluster(inputs.election, inputs.elector);
  const tracked = trackOwners(inputs.owners, decision.outcomes, inputs.now, inputs.gone);
  const allowed = decision.mlbInputs.allowed;
  const { snapshot } = inputs.election;
  return {
    decision,
    owners: tracked.history,
    ownerChanges: tracked.changes.map((change) => ({ change, message: ownerChangeMessage(change) })),
    electionInputsChanged: allowed === inputs.previousMlbInputs ? undefined : decision.mlbInputs,
    layer2: layer2Announcements(decision, inputs),
    bgpBound: inputs.joined ? decision.bgpIPs : [],
    // While handing over, the routes go first: the router moves traffic to the other nodes at once, while layer 2
    // has to wait until each successor is heard. The sessions stay up until the stop closes them.
    bgp: inputs.joined
      ? {
          peers: bgpPeerPlans(snapshot.bgpPeers, snapshot.bfdProfiles, decision.peersOnSelf),
          routes: inputs.handingOver ? [] : decision.ownedBGP,
        }
      : undefined,
    macOwners: macOwnersOf(inputs.members),
  };
}

/**
 * What this node answers for at layer 2. Until the first join is over this node only knows itself and would elect
 * itself for everything: its gratuitous ARP would pull every VIP to it for a moment, so it announces nothing.
 * While leaving it keeps answering for what it held beside what it still owns, until each successor is heard
 * (handover.ts ends the wait); the election already gives those IPs to others.
 */
function layer2Announcements(decision: ClusterDecision, inputs: SpeakerPlanInputs): OwnedL2[] {
  const owned = inputs.joined ? [...decision.ownedL2] : [];
  if (!inputs.handingOver) return owned;
  const held = new Set(inputs.handingOver);
  const stillOwned = new Set(owned.map((o) => formatIP(o.ip)));
  const kept = inputs.announced.filter((a) => held.has(a.ip) && !stillOwned.has(a.ip));
  return [...owned, ...kept.map((a) => ({ service: a.service, ip: a.address, interfaces: a.interfaces }))];
}

/** Why this node stops answering for `ip` of `service`: its own reason in the election, or the service is gone. */
export function withdrawReason(decision: ClusterDecision, self: string, service: string, ip: string): string {
  const explanation = explanationOf(decision, service, 'layer2', ip);
  if (!explanation) return 'serviceDeleted';
  return explanation.candidates.find((c) => c.node === self)?.reason ?? 'notLiveMember';
}

/** "default/web 192.0.2.10: node-a -> node-b (unheld 900 ms: ...)". */
function ownerChangeMessage(change: OwnerChange): string {
  const { service, ips, from, to } = change;
  return `${service} ${ips.join(',')}: ${from.join(',') || 'nobody'} -> ${to.join(',') || 'nobody'}${unheldText(change)}`;
}
