import { UDP_BUFFER_SIZE } from '../codec/limits';
import { SwimConfigError, SwimConfigErrorCode } from './errors';

/**
 * Every timer and count of memberlist's failure detector in one object (memberlist config.go), all durations in
 * milliseconds. Three profiles: LAN (memberlist DefaultLANConfig, what MetalLB runs), WAN (DefaultWANConfig,
 * MetalLB's --ml-wan-config) and FAST (mlb's profile for plain hosts on one quiet LAN). Interop with MetalLB
 * speakers does not need equal timers; it only changes who notices a failure first.
 */
export interface SwimConfig {
  /** Time between probes of one peer each; the failure deadline of a probe is this times (health + 1). */
  readonly probeInterval: number;
  /** Wait for a direct ack before asking IndirectChecks peers; not scaled by health (more time rarely helps UDP). */
  readonly probeTimeout: number;
  /** How many peers relay an indirect ping when the direct one fails. */
  readonly indirectChecks: number;
  /** Suspicion min = SuspicionMult x max(1, log10 n) x ProbeInterval; k = SuspicionMult - 2 confirmations. */
  readonly suspicionMult: number;
  /** Suspicion max = this x min: how long a lone, unconfirmed suspicion waits for the node to refute it. */
  readonly suspicionMaxTimeoutMult: number;
  /** Broadcasts are sent RetransmitMult x ceil(log10(n + 1)) times. */
  readonly retransmitMult: number;
  /** Health score range 0..AwarenessMaxMultiplier-1 (Lifeguard local health). */
  readonly awarenessMaxMultiplier: number;
  /** Time between gossip rounds; 0 disables gossip (then only piggybacking spreads news). */
  readonly gossipInterval: number;
  /** Peers per gossip round. */
  readonly gossipNodes: number;
  /** Dead nodes still receive gossip, and stay in the table, this long after they died. */
  readonly gossipToTheDeadTime: number;
  /** Full state exchange with one random alive peer, scaled above 32 nodes; 0 disables it. */
  readonly pushPullInterval: number;
  /** Deadline of a stream exchange (join, push/pull) handed to the driver. */
  readonly tcpTimeout: number;
  /**
   * mlb only (0 in LAN and WAN, which are memberlist's behaviour): when the direct ack is late from a member whose
   * last direct ack came quickly (within probeTimeout x FAST_MEMBER_RTT_FRACTION), the ping was most likely lost,
   * so it is sent again this many times beside the indirect pings: each copy is an independent chance against
   * random loss. A member that answered slowly last time is busy, and gets no extra pings (they would add to its
   * load). Each copy has a sequence number of its own, so an ack says which copy got through: a retry acked
   * quickly leaves the member quick (probe.ts probeAcked). On the wire each is just another ping.
   */
  readonly directPingRetries: number;
  /**
   * mlb (not memberlist): when a probe round ends without an ack but a packet from the target arrived during the
   * round, the target is alive and only slow or unlucky (a CPU-starved event loop, a lost ack): the round is
   * extended once by another probe interval with a fresh direct ping instead of suspecting it. A crashed node
   * sends nothing, so its detection time is unchanged; a node that keeps talking but never acks is suspected
   * after the second deadline. Local behaviour only: nothing changes on the wire.
   */
  readonly extendWhenHeard: boolean;
  /**
   * mlb (not memberlist): the election stops counting on a member once its suspicion is confirmed by k other
   * members and nothing was heard from it since the suspicion began, instead of once it is declared dead one
   * suspicion minimum later (confirmed-suspects.ts says what it costs). Local behaviour: nothing changes on the wire.
   */
  readonly failoverAtConfirmation: boolean;
  /** Skip the TCP ping that runs beside indirect pings (peers with pmax >= 3). */
  readonly disableTcpPings: boolean;
  /** A dead node's name may be claimed from another address after this long; 0 = never (memberlist's default). */
  readonly deadNodeReclaimTime: number;
  /** Bytes per UDP packet (memberlist UDPBufferSize). */
  readonly udpBufferSize: number;
  /** Bytes the transport adds around a packet: 29 with encryption v1, 2 + label length, 5 for CRC. */
  readonly packetOverhead: number;
}

