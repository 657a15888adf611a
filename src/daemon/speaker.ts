/**
 * The speaker on a plain host: the configuration file (hot reload, last good kept), gossip membership with this
 * node's facts in meta, health checks and the allocation table exchanged in gossip, the election of every
 * service, and the L2 announcer and VIP binding for what this node owns. Every change anywhere schedules one
 * recomputation from the whole state (speaker-decider.ts), and the announcer converges to the result, so events
 * can be missed, repeated or reordered without effect (docs/architecture.md, "One direction of data").
 *
 * This file is the order of things: the start opens the parts one after the other (speaker-announcing.ts,
 * gossip, speaker-records.ts, the control socket, the join) into `opened` (opened-parts.ts), gossip and file
 * events ask for decisions, and the stop hands over (leaving-handover.ts) and closes every part.
 * What the operator sees is read in speaker-views.ts.
 */
import type { ObservedConflict } from '../announce/l2/l2-interface';
import { formatMAC } from '../announce/l2/mac-address';
import type { Explanation } from '../election';
import { GossipNode } from '../gossip/gossip-node';
import { encodeNodeMeta } from '../gossip/node-meta';
import type { Member } from '../gossip/swim';
import { formatHostPort, hostFromBytes, type HostPort } from '../gossip/transport/address';
import { formatIP } from '../ip';
import { diagnosticReport, type Snapshot } from '../model';
import type { Timer } from '../runtime';
import { infoAsDebug } from '../runtime/log';
import type { StateFiles } from '../runtime/state-files';
import { ConfigLoadError, type ConfigSource, type ConfigState } from '../sources/config-source';
import { ClusterMembership } from './cluster-membership';
import { ConfigTracker } from './config-facts';
import { logConfigReport } from './config-load-report';
import type { ControlProvider, ControlSnapshot, ControlStatus, SnapshotPage } from './control';
import { DecisionTiming } from './decision-timing';
import { DecisionTurns, type Turn } from './decision-turns';
import { EventLog, type DaemonEvent } from './daemon-events';
import { LeavingHandover } from './leaving-handover';
// Not './metrics': its index loads prom-client, which only --metrics-bind should load (daemon.ts imports it lazily).
import type { MetricsCounters, MetricsSource } from './metrics/metrics-source';
import { linkMacs, nodeFacts } from './node-facts';
import type { OpenedParts } from './opened-parts';
import { suspicionListener } from './suspect-owners';
import { openAnnouncing } from './speaker-announcing';
import { SpeakerDecider } from './speaker-decider';
import type { SpeakerOptions } from './speaker-options';
import { SpeakerViews } from './speaker-views';
import { openSpeakerRecords } from './speaker-records';
import type { SpeakerParts } from './speaker-parts';
import { AnswerContext } from './self-check/answer-context';
import { SpeakerFlags } from './speaker-flags';
import type { DrainAnswer } from './remote-drain';
import { runStopSteps } from './graceful-stop';
import { startError } from './start-failure';

/**
 * How long claims are gathered before the IPs they name are let go. At 10,000 services a leaving node hears some
 * 3,000 claims in a second or two, one frame each: letting go per frame re-applied the held set thousands of
 * times and held its event loop for seconds, while it went on answering for all of them. 25 ms keeps an IP's
 * two answers that short at most and the re-applications to 40 a second.
 */
const LET_GO_BATCH_MS = 25;
/** MetalLB's speaker leaves with a 1 s timeout on shutdown. */
const LEAVE_TIMEOUT_MS = 1_000;
/**
 * How long the first join may take before a decision is made without waiting for it (for the status: nothing is
 * announced before the join is over). A join with a reachable seed or none is over well within it.
 */
const PRE_JOIN_DECISION_DELAY_MS = 1_000;

export type { SpeakerOptions } from './speaker-options';

