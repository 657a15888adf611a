/**
 * mlb's own metrics, for what MetalLB has no metric for: gossip membership, IPs nobody announces, health
 * checks, split-brain conflicts, drops by reason, configuration reloads, drain and warm-up. Names follow
 * Prometheus conventions (mlb_ prefix, _total for counters, base units), labels stay low in cardinality
 * (service, protocol, reason, state: never a MAC, a port or a peer address).
 */
import { NodeStateCode } from '../../gossip/messages';
import { ANSWER_STAGES, type ArpAnswerTimes } from '../../announce/l2/arp-answer-times';
import { byKey, bool, single, type HistogramSample, type PulledHistogram, type PulledMetric, type Sample } from './pulled-metric';

/** Every member state is always present (0 included), so `mlb_gossip_members{state="dead"} > 0` needs no absent(). */
const MEMBER_STATES = Object.keys(NodeStateCode) as (keyof typeof NodeStateCode)[];

export const MLB_METRICS: readonly (PulledMetric | PulledHistogram)[] = [
  {
    name: 'mlb_build_info',
    help: 'Always 1; the running mlb version is the label',
    type: 'gauge',
    labels: ['version'],
    samples: ({ snapshot }) => [[{ version: snapshot.node.version }, 1]],
  },
  {
    name: 'mlb_gossip_members',
    help: 'Members gossip knows, this node included, by memberlist state',
    type: 'gauge',
    labels: ['state'],
    samples: ({ snapshot }) => MEMBER_STATES.map((state): Sample => [{ state }, snapshot.members.filter((m) => m.state === state).length]),
  },
  {
    name: 'mlb_service_announcing_nodes',
    help: "Nodes announcing the service's IPs as this node computes the election (0: nobody answers for them, or no IP)",
    type: 'gauge',
    labels: ['service', 'protocol'],
    samples: ({ snapshot }) => announcingSamples(snapshot.services),
  },
  {
    name: 'mlb_health_check_passing',
    help: "This node's own mlb.io/health-check verdict for the service (1 passing, 0 failing); absent without a check or a verdict yet",
    type: 'gauge',
    labels: ['service'],
    samples: ({ snapshot }) => healthSamples(snapshot.node.name, snapshot.services),
  },
  {
    name: 'mlb_conflicts_active',
    help: 'Another MAC answers for an IP a node announces (split brain, or the address configured elsewhere): (IP, MAC) conflicts active now, seen by this node or reported by the other members, listed or folded into a count',
    type: 'gauge',
    labels: [],
    samples: ({ snapshot, counters }) => single(counters.selfCheck?.active ?? snapshot.conflicts.length),
  },
  {
    name: 'mlb_conflict_replies_total',
    help: 'ARP/NDP replies and announcements from another MAC for an IP this node owns, every one counted (the log and status summarise them)',
    type: 'counter',
    labels: [],
    samples: ({ counters }) => single(counters.selfCheck?.conflictSightings),
  },
  {
    name: 'mlb_conflicts_detected_total',
    help: 'New (IP, MAC) conflicts detected by the split-brain self-check since start',
    type: 'counter',
    labels: [],
    samples: ({ counters }) => single(counters.selfCheck?.conflictsDetected),
  },
  {
    name: 'mlb_self_check_expected_answers_total',
    help: 'Answers from another MAC the split-brain self-check judged expected for a while (a handover, a drain, gossip converging), not conflicts',
    type: 'counter',
    labels: [],
    samples: ({ counters }) => single(counters.selfCheck?.expectedAnswers),
  },
  {
    name: 'mlb_self_check_probes_total',
    help: 'Split-brain self-check probes for owned IPs, by result (sent, or failed: no interface, MAC or socket)',
    type: 'counter',
    labels: ['result'],
    samples: ({ counters }) => {
      const s = counters.selfCheck;
      return s
        ? [
            [{ result: 'sent' }, s.probesSent],
            [{ result: 'failed' }, s.probesFailed],
          ]
        : [];
    },
  },
  {
    name: 'mlb_arp_fast_path_answer_seconds',
    help: "How long the ARP answer thread took per request it answered, by stage: queued (from the kernel's receive stamp to the thread reading it: softirq delay and wake-up) and answering (lookup and send)",
    type: 'histogram',
    labels: ['stage'],
    histograms: ({ counters }) => answerTimeHistograms(counters.arpAnswerTimes),
  },
  {
    name: 'mlb_decision_duration_seconds',
    help: 'How long the last decision (allocation, election, plan) held the event loop in one piece, its longest turn; absent before the first',
    type: 'gauge',
    labels: [],
    samples: ({ counters }) => single(counters.decisions?.lastMs === undefined ? undefined : counters.decisions.lastMs / 1000),
  },
  {
    name: 'mlb_decisions_slow_total',
    help: 'Decisions that held the event loop longer than the gossip probe timeout (peers may suspect the node meanwhile)',
    type: 'counter',
    labels: [],
    samples: ({ counters }) => single(counters.decisions?.slow),
  },
  {
    name: 'mlb_config_last_reload_success_timestamp_seconds',
    help: 'When the running configuration was loaded (Unix time); absent before the first good load',
    type: 'gauge',
    labels: [],
    samples: ({ snapshot }) => single(snapshot.config.loadedAt === null ? undefined : Date.parse(snapshot.config.loadedAt) / 1000),
  },
  {
    name: 'mlb_config_divergent_nodes',
    help: "Live mlb members whose configuration differs from this node's (digest of the validated objects); absent before the first comparison",
    type: 'gauge',
    labels: [],
    samples: ({ snapshot }) => single(snapshot.configAgreement?.divergent.length),
  },
  {
    name: 'mlb_config_refused_nodes',
    help: 'Live mlb members whose configuration file on disk was refused (they run their last good configuration); absent before the first comparison',
    type: 'gauge',
    labels: [],
    samples: ({ snapshot }) => single(snapshot.configAgreement?.refused?.length),
  },
  {
    name: 'mlb_config_retained_services',
    help: "Services this node's file no longer defines that it still announces because other live members define them",
    type: 'gauge',
    labels: [],
    samples: ({ snapshot }) => single(snapshot.configAgreement?.retained.length),
  },
  {
    name: 'mlb_node_draining',
    help: '1 while this node is drained (mlb drain): the others are asked not to elect it',
    type: 'gauge',
    labels: [],
    samples: ({ snapshot }) => single(bool(snapshot.node.draining)),
  },
  {
    name: 'mlb_node_warming_up',
    help: '1 while this node warms up after a (re)start and is not elected yet',
    type: 'gauge',
    labels: [],
    samples: ({ snapshot }) => single(bool(snapshot.node.warmingUp)),
  },
  {
    name: 'mlb_layer2_drops_total',
    help: 'Received ARP/NDP frames the announcer refused, by reason',
    type: 'counter',
    labels: ['reason'],
    samples: ({ counters }) => byKey('reason', counters.layer2Drops),
  },
  {
    name: 'mlb_layer2_send_failures_total',
    help: 'ARP/NDP replies and announcements the kernel refused (queue full, link down, socket missing)',
    type: 'counter',
    labels: [],
    samples: ({ counters }) => single(counters.layer2SendFailures),
  },
  {
    name: 'mlb_gossip_packets_total',
    help: 'Gossip UDP packets, by direction',
    type: 'counter',
    labels: ['direction'],
    samples: ({ counters }) => {
      const g = counters.gossip;
      return g
        ? [
            [{ direction: 'received' }, g.packetsReceived],
            [{ direction: 'sent' }, g.packetsSent],
          ]
        : [];
    },
  },
  {
    name: 'mlb_gossip_bytes_total',
    help: 'Gossip UDP payload bytes, by direction',
    type: 'counter',
    labels: ['direction'],
    samples: ({ counters }) => {
      const g = counters.gossip;
      return g
        ? [
            [{ direction: 'received' }, g.bytesReceived],
            [{ direction: 'sent' }, g.bytesSent],
          ]
        : [];
    },
  },
  {
    name: 'mlb_gossip_streams_total',
    help: 'Gossip TCP streams (push/pull, joins), by direction; failures counted apart',
    type: 'counter',
    labels: ['direction'],
    samples: ({ counters }) => {
      const g = counters.gossip;
      return g
        ? [
            [{ direction: 'accepted' }, g.streamsAccepted],
            [{ direction: 'opened' }, g.streamsOpened],
          ]
        : [];
    },
  },
  {
    name: 'mlb_gossip_stream_failures_total',
    help: 'Gossip TCP streams that failed (connect, timeout, undecodable reply)',
    type: 'counter',
    labels: [],
    samples: ({ counters }) => single(counters.gossip?.streamFailures),
  },
  {
    name: 'mlb_gossip_drops_total',
    help: 'Gossip packets and streams refused, by codec reason (decryptFailed: a wrong or missing key)',
    type: 'counter',
    labels: ['reason'],
    samples: ({ counters }) => byKey('reason', counters.gossip?.drops),
  },
  {
    name: 'mlb_gossip_record_drops_total',
    help: "mlb records in gossip refused, by reason (unknownKind: a newer release's record, skipped during a rolling upgrade)",
    type: 'counter',
    labels: ['reason'],
    samples: ({ counters }) => byKey('reason', counters.gossipRecordDrops),
  },
];

