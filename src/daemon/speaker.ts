/**
 * The speaker on a plain host: the configuration file (hot reload, last good kept), gossip membership with this
 * node's facts in meta, health checks and the allocation table exchanged in gossip, the election of every
 * service, and the L2 announcer and VIP binding for what this node owns. Every change anywhere schedules one
 * recomputation from the whole state (decideCluster), and the announcer converges to the result, so events can
 * be missed, repeated or reordered without effect (docs/architecture.md, "One direction of data").
 */
import type { Logger } from 'pino';
import type { ObservedConflict } from '../announce/l2/l2-interface';
import { formatMAC } from '../announce/l2/mac-address';
import { IncrementalElection, type Explanation } from '../election';
import type { Keyring } from '../gossip/codec';
import { GossipNode, type Gossip } from '../gossip/gossip-node';
import { encodeNodeMeta } from '../gossip/node-meta';
import type { Member, SwimConfig } from '../gossip/swim';
import { formatHostPort, hostFromBytes, type HostPort } from '../gossip/transport/address';
import { formatIP } from '../ip';
import { diagnosticReport, type Snapshot } from '../model';
import type { Timer } from '../runtime';
import { infoAsDebug } from '../runtime/log';
import type { StateFiles } from '../runtime/state-files';
import { ConfigLoadError, type ConfigSource, type ConfigState } from '../sources/config-source';
import { electionAssignments } from './source-assignments';
import type { WithheldRelease } from './allocation/allocate-with-table';
import { liveMemberOf, type ClusterDecision, type ServiceAddresses } from './cluster-decision';
import { startClusterRecords, type ClusterRecords } from './cluster-records';
import { ClusterMembership } from './cluster-membership';
import { ConfigTracker, explainRetention, hashServiceKey } from './config-facts';
import { logConfigReport } from './config-load-report';
import type { ControlProvider, ControlSnapshot, ControlStatus, SnapshotPage } from './control';
import { controlView, statusView, type StatusViewInputs } from './control-view';
import { DecisionTiming } from './decision-timing';
import { DecisionTurns, type Turn } from './decision-turns';
import { withLiveFacts } from './explain-live-facts';
import { EventLog, type DaemonEvent } from './daemon-events';
import { HANDOVER_TIMEOUT_MS, handoverStatus, layer2Owners } from './handover';
import { LocalAnnouncements } from './local-announcements';
// Not './metrics': its index loads prom-client, which only --metrics-bind should load (daemon.ts imports it lazily).
import type { MetricsCounters, MetricsSource } from './metrics/metrics-source';
import { poolMetrics } from './metrics/pool-metrics';
import { linkMacs, nodeFacts } from './node-facts';
import type { OwnerHistory } from './owner-history';
import { logOwnerChanges } from './owner-change-log';
import { electableMembers, goneOrConfirmedHolders, suspicionListener } from './suspect-owners';
import { planSpeaker, withdrawReason, type SpeakerPlan } from './speaker-plan';
import type { BgpSessions, ControlEndpoint, HostLinks, LayerTwoAnnouncer, SpeakerParts, VipBinding } from './speaker-parts';
import type { SelfChecker } from './self-check/self-checker';
import { ConflictSharing, conflictPairKey } from './self-check/conflict-sharing';
import { AnswerContext } from './self-check/answer-context';
import { GossipRecordKind } from './records/record-kinds';
import { RecordsWire } from './records/records-wire';
import { SpeakerFlags } from './speaker-flags';
import { RemoteDrain, remoteDrainFor, type DrainAnswer } from './remote-drain';
import { runStopSteps } from './graceful-stop';
import { startError } from './start-failure';
import { SnapshotInterner } from './snapshot-interning';
import type { RunAs } from './health/run-as';

/** MetalLB's speaker leaves with a 1 s timeout on shutdown. */
const LEAVE_TIMEOUT_MS = 1_000;
/** How often a leaving node re-checks its handover between sightings (the election may change meanwhile). */
const HANDOVER_POLL_MS = 50;
/**
 * How often this node's conflicts are offered for gossip (conflict-sharing.ts publishes only what changed, or a
 * refresh). A conflict held back from the log (conflict-log-gate.ts) emits no event, so this bounds its delay.
 */
const CONFLICT_SHARE_POLL_MS = 1_000;
/**
 * How long the first join may take before a decision is made without waiting for it (for the status: nothing is
 * announced before the join is over). A join with a reachable seed or none is over well within it.
 */
const PRE_JOIN_DECISION_DELAY_MS = 1_000;