export class Speaker implements ControlProvider, MetricsSource {
  /** Every part as the start opens it (opened-parts.ts): the decisions, the views and the stop read them there. */
  private readonly opened: OpenedParts = {};
  private readonly source: ConfigSource;
  private conflictSharePoll: Timer | undefined;
  /** Owner changes, member changes and MACs: what makes another MAC's answer expected (self-check/). */
  private readonly answers: AnswerContext;
  private flags!: SpeakerFlags;
  /** The recomputation and what it keeps between decisions (speaker-decider.ts). */
  private readonly decider: SpeakerDecider;
  private readonly decisionTiming: DecisionTiming;
  /** The control API's snapshot and status, explain, the metrics (speaker-views.ts). */
  private readonly views: SpeakerViews;
  /** Recomputations, one at a time and in turns that let gossip be answered between them. */
  private readonly decisions: DecisionTurns;
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
  /** The first join attempt is over: the election now sees the cluster, not just this node. */
  private joined = false;
  /** While leaving: what this node held when the handover began, and which successors have announced since. */
  private handover: LeavingHandover | undefined;
  /** A letGo is queued for the end of this burst of claims (letGoSoon). */
  private letGoPending = false;
  /** Compares this node's file with the others' and retains services they still define (config-facts/). */
  private readonly configTracker: ConfigTracker;
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
    this.configTracker = new ConfigTracker(options.nodeName, options.logger);
    this.answers = new AnswerContext(options.nodeName);
    this.decider = new SpeakerDecider({
      self: options.nodeName,
      ignoreExcludeLB: options.ignoreExcludeLB ?? false,
      source: this.source,
      opened: this.opened,
      clock: parts.runtime,
      logger: options.logger,
      events: this.events,
      configTracker: this.configTracker,
      answers: this.answers,
      ...(parts.onPlanned ? { onPlanned: parts.onPlanned } : {}),
      joined: () => this.joined,
      handingOver: () => this.handover?.unclaimed(),
      over: () => this.withdrawnForGood,
      refusedReason: () => this.refusedReason(),
    });
    this.views = new SpeakerViews({
      nodeName: options.nodeName,
      version: options.version,
      profileName: options.profileName,
      bind: options.bind,
      ...(options.keyring ? { keyring: options.keyring } : {}),
      startedAt: this.startedAt,
      clock: parts.runtime,
      source: this.source,
      opened: this.opened,
      decider: this.decider,
      configTracker: this.configTracker,
      answers: this.answers,
      decisionTiming: this.decisionTiming,
      flags: () => this.flags,
    });
    this.decisions = new DecisionTurns({
      runtime: parts.runtime,
      decide: (turn) => this.decide(turn),
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
    const opened = this.opened;
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

    await step('starting ARP/NDP announcing', () =>
      openAnnouncing({
        announce: this.options.announce,
        ...(this.options.vipInterface ? { vipInterface: this.options.vipInterface } : {}),
        parts: this.parts,
        opened,
        logger,
        events: this.events,
        hooks: {
          onConflict: (c) => this.onConflict(c),
          answerFacts: (ip, mac) => this.answers.facts(ip, mac, opened.gossip?.members() ?? [], this.decider.decision?.outcomes ?? []),
          stopping: () => this.stopping,
        },
        macsChanged: () => this.onFlagsChanged(),
      }),
    );
    opened.gossip = await step(`listening for gossip on ${formatHostPort(this.options.bind)} (--gossip-bind)`, () =>
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
    const gossip = opened.gossip;
    gossip.on('join', (m) => this.onMember('memberJoined', 'member joined', m));
    gossip.on('leave', (m) =>
      this.onMember(m.state === 'left' ? 'memberLeft' : 'memberFailed', m.state === 'left' ? 'member left' : 'member declared dead', m),
    );
    gossip.on('update', (m) => this.onMember('memberUpdated', 'member meta changed', m));
    gossip.on(
      'suspicion',
      suspicionListener(gossip, logger, () => this.schedule()),
    );
    const records = await step(`reading the allocation table in --state-dir ${stateDir}`, () =>
      openSpeakerRecords({
        self: this.options.nodeName,
        epoch: this.startedAt,
        keyed: this.options.keyring !== undefined,
        gossip,
        flags: this.flags,
        events: this.events,
        logger,
        runtime: this.parts.runtime,
        opened,
        onChange: () => this.schedule(),
        ...this.stateFiles(),
        ...(this.options.healthCheckRunAs ? { healthCheckRunAs: this.options.healthCheckRunAs } : {}),
        ...(this.parts.healthProbe ? { healthProbe: this.parts.healthProbe } : {}),
      }),
    );
    this.conflictSharePoll = records.conflictSharePoll;
    const cluster = records.cluster;
    logger.info(
      {
        event: 'gossipStarted',
        bind: formatHostPort(gossip.localAddress),
        profile: this.options.profileName,
        encrypted: this.options.keyring !== undefined,
      },
      `gossip listening on ${formatHostPort(gossip.localAddress)}`,
    );
    opened.control = await step(`opening the control socket ${this.options.controlSocket}`, () => this.parts.openControl(this));
    logger.info({ event: 'controlListening', socket: this.options.controlSocket }, `control API on ${this.options.controlSocket}`);
    // Nothing is announced before the first join is over (speaker-plan.ts): a decision now would only feed the
    // status, and the join's end recomputes anyway. So one is made early only when the join takes a while
    // (unreachable seeds wait out their connect timeouts), not in front of a join that is over at once, where a
    // second full recomputation of a large file would delay the first announcements by its whole cost.
    const preJoinDecision = this.parts.runtime.after(PRE_JOIN_DECISION_DELAY_MS, () => this.schedule());
    const membership = new ClusterMembership({
      gossip,
      self: this.options.nodeName,
      seeds: this.options.join,
      ...this.stateFiles(),
      logger,
      runtime: this.parts.runtime,
    });
    opened.membership = membership;
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
        ['membership', () => this.opened.membership?.stop()],
        ['control', () => this.opened.control?.close()],
        ['clusterGossip', () => this.opened.cluster?.close()],
        ['gossip', () => this.opened.gossip?.close()],
        ['bgp', () => this.opened.bgp?.close()],
        ['l2', () => this.opened.l2?.close()],
        ['selfCheck', () => this.closeSelfCheck()],
        ['vips', () => this.opened.vips?.close({ keep: false })],
        ['links', () => this.opened.links?.close()],
        ['config', () => this.source.stop()],
      ],
      this.options.logger,
    ).catch(() => undefined);
  }