/** memberlist DefaultLANConfig, the defaults MetalLB runs with; each value with memberlist's reason. */
export const LAN_CONFIG: SwimConfig = Object.freeze({
  probeInterval: 1_000, // failure check every second
  probeTimeout: 500, // a reasonable round trip on a LAN, with room for a busy peer
  indirectChecks: 3, // three relays: a single lossy link cannot make a healthy node look dead
  suspicionMult: 4, // suspect for 4 x log10(n) probe intervals before declaring dead
  suspicionMaxTimeoutMult: 6, // for 10,000 nodes the max timeout is about 120 s
  retransmitMult: 4, // each broadcast reaches 4 x log10(n + 1) peers: spreads with high probability
  awarenessMaxMultiplier: 8, // a degraded node's probe deadline backs off to 8 s
  gossipInterval: 200, // gossip faster than probing so news outruns the failure detector
  gossipNodes: 3,
  gossipToTheDeadTime: 30_000, // same as push/pull: the dead learn of their death by one or the other
  pushPullInterval: 30_000, // full state exchange is expensive: low frequency
  tcpTimeout: 10_000,
  directPingRetries: 0, // memberlist sends one direct ping per probe
  extendWhenHeard: false, // memberlist suspects at the deadline whatever else it heard
  failoverAtConfirmation: false, // MetalLB elects among alive and suspect speakers until one is dead
  disableTcpPings: false, // TCP pings are safe, even with mixed versions
  deadNodeReclaimTime: 0, // a dead node's name cannot move to another address
  udpBufferSize: UDP_BUFFER_SIZE, // fits a 1500-byte MTU with IP/UDP headers to spare
  packetOverhead: 0,
});

/** memberlist DefaultWANConfig: LAN with slower probing and gossip for high, variable latency. */
export const WAN_CONFIG: SwimConfig = Object.freeze({
  ...LAN_CONFIG,
  tcpTimeout: 30_000,
  suspicionMult: 6, // more patience: WAN loss is bursty
  pushPullInterval: 60_000,
  probeTimeout: 3_000, // WAN round trips of hundreds of ms, with headroom
  probeInterval: 5_000,
  gossipNodes: 4, // gossip less frequently, but to one more node
  gossipInterval: 500,
  gossipToTheDeadTime: 60_000,
});

/**
 * FAST: mlb on plain hosts in one quiet LAN, where a VIP must move within about a second of a crash.
 *
 * Detection of a crash in an n-node cluster (P = probeInterval, h = the prober's health, G = gossipInterval):
 *   T = W + P x (h + 1) + S + D
 *   W: wait until some survivor probes the crashed node. Each survivor probes its n - 1 peers round robin over a
 *      list reshuffled each pass, so one prober reaches it within 2(n - 1) - 1 intervals, and with n - 1 probers
 *      the first one comes after about P / 2 on average in a 3-node cluster.
 *   P x (h + 1): the probe's failure deadline (direct ping, then indirect pings and the TCP ping until then).
 *   S: suspicion. min = suspicionMult x max(1, log10 n) x P, max = suspicionMaxTimeoutMult x min, k =
 *      suspicionMult - 2 (0 when n - 2 < k). The timer starts at max and drops to min once k other members
 *      confirm, which happens as soon as they probe the node themselves.
 *   D: the dead message reaching the others by gossip, one or two rounds of G.
 * FAST in a quiet 3-node LAN: P = 200, suspicionMult 3 -> k = 1, min = 600 ms, max = 1.8 s; the other survivor
 * probes the node within 3P and confirms, so T ~ 100 + 200 + 600 + 50..100 ~ 1.0 s (worst ~1.5 s with a
 * confirmation, 2.6 s without one). See detectionTime().
 *
 * Robustness. 5% loss: a direct probe fails ~10% of the time, so a member that answered quickly last time gets
 * the ping four more times when its ack is late (directPingRetries), beside the indirect path (4 packets, ~19%) and
 * the TCP ping, and false suspicions become rare (in the simulation 51 -> 13 in 10 minutes); each one waits max = 1.8 s unless a
 * second member independently fails to reach the node, ample for the refutation (alive, incarnation + 1) to
 * travel by 100 ms gossip. A CPU-saturated node: its own probes fail (acks are handled late), nacks do not
 * arrive, its health rises and its probe deadline stretches (Lifeguard), and its lone suspicions of others sit
 * at max until refuted; suspicions of it are refuted in its next busy slot. And since a starved node still
 * sends its own pings and gossip, only late, a round that hears from the target but gets no ack is extended once
 * (extendWhenHeard) instead of suspecting it; a crashed node is silent, so T above is unchanged.
 *
 * With FAST_FAILOVER, VIPs move before T: at the confirmation (the second survivor's failed probe, W + P + G
 * later), when the node has been silent since it was suspected (docs/failover.md). Shorter timers were tried:
 * P = 100 ms halves T in the simulation but a starved node (28 ms per task) goes from 71% to 100% busy and is
 * declared dead hundreds of times in 5 minutes, so P = 200 ms is the floor for the soak's starved node.
 */