/** One sample per (service, protocol); should a service have several IP groups, the fewest nodes (the worst) counts. */
function announcingSamples(services: readonly { service: string; protocol: string; announcing: readonly string[] }[]): Sample[] {
  const fewest = new Map<string, { service: string; protocol: string; n: number }>();
  for (const s of services) {
    const key = `${s.service}|${s.protocol}`;
    const n = Math.min(s.announcing.length, fewest.get(key)?.n ?? Number.POSITIVE_INFINITY);
    fewest.set(key, { service: s.service, protocol: s.protocol, n });
  }
  return [...fewest.values()].map((e): Sample => [{ service: e.service, protocol: e.protocol }, e.n]);
}

/** This node's verdict per health-checked service: 1 when it is among the passing nodes, 0 among the failing. */
function healthSamples(
  self: string,
  services: readonly { service: string; health: { checked: boolean; passing: readonly string[]; failing: readonly string[] } }[],
): Sample[] {
  const seen = new Map<string, number>();
  for (const s of services) {
    if (!s.health.checked || seen.has(s.service)) continue;
    if (s.health.passing.includes(self)) seen.set(s.service, 1);
    else if (s.health.failing.includes(self)) seen.set(s.service, 0);
  }
  return [...seen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([service, value]): Sample => [{ service }, value]);
}

function answerTimeHistograms(times: ArpAnswerTimes | undefined): HistogramSample[] {
  if (!times) return [];
  return ANSWER_STAGES.map((stage) => ({
    labels: { stage },
    bounds: times.boundsSeconds,
    counts: times[stage].counts,
    sum: times[stage].sumSeconds,
  }));
}