  /**
   * Leaves gracefully: hands every owned IP to its successor (announcing until the successor is heard), then
   * withdraws, tells the cluster "left" (not "dead") and stops everything. Every step runs even when an earlier
   * one failed (a failed VIP removal must not keep the node in the cluster); failures are logged as they happen
   * and reported together at the end (StopError), so the process exits non-zero and says what went wrong.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    const gossip = this.opened.gossip;
    await runStopSteps(
      [
        ['membership', () => this.opened.membership?.stop()],
        ['config', () => this.source.stop()],
        // A leaving node expects other MACs on its IPs (its successors'); its probes, at 10,000 VIPs most of a stop's
        // CPU, would only slow the handover and the withdraw down.
        ['selfCheck', () => this.closeSelfCheck()],
        ['handover', () => gossip && this.handOver()],
        [
          'withdraw',
          () => {
            this.withdrawnForGood = true;
            this.opened.announcements?.apply([], () => 'shuttingDown');
          },
        ],
        ['bgp', () => this.opened.bgp?.close()],
        ['announcements', () => this.opened.announcements?.settled()],
        ['l2', () => this.opened.l2?.close()],
        ['vips', () => this.opened.vips?.close({ keep: false })],
        ['links', () => this.opened.links?.close()],
        ['control', () => this.opened.control?.close()],
        ['clusterGossip', () => this.opened.cluster?.close()],
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
        ['allocations', () => this.opened.cluster?.flush()],
        ['peers', () => this.opened.membership?.flush()],
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
    if (!this.opened.remoteDrain) return Promise.reject(new Error('the daemon is still starting: gossip is not up yet'));
    return this.opened.remoteDrain.ask(action, node);
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
    return this.views.snapshot(page);
  }

  /** GET /v1/status: the snapshot as `mlb status --once` prints it (no candidates, no `local`). */
  status(): ControlStatus {
    return this.views.status();
  }

  /** What the metrics endpoint reads at each scrape besides the snapshot (metrics/metrics-source.ts). */
  metricsCounters(): MetricsCounters {
    return this.views.metricsCounters();
  }

  private closeSelfCheck(): void {
    this.conflictSharePoll?.cancel();
    this.conflictSharePoll = undefined;
    this.opened.selfCheck?.close();
  }