export const FAST_CONFIG: SwimConfig = Object.freeze({
  ...LAN_CONFIG,
  probeInterval: 200, // five probes a second: a crash is noticed within a few hundred ms
  probeTimeout: 100, // LAN round trips are well under 1 ms; 100 ms absorbs a busy peer's scheduling delay
  suspicionMult: 3, // min 600 ms (n <= 10), and k = 1: one independent confirmation is needed for min
  suspicionMaxTimeoutMult: 3, // a lone suspicion waits 1.8 s: several gossip rounds for the refutation
  gossipInterval: 100, // news (suspect, alive refutations) travels twice as fast as probing
  gossipToTheDeadTime: 15_000, // same as push/pull
  pushPullInterval: 15_000, // small clusters: a full exchange is a few hundred bytes
  tcpTimeout: 2_000, // a LAN peer that cannot complete a small exchange in 2 s is not usable
  // At 5% loss each way a direct ping or its ack is lost ~10% of the time. A round fails only when every copy,
  // the indirect path (4 packets and a relay: ~19%) and the TCP ping (a lost SYN waits 1 s: ~19%) all fail: with
  // two more copies that is 0.1^3 x 0.19 x 0.19 ~ 3e-5 per round, ~0.3 false suspicions per 10 minutes in a
  // 3-node cluster (9,000 rounds), which the soak saw (a calm node suspecting another). Four copies make it
  // ~3e-7: ~0.003 per 10 minutes. Only for members that answered quickly last time, only after the first ack is
  // late (~10% of rounds), so the cost is a few extra 30-byte packets a second.
  directPingRetries: 4,
  // A starved node still gossips, late: what it says proves it alive, so its slowness costs one more round, not
  // a suspicion (the soak's starved node was suspected about once in 10 minutes without this).
  extendWhenHeard: true,
  // Off: the election waits for the death (see FAST_FAILOVER_CONFIG for the profile that does not).
  failoverAtConfirmation: false,
});

/**
 * FAST_FAILOVER: FAST's timers, and VIPs move at a confirmed suspicion of a silent node instead of at its death
 * (failoverAtConfirmation; confirmed-suspects.ts, docs/failover.md). A crash or a cut link is confirmed by the
 * second survivor's failed probe about half a second after it happened; the suspicion minimum (600 ms) after that
 * only waits for a refutation a silent node never sends. Opt-in, not FAST's default: a live node that stalls
 * long enough to fail two whole probe rounds (a daemon restarting on a host at load 20, seen in bench/failover on
 * a shared 2-core machine) is confirmed and refutes a moment later, and with this profile its VIPs move away and
 * back where FAST only logs the suspicion.
 */
export const FAST_FAILOVER_CONFIG: SwimConfig = Object.freeze({ ...FAST_CONFIG, failoverAtConfirmation: true });

/** A member whose last direct ack came within this fraction of probeTimeout is quick: a late ack means loss. */
export const FAST_MEMBER_RTT_FRACTION = 0.25;

export type SwimProfileName = 'lan' | 'wan' | 'fast' | 'fast-failover';
export const SWIM_PROFILES: Readonly<Record<SwimProfileName, SwimConfig>> = Object.freeze({
  lan: LAN_CONFIG,
  wan: WAN_CONFIG,
  fast: FAST_CONFIG,
  'fast-failover': FAST_FAILOVER_CONFIG,
});

/** Clusters up to this size push/pull at the configured interval (memberlist pushPullScaleThreshold). */
const PUSH_PULL_SCALE_THRESHOLD = 32;
const NS_PER_MS = 1_000_000;

/**
 * memberlist util.go suspicionTimeout: SuspicionMult x max(1, log10(max(1, n))) x interval, computed as Go
 * does (the node scale kept to three decimals, integer nanoseconds), returned in milliseconds.
 */