export interface SpeakerOptions {
  readonly nodeName: string;
  readonly bind: HostPort;
  readonly advertiseHost?: string;
  readonly join: readonly HostPort[];
  readonly keyring?: Keyring;
  readonly stateDir: string;
  readonly nodeLabels: Readonly<Record<string, string>>;
  readonly gossipConfig: SwimConfig;
  readonly profileName: string;
  /** Answer ARP/NDP for owned IPs (false: compute and report only, touching no interface). */
  readonly announce: boolean;
  /** Bind owned VIPs to this dummy interface (file mode default mlb0); undefined: do not bind. */
  readonly vipInterface?: string;
  /** The control API's unix socket. */
  readonly controlSocket: string;
  /** The group (name or gid) given the control socket, so its members may use it without root. */
  readonly controlSocketGroup?: string;
  /** mlb's version, shown by the control API. */
  readonly version: string;
  /** What other nodes' `mlb status` show as this node's release (records-protocol.ts releaseText); default: version. */
  readonly release?: string;
  /** exec: health checks run as this user (--health-check-user). */
  readonly healthCheckRunAs?: RunAs;
  /** --ignore-exclude-lb (MetalLB's speaker flag): nodes labelled exclude-from-external-load-balancers stay candidates. */
  readonly ignoreExcludeLB?: boolean;
  readonly logger: Logger;
}

export class Speaker implements ControlProvider, MetricsSource {
  private control: ControlEndpoint | undefined;
  private owners: OwnerHistory = new Map();
  /** The announced set (LocalAnnouncements.version) the self-check was last given. */
  private selfCheckedVersion = -1;
  private gossip: Gossip | undefined;
  private readonly source: ConfigSource;
  private links: HostLinks | undefined;
  private l2: LayerTwoAnnouncer | undefined;
  private vips: VipBinding | undefined;
  private selfCheck: SelfChecker | undefined;
  /** This node's conflicts for the others, and theirs for this node's status (self-check/conflict-sharing.ts). */
  private conflictSharing: ConflictSharing | undefined;
  private conflictSharePoll: Timer | undefined;
  /** `mlb drain NODE` from any host, carried by gossip (remote-drain/). */
  private remoteDrain: RemoteDrain | undefined;
  /** Owner changes, member changes and MACs: what makes another MAC's answer expected (self-check/). */
  private answers!: AnswerContext;
  private bgp: BgpSessions | undefined;
  private cluster: ClusterRecords | undefined;
  private announcements!: LocalAnnouncements;
  private flags!: SpeakerFlags;
  private decision: ClusterDecision | undefined;
  /** The election kept between recomputations: a membership change re-elects only what it can move. */
  private readonly elector = new IncrementalElection();
  /** A reload hands on the previous objects for what it did not change, so later steps see what changed. */
  private readonly interner = new SnapshotInterner();
  private readonly decisionTiming: DecisionTiming;
  /** The addresses the last recomputation used: the allocator metrics count them per pool. */
  private addresses: ReadonlyMap<string, ServiceAddresses> = new Map();
  /** Releases the allocator holds back: services its file lacks that other live members define. */
  private withheld: readonly WithheldRelease[] = [];
  /** Recomputations, one at a time and in turns that let gossip be answered between them. */
  private readonly decisions: DecisionTurns;
  /** Decisions started so far, and the number of the last one applied: the handover waits for one of its own. */
  private decisionsStarted = 0;
  private decisionApplied = 0;
  /** A loaded file's report, logged after the first decision started once it loaded (reportConfigAfterBinding). */
  private configReport: { readonly snapshot: Snapshot | undefined; readonly afterDecision: number } | undefined;
  private stopping = false;
  /**
   * The stop has withdrawn everything (or a failed start is closing): no recomputation runs any more. The parts it
   * reads and drives close one by one after the withdrawal, and each close schedules one: the last node (kept as
   * owner while draining, election/deferral.ts) announced its IPs again, bound them on a closed VIP binder
   * (vipBindFailed) and withdrew them a second time once its health checks were gone (noEndpoints).
   */
  private withdrawnForGood = false;
  private lastMlbInputs: boolean | undefined;
  /** The first join attempt is over: the election now sees the cluster, not just this node. */
  private joined = false;
  /** While leaving: the IPs held when the handover began, and those another MAC has announced since. */
  private handover: { startedAt: number; held: string[]; heldSet: ReadonlySet<string>; claimed: Set<string> } | undefined;
  private membership: ClusterMembership | undefined;
  /** Compares this node's file with the others' and retains services they still define (config-facts/). */
  private configTracker!: ConfigTracker;
  readonly startedAt: number;
  /** Everything worth telling an operator, in order: the control API streams it (daemon-events.ts). */
  readonly events: EventLog;