  explain(): Explanation[] {
    return this.views.explain();
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

  /** One recomputation (speaker-decider.ts), then the configuration report when one waits for it. */
  private async decide(turn: Turn): Promise<number | undefined> {
    const services = await this.decider.decide(turn);
    if (services !== undefined) this.reportConfigIfDue(this.decider.applied);
    return services;
  }

  // --- announcing ------------------------------------------------------------------------------------------------

  private onConflict(conflict: ObservedConflict): void {
    const ip = formatIP(conflict.ip);
    // While handing over, the successor's announcement is expected, not a split brain.
    if (!this.handover) this.opened.selfCheck?.observe(conflict);
    else if (this.handover.claim(ip)) {
      const level = this.handover.claimLogLevel();
      this.options.logger[level]({ event: 'handoverClaimed', ip, mac: formatMAC(conflict.mac) }, `successor announced ${ip}`);
      this.letGoSoon();
    }
  }

  private async handOver(): Promise<void> {
    const announcements = this.opened.announcements;
    const held = announcements?.announced().map((a) => a.ip) ?? [];
    await this.flags.setLeaving();
    if (held.length === 0 || !this.options.announce) return;
    const handover = new LeavingHandover(held, this.now());
    this.handover = handover;
    // Only a decision started from here on knows this node is leaving (leaving-handover.ts decidedSince).
    const before = this.decider.started;
    this.schedule();
    await handover.wait({
      runtime: this.parts.runtime,
      self: this.options.nodeName,
      logger: this.options.logger,
      decidedSince: () => this.decider.applied > before,
      outcomes: () => this.decider.decision?.outcomes ?? [],
      tell: (names) => this.tellDirectly(names),
    });
  }

  /**
   * Stops answering for the IPs whose successors have been heard (speaker-decider.ts letGo), once per
   * LET_GO_BATCH_MS: a successor's gratuitous ARPs for its share arrive as a stream of frames, each one a claim
   * here, and each letGo re-applies the whole held set.
   */
  private letGoSoon(): void {
    if (this.letGoPending) return;
    this.letGoPending = true;
    this.parts.runtime.after(LET_GO_BATCH_MS, () => {
      this.letGoPending = false;
      this.decider.letGo();
    });
  }

  /** A push/pull with each of these members (memberlist's join): they learn this node's state now. */
  private tellDirectly(names: readonly string[]): void {
    const gossip = this.opened.gossip;
    if (!gossip) return;
    const wanted = new Set(names);
    const addresses: HostPort[] = [];
    for (const m of gossip.members()) {
      const host = wanted.has(m.name) ? hostFromBytes(m.addr) : undefined;
      if (host !== undefined) addresses.push({ host, port: m.port });
    }
    void gossip
      .join(addresses)
      .catch((error: unknown) =>
        this.options.logger.warn({ event: 'handoverNudgeFailed', error: String(error) }, 'telling the successors directly failed'),
      );
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
        macs: linkMacs(this.opened.links, this.options.vipInterface),
        release: this.options.release ?? this.options.version,
      }),
    );
  }

  private onFlagsChanged(): void {
    this.opened.gossip?.setMeta(this.meta(this.source.state.snapshot));
    this.schedule();
  }

  private onMember(event: string, message: string, member: Member): void {
    this.schedule();
    if (event !== 'memberUpdated') this.opened.selfCheck?.membershipChanged();
    if (member.name === this.options.nodeName) return;
    this.answers.memberChanged(member.name, this.now());
    this.events.record({ type: event as 'memberJoined' | 'memberLeft' | 'memberFailed' | 'memberUpdated', member: member.name });
    this.options.logger.info(
      { event, member: member.name, addr: `${hostFromBytes(member.addr)}:${member.port}`, incarnation: member.incarnation },
      `${message}: ${member.name}`,
    );
    if (member.state === 'alive') this.opened.membership?.memberAlive(member);
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
    this.opened.gossip?.setMeta(this.meta(state.snapshot));
    this.schedule();
    this.reportConfigAfterBinding(state.snapshot);
  }

  /**
   * Logs what the file gets wrong (config-load-report.ts), once the first decision started after now is applied
   * and its binding done. The report runs the file's allocation again (about 0.15 s at 10,000 services): run on
   * the next tick, it landed between the turns of the decision it should follow, in front of the announcement.
   */
  private reportConfigAfterBinding(snapshot: Snapshot | undefined): void {
    this.configReport = { snapshot, afterDecision: this.decider.started };
  }

  /** After decision `number` is applied: the configuration report, when one waits for it (reportConfigAfterBinding). */
  private reportConfigIfDue(number: number): void {
    const due = this.configReport;
    if (!due || number <= due.afterDecision) return;
    this.configReport = undefined;
    const settled = this.opened.announcements?.settled() ?? Promise.resolve();
    void settled.then(() => logConfigReport(this.options.logger, due.snapshot, this.options.nodeName));
  }
}