export function suspicionTimeout(suspicionMult: number, n: number, interval: number): number {
  const nodeScale = Math.max(1, Math.log10(Math.max(1, n)));
  const ns = Math.floor((suspicionMult * Math.floor(nodeScale * 1000) * Math.round(interval * NS_PER_MS)) / 1000);
  return ns / NS_PER_MS;
}

/** memberlist util.go retransmitLimit: RetransmitMult x ceil(log10(n + 1)). */
export function retransmitLimit(retransmitMult: number, n: number): number {
  return retransmitMult * Math.ceil(Math.log10(n + 1));
}

/** memberlist util.go pushPullScale: the interval times ceil(log2 n - log2 32) + 1 above 32 nodes. */
export function pushPullScale(interval: number, n: number): number {
  if (n <= PUSH_PULL_SCALE_THRESHOLD) return interval;
  const multiplier = Math.ceil(Math.log2(n) - Math.log2(PUSH_PULL_SCALE_THRESHOLD)) + 1;
  return multiplier * interval;
}

/** The suspicion timer parameters for a cluster of n nodes (memberlist state.go suspectNode). */
export function suspicionParameters(config: SwimConfig, n: number): { k: number; min: number; max: number } {
  let k = config.suspicionMult - 2;
  // Without enough other members (n minus ourselves and the suspect) no confirmations can come.
  if (n - 2 < k) k = 0;
  const min = suspicionTimeout(config.suspicionMult, n, config.probeInterval);
  return { k: Math.max(0, k), min, max: config.suspicionMaxTimeoutMult * min };
}

export interface DetectionTime {
  /** Expected time from crash to dead everywhere in a quiet network with healthy members. */
  readonly typical: number;
  /** Upper bound in a quiet network: slowest probe order, no confirmation, two gossip hops. */
  readonly worst: number;
}

/**
 * The formula of FAST_CONFIG's comment for any profile and cluster size (milliseconds, health 0, no loss).
 * typical: W = P/2, S = min when k confirmations can come (k > 0 and n - 1 >= 2 probers), else the start
 * timeout; D = one gossip round. worst: W = (2(n - 1) - 1) x P, S = max (min when k = 0), D = two rounds per
 * log_GossipNodes(n) hop.
 */
export function detectionTime(config: SwimConfig, n: number): DetectionTime {
  const { k, min, max } = suspicionParameters(config, n);
  const p = config.probeInterval;
  const g = config.gossipInterval;
  const start = k > 0 ? max : min;
  const hops = Math.max(1, Math.ceil(Math.log(Math.max(2, n)) / Math.log(Math.max(2, config.gossipNodes))));
  const typical = p / 2 + p + (k > 0 ? min : start) + g;
  const worst = (2 * (n - 1) - 1) * p + p + start + 2 * hops * g;
  return { typical, worst };
}

/** Checks a configuration before a node starts with it. */
export function validateConfig(config: SwimConfig): SwimConfig {
  const fail = (what: string): never => {
    throw new SwimConfigError(SwimConfigErrorCode.invalidConfig, `invalid SWIM configuration: ${what}`);
  };
  const positive = [
    'probeInterval',
    'probeTimeout',
    'suspicionMult',
    'suspicionMaxTimeoutMult',
    'retransmitMult',
    'awarenessMaxMultiplier',
    'tcpTimeout',
    'udpBufferSize',
  ] as const;
  for (const key of positive) if (!(config[key] > 0) || !Number.isFinite(config[key])) fail(`${key} must be > 0`);
  const nonNegative = [
    'indirectChecks',
    'gossipInterval',
    'gossipNodes',
    'gossipToTheDeadTime',
    'pushPullInterval',
    'deadNodeReclaimTime',
    'packetOverhead',
    'directPingRetries',
  ] as const;
  for (const key of nonNegative) if (!(config[key] >= 0) || !Number.isFinite(config[key])) fail(`${key} must be >= 0`);
  if (config.probeTimeout > config.probeInterval) fail('probeTimeout must not exceed probeInterval');
  if (config.suspicionMaxTimeoutMult < 1) fail('suspicionMaxTimeoutMult must be >= 1');
  if (config.udpBufferSize - config.packetOverhead < 64) fail('udpBufferSize leaves no room for messages');
  return config;
}
