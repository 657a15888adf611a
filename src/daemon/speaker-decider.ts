/**
 * The speaker's recomputation: one decision from the whole state (the file, the members, the cluster's records),
 * made in four turns (decision-turns.ts), then applied: owner changes reported, the layer-2 set and the BGP routes
 * handed on, the self-check told what to expect. Between decisions it keeps what the next one builds on: the
 * election (a membership change re-elects only what it can move), the interned file (a reload hands on the
 * previous objects for what it did not change), who held what since when, and the last decision for the views.
 */
import type { Logger } from 'pino';
import { IncrementalElection } from '../election';
import type { Member } from '../gossip/swim';
import { formatIP } from '../ip';
import type { Clock } from '../runtime';
import type { ConfigSource } from '../sources/config-source';
import type { WithheldRelease } from './allocation/allocate-with-table';
import { liveMemberOf, type ClusterDecision, type OwnedL2, type ServiceAddresses } from './cluster-decision';
import { hashServiceKey, type ConfigTracker } from './config-facts';
import type { EventLog } from './daemon-events';
import type { LocalAnnouncements } from './local-announcements';
import type { Turn } from './decision-turns';
import type { OpenedParts } from './opened-parts';
import { logOwnerChanges } from './owner-change-log';
import type { OwnerHistory } from './owner-history';
import type { AnswerContext } from './self-check/answer-context';
import { electionAssignments } from './source-assignments';
import type { SpeakerParts } from './speaker-parts';
import { planSpeaker, withdrawReason, type SpeakerPlan } from './speaker-plan';
import { electableMembers, goneOrConfirmedHolders } from './suspect-owners';
import { SnapshotInterner } from './snapshot-interning';

export interface SpeakerDeciderOptions {
  readonly self: string;
  /** --ignore-exclude-lb (MetalLB's speaker flag). */
  readonly ignoreExcludeLB: boolean;
  readonly source: ConfigSource;
  readonly opened: OpenedParts;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly events: EventLog;
  readonly configTracker: ConfigTracker;
  readonly answers: AnswerContext;
  readonly onPlanned?: SpeakerParts['onPlanned'];
  /** The first join attempt is over: the election sees the cluster, not just this node. */
  readonly joined: () => boolean;
  /** While leaving: the IPs held when the handover began that no successor has announced yet. */
  readonly handingOver: () => readonly string[] | undefined;
  /** The stop has withdrawn everything: nothing is applied any more. */
  readonly over: () => boolean;
  /** This node's file on disk, when refused: its first error, for the configuration facts it gossips. */
  readonly refusedReason: () => string | undefined;
}

export class SpeakerDecider {
  /** The last decision applied: the control views and the handover read it. */
  decision: ClusterDecision | undefined;
  owners: OwnerHistory = new Map();
  /** The addresses the last recomputation used: the allocator metrics count them per pool. */
  addresses: ReadonlyMap<string, ServiceAddresses> = new Map();
  /** Releases the allocator holds back: services its file lacks that other live members define. */
  withheld: readonly WithheldRelease[] = [];
  /** Decisions started so far, and the number of the last one applied: the handover waits for one of its own. */
  started = 0;
  applied = 0;
  private readonly elector = new IncrementalElection();
  private readonly interner = new SnapshotInterner();
  private lastMlbInputs: boolean | undefined;
  /** The last plan applied, its layer-2 set as since narrowed by letGo. */
  private lastPlan: SpeakerPlan | undefined;
  /** Whether that plan was made while leaving: one made before knows nothing of the successors. */
  private lastPlanLeaving = false;
  /** The announced set (LocalAnnouncements.version) the self-check was last given. */
  private selfCheckedVersion = -1;

  constructor(private readonly options: SpeakerDeciderOptions) {}

  /**
   * One recomputation, in four turns: the configuration facts, the allocation, the plan, applying it. Gossip is
   * read once, in the first turn, so the plan is made of one view of the members; a change that arrives
   * meanwhile asks for the next decision. Resolves with the services decided over, undefined when nothing was
   * (not started yet, or the stop has withdrawn everything).
   */
  async decide(turn: Turn): Promise<number | undefined> {
    const { source, opened, configTracker, over } = this.options;
    const loaded = source.state.snapshot;
    const { gossip, cluster, announcements } = opened;
    if (!loaded || !gossip || !cluster || !announcements || over()) return undefined;
    const number = ++this.started;
    const now = () => this.options.clock.now();
    const file = this.interner.intern(loaded);
    const live = gossip.liveMembers().map(liveMemberOf);
    const liveNames = live.map((m) => m.name);
    const members = gossip.members();
    const suspects = gossip.confirmedSuspects();
    const gone = goneOrConfirmedHolders(members, suspects, (name) => gossip.lastHeardFrom(name));
    // What the others' files define: retained services join this node's snapshot, and nothing is released or
    // elected away while a live member still defines it (config-facts/).
    const config = configTracker.step(file, live, cluster.config.table(), now(), this.options.refusedReason());
    cluster.config.publish(config.facts);
    const snapshot = config.retention.snapshot;
    const { agreement } = config;
    cluster.forgetGone(new Set(liveNames), new Set(members.map((m) => m.name)));
    await turn();
    if (over()) return undefined;
    const allocation = cluster.allocation.allocate(snapshot, live, (key) => agreement.holders(hashServiceKey(key)));
    const assigned = electionAssignments(source.state, snapshot, allocation.addresses);
    this.addresses = assigned.addresses;
    this.withheld = allocation.withheld;
    cluster.health.updateHealthChecks(snapshot);
    const passing = cluster.health.passing(snapshot, liveNames);
    await turn();
    if (over()) return undefined;
    const handingOver = this.options.handingOver();
    const leaving = handingOver !== undefined;
    const plan = planSpeaker({
      election: {
        self: this.options.self,
        snapshot,
        live: electableMembers(live, suspects),
        known: members.map(liveMemberOf),
        addresses: assigned.addresses,
        passing,
        notConfiguredOn: (key) => agreement.lacking(hashServiceKey(key)),
        ...assigned.endpointsInput,
        ...(this.options.ignoreExcludeLB ? { options: { ignoreExcludeLB: true } } : {}),
      },
      joined: this.options.joined(),
      handingOver,
      announced: announcements.announced(),
      owners: this.owners,
      gone,
      members,
      previousMlbInputs: this.lastMlbInputs,
      now: now(),
      elector: this.elector,
    });
    await turn();
    if (over()) return undefined;
    this.apply(plan, leaving, members, announcements);
    this.applied = number;
    return loaded.services.length;
  }

