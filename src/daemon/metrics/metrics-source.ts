/**
 * What the metrics endpoint reads, and when: nothing is pushed to it. At each scrape the registry asks the
 * source for the control API's snapshot (who announces what, members, configuration, health, conflicts: the
 * same truth `mlb status` shows) and for the cumulative counters the snapshot does not carry, and turns them
 * into series. So nothing is counted twice, a withdrawn IP's series disappears with it, and between scrapes
 * the daemon does no work for metrics. The one exception is the owner-change histogram: each change is an
 * observation, so the registry follows the daemon's event stream (the events the control API streams).
 *
 * The speaker implements this; `snapshot` and `subscribeEvents` it already has for the control API.
 */
import type { DecisionTimingView } from '../decision-timing';
import type { ArpAnswerTimes } from '../../announce/l2/arp-answer-times';
import type { L2Metric } from '../../announce/l2/l2-counters';
import type { GossipCounters } from '../../gossip/gossip-stats';
import type { ControlSnapshot } from '../control/control-snapshot';
import type { DaemonEvent } from '../daemon-events';
import type { SelfCheckStats } from '../self-check/self-checker';
import type { PoolMetrics } from './pool-metrics';

export interface MetricsSource {
  /** The control API's snapshot, taken once per scrape (Speaker.snapshot()). */
  snapshot(): ControlSnapshot;
  /** The daemon's event stream from now on (Speaker.subscribeEvents); returns the unsubscribe function. */
  subscribeEvents(listener: (event: DaemonEvent) => void): () => void;
  /**
   * Cumulative counters and allocation usage, taken once per scrape. Optional, and every field in it too: a
   * part that does not run (no announcer with --no-announce, no allocation before the first configuration)
   * simply has no series.
   */
  metricsCounters?(): MetricsCounters;
}

export interface MetricsCounters {
  /** L2Announcer.metrics(): metallb_layer2_requests_received / responses_sent / gratuitous_sent per IP. */
  readonly layer2?: readonly L2Metric[];
  /** L2Announcer.stats().drops: received frames refused, by drop reason (drop-reasons.ts). */
  readonly layer2Drops?: Readonly<Record<string, number>>;
  /** L2Announcer.stats().sendFailures: replies and announcements the kernel refused. */
  readonly layer2SendFailures?: number;
  /** GossipNode.counters: packets, bytes, streams and drops by codec reason. */
  readonly gossip?: GossipCounters;
  /** RecordsWire.drops and RemoteDrain.drops: mlb records in gossip refused, by reason (records/record-kinds.ts). */
  readonly gossipRecordDrops?: Readonly<Record<string, number>>;
  /** SelfChecker.stats(): split-brain probes and conflicts detected since start. */
  readonly selfCheck?: SelfCheckStats;
  /** Per-pool capacity and use: poolMetrics(snapshot.pools, allocation.addresses). */
  readonly pools?: readonly PoolMetrics[];
  /** L2Announcer.answerTimes(): how long the addon's ARP answer thread took per request. */
  readonly arpAnswerTimes?: ArpAnswerTimes;
  /** How long decisions hold the event loop (decision-timing.ts). */
  readonly decisions?: DecisionTimingView;
}