  /** `parts`: the configuration source, the runtime and the host parts' factories (speaker-assembly.ts). */
  constructor(
    private readonly options: SpeakerOptions,
    private readonly parts: SpeakerParts,
  ) {
    this.source = parts.configSource;
    this.startedAt = parts.runtime.now();
    this.events = new EventLog(parts.runtime);
    this.decisionTiming = new DecisionTiming(options.gossipConfig.probeTimeout);
    this.decisions = new DecisionTurns({
      runtime: parts.runtime,
      decide: (turn) => this.decideInTurns(turn),
      decided: (longestTurnMs, services) => this.onDecided(longestTurnMs, services),
      failed: (error) =>
        this.options.logger.error(
          { event: 'recomputeFailed', error: error.stack },
          'recomputing the election failed; keeping the current announcements',
        ),
    });
  }

  /** Where restart history, drain record, peers and allocations live: the parts' store, else --state-dir. */
  private stateFiles(): { stateFiles: StateFiles } | { stateDir: string } {
    return this.parts.stateFiles ? { stateFiles: this.parts.stateFiles } : { stateDir: this.options.stateDir };
  }

  private now(): number {
    return this.parts.runtime.now();
  }

  /**
   * Opens everything, in order. A failure closes what was already opened (the process must not linger with a
   * watcher or a socket and no control API) and rejects with a StartError naming the step: which file, which
   * address, which module. An invalid configuration keeps its ConfigLoadError, whose diagnostics say where.
   */
  async start(): Promise<void> {
    try {
      await this.open();
    } catch (error) {
      await this.closeAfterFailedStart();
      throw error;
    }
  }

  private async open(): Promise<void> {
    const { logger, stateDir } = this.options;
    this.configTracker = new ConfigTracker(this.options.nodeName, logger);
    this.answers = new AnswerContext(this.options.nodeName);
    const step = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
      try {
        return await run();
      } catch (error) {
        throw error instanceof ConfigLoadError ? error : startError(what, error);
      }
    };
    this.flags = await step(`reading the restart history in --state-dir ${stateDir}`, () =>
      SpeakerFlags.load(this.parts.stateFiles ?? stateDir, this.startedAt, logger, () => this.onFlagsChanged(), {
        runtime: this.parts.runtime,
      }),
    );
    const source = this.source;
    const initial = await step(source.loadingStep, () => source.start());
    logger.info({ event: 'configLoaded', file: source.origin, services: initial.snapshot?.services.length }, 'configuration loaded');
    this.source.onChange((state) => this.onConfig(state));