  /**
   * While leaving: stops answering for the held IPs whose successors have announced them since the last plan,
   * without a new decision (one costs a quarter of a second of CPU at 10,000 services, and on a shared host the
   * successors need that CPU for their own). What this node still owns, and every held IP still waiting for its
   * successor, stays.
   */
  letGo(): void {
    const plan = this.lastPlan;
    const announcements = this.options.opened.announcements;
    if (!plan || !announcements || this.options.over()) return;
    const layer2 = this.stillAnswered(plan, this.lastPlanLeaving);
    if (layer2 === plan.layer2) return;
    this.lastPlan = { ...plan, layer2 };
    const { decision } = plan;
    announcements.apply(layer2, (service, ip) => withdrawReason(decision, this.options.self, service, ip), plan.bgpBound);
  }

  /**
   * The plan's layer-2 set without the held IPs a successor has announced (the same array when none). What a
   * plan made while leaving still owns stays (no successor: the last node, or a split brain to be judged); a plan
   * from before the handover owns everything it held, and its ownership says nothing: a successor's announcement
   * can arrive before this node's own first decision as a leaving node is applied (it costs a quarter of a second
   * at 10,000 services, the successor's incremental one less).
   */
  private stillAnswered(plan: SpeakerPlan, planLeaving: boolean): readonly OwnedL2[] {
    const waiting = this.options.handingOver();
    if (waiting === undefined) return plan.layer2;
    const keep = new Set(waiting);
    const owned = new Set(planLeaving ? plan.decision.ownedL2.map((o) => formatIP(o.ip)) : []);
    const layer2 = plan.layer2.filter((o) => {
      const ip = formatIP(o.ip);
      return owned.has(ip) || keep.has(ip);
    });
    return layer2.length === plan.layer2.length ? plan.layer2 : layer2;
  }

  /** Does what the plan says: reports, announces, sessions and routes, what the self-check expects. */
  private apply(plan: SpeakerPlan, leaving: boolean, members: readonly Member[], announcements: LocalAnnouncements): void {
    const { opened, answers, events, logger, self } = this.options;
    const { decision } = plan;
    this.decision = decision;
    this.owners = plan.owners;
    answers.elected(
      plan.ownerChanges.map((r) => r.change),
      members,
      this.options.clock.now(),
    );
    for (const { change } of plan.ownerChanges) {
      const { service, protocol, ips, from, to, unheldMs, unheldReason, detectionMs } = change;
      events.record({ type: 'ownerChanged', service, protocol, ips, from, to, unheldMs, unheldReason, detectionMs });
    }
    if (plan.electionInputsChanged) {
      this.lastMlbInputs = plan.electionInputsChanged.allowed;
      logger.info({ event: 'electionInputs', mlbOnlyInputs: plan.electionInputsChanged.allowed }, plan.electionInputsChanged.reason);
    }
    // While leaving, a successor may have announced a held IP since the plan was made: let it go now too.
    const layer2 = this.stillAnswered(plan, leaving);
    this.lastPlan = layer2 === plan.layer2 ? plan : { ...plan, layer2 };
    this.lastPlanLeaving = leaving;
    announcements.apply(layer2, (service, ip) => withdrawReason(decision, self, service, ip), plan.bgpBound);
    if (plan.bgp) opened.bgp?.update(plan.bgp.peers, plan.bgp.routes);
    const selfCheck = opened.selfCheck;
    selfCheck?.setMacOwners(answers.macOwners); // members' MACs and departed members' (answer-context.ts)
    // The whole owned set, only when it changed: most decisions leave it as it was, and handing the self-check
    // 10,000 pairs rebuilt its schedule each time.
    if (selfCheck && announcements.version !== this.selfCheckedVersion) {
      this.selfCheckedVersion = announcements.version;
      selfCheck.setOwned(announcements.announced().flatMap((a) => a.interfaces.map((i) => ({ ip: a.address, interface: i }))));
    }
    this.options.onPlanned?.(plan, announcements.announced());
    // Told once the binding is done, beside its serviceAnnounced lines: on a failover with thousands of services,
    // writing their lines while it runs (a synchronous write each) held back the netlink replies that move it on.
    if (plan.ownerChanges.length > 0) void announcements.settled().then(() => logOwnerChanges(logger, plan.ownerChanges));
  }
}
