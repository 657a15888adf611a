/**
 * What the speaker shows: the control API's snapshot and status (control-view.ts builds them from these inputs),
 * `mlb explain`'s live explanations, and what the metrics endpoint reads at each scrape. Read-only: every view is
 * made from the parts as they are now and the last decision applied, never from a copy.
 */
import type { Explanation } from '../election';
import type { Keyring } from '../gossip/codec';
import { formatHostPort, type HostPort } from '../gossip/transport/address';
import { formatIP } from '../ip';
import type { Clock } from '../runtime/runtime';
import type { ConfigSource } from '../sources/config-source';
import { explainRetention, type ConfigTracker } from './config-facts';
import type { ControlSnapshot, ControlStatus, SnapshotPage } from './control';
import { controlView, statusView, type StatusViewInputs } from './control-view';
import type { DecisionTiming } from './decision-timing';
import { withLiveFacts } from './explain-live-facts';
// Not './metrics': its index loads prom-client, which only --metrics-bind should load (daemon.ts imports it lazily).
import type { MetricsCounters } from './metrics/metrics-source';
import { poolMetrics } from './metrics/pool-metrics';
import type { OpenedParts } from './opened-parts';
import type { AnswerContext } from './self-check/answer-context';
import { conflictPairKey } from './self-check/conflict-sharing';
import type { SelfChecker } from './self-check/self-checker';
import type { SpeakerDecider } from './speaker-decider';
import type { SpeakerFlags } from './speaker-flags';

export interface SpeakerViewsOptions {
  readonly nodeName: string;
  readonly version: string;
  readonly profileName: string;
  /** Where gossip was asked to listen (shown until it is open). */
  readonly bind: HostPort;
  readonly keyring?: Keyring;
  readonly startedAt: number;
  readonly clock: Clock;
  readonly source: ConfigSource;
  readonly opened: OpenedParts;
  readonly decider: SpeakerDecider;
  readonly configTracker: ConfigTracker;
  readonly answers: AnswerContext;
  readonly decisionTiming: DecisionTiming;
  /** Drain, warm-up and leaving, read when the view is made (loaded during the start). */
  readonly flags: () => SpeakerFlags;
}

export class SpeakerViews {
  constructor(private readonly options: SpeakerViewsOptions) {}

  /** The control API's snapshot: exactly the state the last decision was made from. */
  snapshot(page?: SnapshotPage): ControlSnapshot {
    const { opened } = this.options;
    return controlView({
      ...this.inputs(),
      announced: opened.announcements?.announced() ?? [],
      bound: opened.vips?.bound().map(formatIP) ?? [],
      ...(page ? { page } : {}),
    });
  }

  /** GET /v1/status: the snapshot as `mlb status --once` prints it (no candidates, no `local`). */
  status(): ControlStatus {
    return statusView(this.inputs());
  }

  /** The last decision's explanations, with the services others retain and the live facts (health, warm-up). */
  explain(): Explanation[] {
    const { decider, configTracker, opened } = this.options;
    const explained = explainRetention(decider.decision?.explain() ?? [], configTracker.last?.retention.retained ?? []);
    const until = this.options.flags().warmUpUntil;
    return withLiveFacts(explained, {
      viewer: this.options.nodeName,
      healthDetails: opened.cluster?.health.healthDetails() ?? new Map(),
      warmUpLeftMs: until === undefined ? undefined : Math.max(0, until - this.options.clock.now()),
    });
  }

  /** What the metrics endpoint reads at each scrape besides the snapshot (metrics/metrics-source.ts). */
  metricsCounters(): MetricsCounters {
    const { opened, source, decider } = this.options;
    const { l2, gossip, cluster, selfCheck } = opened;
    const l2Stats = l2?.stats();
    const answerTimes = l2?.answerTimes?.();
    const config = source.state.snapshot;
    return {
      ...(l2 && l2Stats ? { layer2: l2.metrics(), layer2Drops: l2Stats.drops, layer2SendFailures: l2Stats.sendFailures } : {}),
      ...(answerTimes ? { arpAnswerTimes: answerTimes } : {}),
      ...(gossip ? { gossip: gossip.counters } : {}),
      ...(cluster ? { gossipRecordDrops: { ...cluster.wire.drops, ...opened.remoteDrain?.drops } } : {}),
      ...(selfCheck ? { selfCheck: this.selfCheckStats(selfCheck) } : {}),
      ...(config ? { pools: poolMetrics(config.pools, decider.addresses) } : {}),
      decisions: this.options.decisionTiming.view(),
    };
  }

  private inputs(): StatusViewInputs {
    const { opened, source, decider } = this.options;
    const { cluster, gossip } = opened;
    const flags = this.options.flags();
    return {
      now: this.options.clock.now(),
      node: {
        name: this.options.nodeName,
        version: this.options.version,
        startedAt: this.options.startedAt,
        draining: flags.draining,
        warmingUp: flags.warmingUp,
        warmUpUntil: flags.warmUpUntil,
        leaving: flags.isLeaving,
      },
      gossip: {
        bind: formatHostPort(gossip ? gossip.localAddress : this.options.bind),
        profile: this.options.profileName,
        encrypted: this.options.keyring !== undefined,
        healthScore: gossip?.healthScore() ?? 0,
      },
      configFile: source.origin,
      config: source.state,
      members: gossip?.members() ?? [],
      decision: decider.decision,
      allocation: cluster?.allocation.allocationView() ?? { allocator: null, version: 0, results: new Map() },
      configAgreement: this.options.configTracker.last,
      withheld: decider.withheld,
      health: cluster?.health.healthView(source.state.snapshot) ?? new Map(),
      owners: decider.owners,
      bgp: opened.bgp?.status() ?? [],
      conflicts: opened.conflictSharing?.view(opened.selfCheck?.conflicts() ?? [], this.liveNames(), this.options.answers.macOwners) ?? [],
      drainRequests: opened.remoteDrain?.requests() ?? new Map(),
    };
  }

  /** mlb_conflicts_active counts what the other members observe too: every node shows every conflict. */
  private selfCheckStats(checker: SelfChecker): MetricsCounters['selfCheck'] {
    const stats = checker.stats();
    const counted = new Set(checker.conflicts().map((c) => conflictPairKey(c.ip, c.mac)));
    return { ...stats, active: stats.active + (this.options.opened.conflictSharing?.shared(this.liveNames(), counted).active ?? 0) };
  }

  /** The other live members, whose conflict reports count here (self-check/conflict-sharing.ts). */
  private liveNames(): Set<string> {
    return new Set(this.options.opened.gossip?.liveMembers().map((m) => m.name) ?? []);
  }
}