    await step('starting ARP/NDP announcing', () => this.startAnnouncing());
    this.gossip = await step(`listening for gossip on ${formatHostPort(this.options.bind)} (--gossip-bind)`, () =>
      (this.parts.openGossip ?? ((o) => GossipNode.create(o)))({
        runtime: this.parts.runtime,
        name: this.options.nodeName,
        bind: this.options.bind,
        ...(this.options.advertiseHost ? { advertiseHost: this.options.advertiseHost } : {}),
        config: this.options.gossipConfig,
        ...(this.options.keyring ? { keyring: this.options.keyring } : {}),
        meta: this.meta(initial.snapshot),
        log: infoAsDebug(logger),
      }),
    );
    const gossip = this.gossip;
    const wire = new RecordsWire({ gossip, self: this.options.nodeName, onChange: () => this.schedule(), logger });
    this.conflictSharing = new ConflictSharing({
      self: this.options.nodeName,
      epoch: this.startedAt,
      logger,
      runtime: this.parts.runtime,
      wire,
    });
    const sharing = this.conflictSharing;
    this.remoteDrain = remoteDrainFor({
      self: this.options.nodeName,
      keyed: this.options.keyring !== undefined,
      gossip,
      wire,
      flags: this.flags,
      events: this.events,
      logger,
      runtime: this.parts.runtime,
    });
    wire.register([GossipRecordKind.conflictReport], this.conflictSharing);
    wire.register([GossipRecordKind.drainRequest], this.remoteDrain);
    gossip.on('join', (m) => this.onMember('memberJoined', 'member joined', m));
    gossip.on('leave', (m) =>
      this.onMember(m.state === 'left' ? 'memberLeft' : 'memberFailed', m.state === 'left' ? 'member left' : 'member declared dead', m),
    );
    gossip.on('update', (m) => this.onMember('memberUpdated', 'member meta changed', m));
    gossip.on(
      'suspicion',
      suspicionListener(gossip, logger, () => this.schedule()),
    );
    this.cluster = await step(`reading the allocation table in --state-dir ${stateDir}`, () =>
      startClusterRecords({
        wire,
        self: this.options.nodeName,
        epoch: this.startedAt,
        ...this.stateFiles(),
        logger,
        runtime: this.parts.runtime,
        onChange: () => this.schedule(),
        onHealthChange: (service, passing, detail) =>
          this.events.record({ type: 'healthChanged', service, node: this.options.nodeName, passing, detail }),
        ...(this.options.healthCheckRunAs ? { healthCheckRunAs: this.options.healthCheckRunAs } : {}),
        ...(this.parts.healthProbe ? { healthProbe: this.parts.healthProbe } : {}),
      }),
    );
    if (this.selfCheck) {
      const checker = this.selfCheck;
      this.conflictSharePoll = this.parts.runtime.every(CONFLICT_SHARE_POLL_MS, () =>
        sharing.publish(checker.conflicts(), checker.stats().active),
      );
    }
    const cluster = this.cluster;
    logger.info(
      {
        event: 'gossipStarted',
        bind: formatHostPort(gossip.localAddress),
        profile: this.options.profileName,
        encrypted: this.options.keyring !== undefined,
      },
      `gossip listening on ${formatHostPort(gossip.localAddress)}`,
    );
    this.control = await step(`opening the control socket ${this.options.controlSocket}`, () => this.parts.openControl(this));
    logger.info({ event: 'controlListening', socket: this.options.controlSocket }, `control API on ${this.options.controlSocket}`);
    // Nothing is announced before the first join is over (speaker-plan.ts): a decision now would only feed the
    // status, and the join's end recomputes anyway. So one is made early only when the join takes a while
    // (unreachable seeds wait out their connect timeouts), not in front of a join that is over at once, where a
    // second full recomputation of a large file would delay the first announcements by its whole cost.
    const preJoinDecision = this.parts.runtime.after(PRE_JOIN_DECISION_DELAY_MS, () => this.schedule());
    this.membership = new ClusterMembership({
      gossip,
      self: this.options.nodeName,
      seeds: this.options.join,
      ...this.stateFiles(),
      logger,
      runtime: this.parts.runtime,
    });
    const membership = this.membership;
    try {
      await step('joining the cluster', () => membership.start());
    } finally {
      preJoinDecision.cancel();
    }
    this.parts.rejoinRequests?.(() => membership.rejoin());
    // Serving from here on (this node may own IPs): only now does an unclean end count toward flap damping.
    await this.flags.markRunning();
    this.joined = true;
    cluster.allocation.markJoined();
    this.reportConfigAfterBinding(initial.snapshot);
  }

  /**
   * After a failed start: closes whatever was opened, newest first, without the graceful stop's handover or
   * leave (this node never announced anything, and a node that never finished joining has nobody to tell).
   * Failures here are logged by runStopSteps and otherwise ignored: the start's own error is what the operator
   * needs to see.
   */
  private async closeAfterFailedStart(): Promise<void> {
    this.stopping = true;
    this.withdrawnForGood = true;
    await runStopSteps(
      [
        ['membership', () => this.membership?.stop()],
        ['control', () => this.control?.close()],
        ['clusterGossip', () => this.cluster?.close()],
        ['gossip', () => this.gossip?.close()],
        ['bgp', () => this.bgp?.close()],
        ['l2', () => this.l2?.close()],
        ['selfCheck', () => this.closeSelfCheck()],
        ['vips', () => this.vips?.close({ keep: false })],
        ['links', () => this.links?.close()],
        ['config', () => this.source.stop()],
      ],
      this.options.logger,
    ).catch(() => undefined);
  }

  /**
   * Leaves gracefully: hands every owned IP to its successor (announcing until the successor is heard), then
   * withdraws, tells the cluster "left" (not "dead") and stops everything.
   */
  /**
   * Hands over, withdraws, leaves the cluster and saves state. Every step runs even when an earlier one failed
   * (a failed VIP removal must not keep the node in the cluster); failures are logged as they happen and
   * reported together at the end (StopError), so the process exits non-zero and says what went wrong.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    const gossip = this.gossip;
    await runStopSteps(
      [
        ['membership', () => this.membership?.stop()],
        ['config', () => this.source.stop()],
        // A leaving node expects other MACs on its IPs (its successors'); its probes, at 10,000 VIPs most of a stop's
        // CPU, would only slow the handover and the withdraw down.
        ['selfCheck', () => this.closeSelfCheck()],
        ['handover', () => gossip && this.handOver()],
        [
          'withdraw',
          () => {
            this.withdrawnForGood = true;
            this.announcements?.apply([], () => 'shuttingDown');
          },
        ],
        ['bgp', () => this.bgp?.close()],
        ['announcements', () => this.announcements?.settled()],
        ['l2', () => this.l2?.close()],
        ['vips', () => this.vips?.close({ keep: false })],
        ['links', () => this.links?.close()],
        ['control', () => this.control?.close()],
        ['clusterGossip', () => this.cluster?.close()],
        [
          'leave',
          async () => {
            if (!gossip) return;
            const outcome = await gossip.leave(LEAVE_TIMEOUT_MS);
            this.options.logger.info({ event: 'gossipLeft', outcome }, `left the cluster (${outcome})`);
          },
        ],
        ['gossip', () => gossip?.close()],
        ['restartHistory', () => this.flags?.markCleanStop()],
        ['allocations', () => this.cluster?.flush()],
        ['peers', () => this.membership?.flush()],
      ],
      this.options.logger,
    );
  }

  /** `mlb drain [NODE]`: this node (kept across restarts), or another one through gossip (remote-drain/). */
  drain(node?: string): Promise<DrainAnswer> {
    return this.askDrain('drain', node);
  }

  undrain(node?: string): Promise<DrainAnswer> {
    return this.askDrain('undrain', node);
  }

  private askDrain(action: 'drain' | 'undrain', node: string | undefined): Promise<DrainAnswer> {
    if (!this.remoteDrain) return Promise.reject(new Error('the daemon is still starting: gossip is not up yet'));
    return this.remoteDrain.ask(action, node);
  }

  /** `mlb warmup end` (damping/warm-up.ts logs it); the flag change republishes meta and re-elects. */
  async endWarmUp(): Promise<{ changed: boolean; message: string }> {
    const changed = this.flags.endWarmUp();
    return {
      changed,
      message: changed
        ? `${this.options.nodeName} ended its warm-up: it may be elected again now`
        : `${this.options.nodeName} was not warming up`,
    };
  }

  /** The control API's snapshot: exactly the state the last decision was made from. */
  snapshot(page?: SnapshotPage): ControlSnapshot {
    return controlView({
      ...this.viewInputs(),
      announced: this.announcements.announced(),
      bound: this.vips?.bound().map(formatIP) ?? [],
      ...(page ? { page } : {}),
    });
  }

  /** GET /v1/status: the snapshot as `mlb status --once` prints it (no candidates, no `local`). */
  status(): ControlStatus {
    return statusView(this.viewInputs());
  }

  private viewInputs(): StatusViewInputs {
    const cluster = this.cluster;
    return {
      now: this.now(),
      node: {
        name: this.options.nodeName,
        version: this.options.version,
        startedAt: this.startedAt,
        draining: this.flags.draining,
        warmingUp: this.flags.warmingUp,
        warmUpUntil: this.flags.warmUpUntil,
        leaving: this.flags.isLeaving,
      },
      gossip: {
        bind: this.gossip ? formatHostPort(this.gossip.localAddress) : formatHostPort(this.options.bind),
        profile: this.options.profileName,
        encrypted: this.options.keyring !== undefined,
        healthScore: this.gossip?.healthScore() ?? 0,
      },
      configFile: this.source.origin,
      config: this.source.state,
      members: this.gossip?.members() ?? [],
      decision: this.decision,
      allocation: cluster?.allocation.allocationView() ?? { allocator: null, version: 0, results: new Map() },
      configAgreement: this.configTracker.last,
      withheld: this.withheld,
      health: cluster?.health.healthView(this.source.state.snapshot) ?? new Map(),
      owners: this.owners,
      bgp: this.bgp?.status() ?? [],
      conflicts: this.conflictSharing?.view(this.selfCheck?.conflicts() ?? [], this.liveNames(), this.answers.macOwners) ?? [],
      drainRequests: this.remoteDrain?.requests() ?? new Map(),
    };
  }

  /** What the metrics endpoint reads at each scrape besides the snapshot (metrics/metrics-source.ts). */
  metricsCounters(): MetricsCounters {
    const l2 = this.l2;
    const l2Stats = l2?.stats();
    const config = this.source.state.snapshot;
    return {
      ...(l2 && l2Stats ? { layer2: l2.metrics(), layer2Drops: l2Stats.drops, layer2SendFailures: l2Stats.sendFailures } : {}),
      ...(this.gossip ? { gossip: this.gossip.counters } : {}),
      ...(this.cluster ? { gossipRecordDrops: { ...this.cluster.wire.drops, ...this.remoteDrain?.drops } } : {}),
      ...(this.selfCheck ? { selfCheck: this.selfCheckStats(this.selfCheck) } : {}),
      ...(config ? { pools: poolMetrics(config.pools, this.addresses) } : {}),
      decisions: this.decisionTiming.view(),
    };
  }

  /** mlb_conflicts_active counts what the other members observe too: every node shows every conflict. */
  private selfCheckStats(checker: SelfChecker): MetricsCounters['selfCheck'] {
    const stats = checker.stats();
    const counted = new Set(checker.conflicts().map((c) => conflictPairKey(c.ip, c.mac)));
    return { ...stats, active: stats.active + (this.conflictSharing?.shared(this.liveNames(), counted).active ?? 0) };
  }

  /** The other live members, whose conflict reports count here (self-check/conflict-sharing.ts). */
  private liveNames(): Set<string> {
    return new Set(this.gossip?.liveMembers().map((m) => m.name) ?? []);
  }

  private closeSelfCheck(): void {
    this.conflictSharePoll?.cancel();
    this.conflictSharePoll = undefined;
    this.selfCheck?.close();
  }

  explain(): Explanation[] {
    const explained = explainRetention(this.decision?.explain() ?? [], this.configTracker.last?.retention.retained ?? []);
    const until = this.flags.warmUpUntil;
    return withLiveFacts(explained, {
      viewer: this.options.nodeName,
      healthDetails: this.cluster?.health.healthDetails() ?? new Map(),
      warmUpLeftMs: until === undefined ? undefined : Math.max(0, until - this.now()),
    });
  }

  /** Events after `afterSeq` still held in memory, oldest first (the control API's /v1/events replay). */
  eventsSince(afterSeq: number): DaemonEvent[] {
    return this.events.since(afterSeq);
  }

  /** Live events from now on; returns the unsubscribe function. */
  subscribeEvents(listener: (event: DaemonEvent) => void): () => void {
    return this.events.subscribe(listener);
  }

  // --- the loop --------------------------------------------------------------------------------------------------

  /** Coalesces bursts of events (a join brings meta, health and a table) into one recomputation. */
  private schedule(): void {
    this.decisions.request();
  }

  private onDecided(longestTurnMs: number, services: number): void {
    const slow = this.decisionTiming.record(longestTurnMs, this.now(), services);
    if (slow) this.options.logger.warn({ event: 'slowDecision', tookMs: slow.tookMs, services: slow.services }, slow.message);
  }

  /**
   * One recomputation from the whole state, in four turns (decision-turns.ts): the configuration facts, the
   * allocation, the plan, applying it. Gossip is read once, in the first turn, so the plan is made of one view of
   * the members; a change that arrives meanwhile asks for the next decision. Nothing is applied once the stop has
   * withdrawn everything.
   */
  private async decideInTurns(turn: Turn): Promise<number | undefined> {
    const loaded = this.source.state.snapshot;
    const gossip = this.gossip;
    const cluster = this.cluster;
    const over = () => this.withdrawnForGood;
    if (!loaded || !gossip || !cluster || over()) return undefined;
    const number = ++this.decisionsStarted;
    const file = this.interner.intern(loaded);
    const live = gossip.liveMembers().map(liveMemberOf);
    const liveNames = live.map((m) => m.name);
    const members = gossip.members();
    const suspects = gossip.confirmedSuspects();
    const gone = goneOrConfirmedHolders(members, suspects, (name) => gossip.lastHeardFrom(name));
    // What the others' files define: retained services join this node's snapshot, and nothing is released or
    // elected away while a live member still defines it (config-facts/).
    const config = this.configTracker.step(file, live, cluster.config.table(), this.now(), this.refusedReason());
    cluster.config.publish(config.facts);
    const snapshot = config.retention.snapshot;
    const { agreement } = config;
    cluster.forgetGone(new Set(liveNames), new Set(members.map((m) => m.name)));
    await turn();
    if (over()) return undefined;
    const allocation = cluster.allocation.allocate(snapshot, live, (key) => agreement.holders(hashServiceKey(key)));
    const assigned = electionAssignments(this.source.state, snapshot, allocation.addresses);
    this.addresses = assigned.addresses;
    this.withheld = allocation.withheld;
    cluster.health.updateHealthChecks(snapshot);
    const passing = cluster.health.passing(snapshot, liveNames);
    await turn();
    if (over()) return undefined;
    const plan = planSpeaker({
      election: {
        self: this.options.nodeName,
        snapshot,
        live: electableMembers(live, suspects),
        known: members.map(liveMemberOf),
        addresses: assigned.addresses,
        passing,
        notConfiguredOn: (key) => agreement.lacking(hashServiceKey(key)),
        ...assigned.endpointsInput,
        ...(this.options.ignoreExcludeLB ? { options: { ignoreExcludeLB: true } } : {}),
      },
      joined: this.joined,
      handingOver: this.handover?.held,
      announced: this.announcements.announced(),
      owners: this.owners,
      gone,
      members,
      previousMlbInputs: this.lastMlbInputs,
      now: this.now(),
      elector: this.elector,
    });
    await turn();
    if (over()) return undefined;
    this.applyPlan(plan, members);
    this.decisionApplied = number;
    this.reportConfigIfDue(number);
    return loaded.services.length;
  }

  /** Does what the plan says: reports, announces, sessions and routes, what the self-check expects. */
  private applyPlan(plan: SpeakerPlan, members: readonly Member[]): void {
    const { decision } = plan;
    this.decision = decision;
    this.owners = plan.owners;
    this.answers.elected(
      plan.ownerChanges.map((r) => r.change),
      members,
      this.now(),
    );
    for (const { change } of plan.ownerChanges) {
      const { service, protocol, ips, from, to, unheldMs, unheldReason, detectionMs } = change;
      this.events.record({ type: 'ownerChanged', service, protocol, ips, from, to, unheldMs, unheldReason, detectionMs });
    }
    if (plan.electionInputsChanged) {
      this.lastMlbInputs = plan.electionInputsChanged.allowed;
      this.options.logger.info(
        { event: 'electionInputs', mlbOnlyInputs: plan.electionInputsChanged.allowed },
        plan.electionInputsChanged.reason,
      );
    }
    this.announcements.apply(plan.layer2, (service, ip) => withdrawReason(decision, this.options.nodeName, service, ip), plan.bgpBound);
    if (plan.bgp) this.bgp?.update(plan.bgp.peers, plan.bgp.routes);
    this.selfCheck?.setMacOwners(this.answers.macOwners); // members' MACs and departed members' (answer-context.ts)
    // The whole owned set, only when it changed: most decisions leave it as it was, and handing the self-check
    // 10,000 pairs rebuilt its schedule each time.
    if (this.selfCheck && this.announcements.version !== this.selfCheckedVersion) {
      this.selfCheckedVersion = this.announcements.version;
      this.selfCheck.setOwned(this.announcements.announced().flatMap((a) => a.interfaces.map((i) => ({ ip: a.address, interface: i }))));
    }
    this.parts.onPlanned?.(plan, this.announcements.announced());
    // Told once the binding is done, beside its serviceAnnounced lines: on a failover with thousands of services,
    // writing their lines while it runs (a synchronous write each) held back the netlink replies that move it on.
    if (plan.ownerChanges.length > 0) void this.announcements.settled().then(() => logOwnerChanges(this.options.logger, plan.ownerChanges));
  }

  // --- announcing ------------------------------------------------------------------------------------------------

  private async startAnnouncing(): Promise<void> {
    const { logger } = this.options;
    if (!this.options.announce) {
      logger.warn({ event: 'announcingOff' }, '--no-announce: electing and reporting only; no ARP/NDP answers, no VIP binding');
      this.announcements = new LocalAnnouncements(undefined, undefined, logger, this.parts.runtime);
      return;
    }
    const layerTwo = await this.parts.openLayerTwo({
      onConflict: (c) => this.onConflict(c),
      answerFacts: (ip, mac) => this.answers.facts(ip, mac, this.gossip?.members() ?? [], this.decision?.outcomes ?? []),
      stopping: () => this.stopping,
    });
    const { links, announcer, vips, selfCheck } = layerTwo;
    this.links = links;
    this.l2 = announcer;
    this.vips = vips;
    this.selfCheck = selfCheck;
    this.bgp = this.parts.openBgp();
    // A new or changed link changes the MACs this node publishes.
    let publishedMacs = linkMacs(links, this.options.vipInterface)?.join(',');
    links.onChange(() => {
      const macs = linkMacs(links, this.options.vipInterface)?.join(',');
      if (macs !== publishedMacs) {
        publishedMacs = macs;
        this.onFlagsChanged();
      }
    });
    const conflictEvent =
      (type: 'conflict' | 'conflictCleared') => (c: { ip: string; mac: string; node: string | null; interface: string }) =>
        this.events.record({ type, ip: c.ip, mac: c.mac, node: c.node, interface: c.interface });
    selfCheck?.on('conflict', conflictEvent('conflict'));
    selfCheck?.on('conflictCleared', conflictEvent('conflictCleared'));
    this.announcements = new LocalAnnouncements(
      {
        reconcileL2: (d) => void announcer.reconcile(d),
        answerAhead: (d) => announcer.answerAhead?.(d),
        ...(vips ? { bindVips: async (ips, onBound) => void (await vips.reconcile(ips, onBound)) } : {}),
      },
      links,
      logger,
      this.parts.runtime,
    );
  }

  private onConflict(conflict: ObservedConflict): void {
    const ip = formatIP(conflict.ip);
    // While handing over, the successor's announcement is expected, not a split brain.
    if (!this.handover) this.selfCheck?.observe(conflict);
    if (this.handover && this.handover.heldSet.has(ip) && !this.handover.claimed.has(ip)) {
      this.handover.claimed.add(ip);
      this.options.logger.info({ event: 'handoverClaimed', ip, mac: formatMAC(conflict.mac) }, `successor announced ${ip}`);
    }
  }

  private async handOver(): Promise<void> {
    const held = this.announcements.announced().map((a) => a.ip);
    await this.flags.setLeaving();
    if (held.length === 0 || !this.options.announce) return;
    this.handover = { startedAt: this.now(), held, heldSet: new Set(held), claimed: new Set() };
    // Only a decision started from here on knows this node is leaving: one under way still makes it the owner, and
    // read as the handover's state every IP would look orphaned and be let go at once, successors or not.
    const before = this.decisionsStarted;
    this.schedule();
    for (;;) {
      await new Promise<void>((r) => this.parts.runtime.after(HANDOVER_POLL_MS, r));
      if (this.decisionApplied <= before && this.now() - this.handover.startedAt < HANDOVER_TIMEOUT_MS) continue;
      const owners = layer2Owners(this.decision?.outcomes ?? []);
      const status = handoverStatus({
        held,
        claimed: this.handover.claimed,
        self: this.options.nodeName,
        startedAt: this.handover.startedAt,
        now: this.now(),
        ownerOf: (ip) => owners.get(ip) ?? null,
      });
      if (!status.done) continue;
      this.options.logger.info(
        {
          event: 'handoverDone',
          reason: status.reason,
          waiting: status.waiting,
          orphaned: status.orphaned,
          ms: this.now() - this.handover.startedAt,
        },
        status.reason === 'allClaimed' ? 'every successor has announced: stopping' : 'handover timed out: stopping anyway',
      );
      return;
    }
  }

  // --- membership and configuration ------------------------------------------------------------------------------

  private meta(snapshot: Snapshot | undefined): Uint8Array {
    return encodeNodeMeta(
      nodeFacts({
        nodeName: this.options.nodeName,
        // Kubernetes mode (the source knows endpoints): every speaker reads the Node objects, none publishes them.
        ...(this.source.state.endpoints ? {} : { snapshot }),
        labels: this.options.nodeLabels,
        draining: this.flags.draining,
        warmingUp: this.flags.warmingUp,
        macs: linkMacs(this.links, this.options.vipInterface),
        release: this.options.release ?? this.options.version,
      }),
    );
  }

  private onFlagsChanged(): void {
    this.gossip?.setMeta(this.meta(this.source.state.snapshot));
    this.schedule();
  }

  private onMember(event: string, message: string, member: Member): void {
    this.schedule();
    if (event !== 'memberUpdated') this.selfCheck?.membershipChanged();
    if (member.name === this.options.nodeName) return;
    this.answers.memberChanged(member.name, this.now());
    this.events.record({ type: event as 'memberJoined' | 'memberLeft' | 'memberFailed' | 'memberUpdated', member: member.name });
    this.options.logger.info(
      { event, member: member.name, addr: `${hostFromBytes(member.addr)}:${member.port}`, incarnation: member.incarnation },
      `${message}: ${member.name}`,
    );
    if (member.state === 'alive') this.membership?.memberAlive(member);
  }

  /** This node's file on disk, when refused: its first error, for the configuration facts it gossips. */
  private refusedReason(): string | undefined {
    const state = this.source.state;
    if (!state?.stale) return undefined;
    const report = diagnosticReport(state.diagnostics);
    return report.errors[0] ?? report.warnings[0] ?? 'refused';
  }

  private onConfig(state: ConfigState): void {
    const { logger } = this.options;
    if (state.stale) {
      const { errors, warnings } = diagnosticReport(state.diagnostics);
      logger.error(
        { event: 'configStale', file: this.source.origin, errors, warnings },
        'configuration rejected: keeping the last good one',
      );
      this.events.record({ type: 'configStale', file: this.source.origin, errors });
      this.schedule(); // the others learn that this node's file is refused (config-facts)
      return;
    }
    this.events.record({ type: 'configReloaded', file: this.source.origin });
    logger.info({ event: 'configLoaded', file: this.source.origin, services: state.snapshot?.services.length }, 'configuration reloaded');
    this.gossip?.setMeta(this.meta(state.snapshot));
    this.schedule();
    this.reportConfigAfterBinding(state.snapshot);
  }

  /**
   * Logs what the file gets wrong (config-load-report.ts), once the first decision started after now is applied
   * and its binding done. The report runs the file's allocation again (about 0.15 s at 10,000 services): run on
   * the next tick, it landed between the turns of the decision it should follow, in front of the announcement.
   */
  private reportConfigAfterBinding(snapshot: Snapshot | undefined): void {
    this.configReport = { snapshot, afterDecision: this.decisionsStarted };
  }

  /** After decision `number` is applied: the configuration report, when one waits for it (reportConfigAfterBinding). */
  private reportConfigIfDue(number: number): void {
    const due = this.configReport;
    if (!due || number <= due.afterDecision) return;
    this.configReport = undefined;
    void this.announcements.settled().then(() => logConfigReport(this.options.logger, due.snapshot, this.options.nodeName));
  }
}
