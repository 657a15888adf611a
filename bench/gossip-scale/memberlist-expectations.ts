/**
 * What memberlist's own formulas (util.go suspicionTimeout, retransmitLimit, pushPullScale; state.go probe and
 * gossip schedules) say a cluster of n members should do, for the rows of bench/gossip-scale. Pure: every number
 * is a function of the profile and n, so the table's "expectation" column can be checked by a test.
 */
import { COMPOUND_HEADER_OVERHEAD } from '../../src/gossip/codec/limits';
import { pushPullScale, retransmitLimit, suspicionParameters, type SwimConfig } from '../../src/gossip/swim/config';

/**
 * Probe intervals until some survivor has probed the crashed member, at the upper end: each of the n - 1 survivors
 * probes one member per interval from a shuffled round robin, so in one interval nobody picks it with probability
 * (1 - 1/(n - 1))^(n - 1) ~ 1/e, and in this many intervals with ~e^-PROBE_WAIT_INTERVALS (< 1 %).
 */
const PROBE_WAIT_INTERVALS = 5;

export interface Interval {
  readonly low: number;
  readonly high: number;
}

/**
 * Crash to the first survivor declaring the member dead: the probe's failure deadline (P at health 0) and the
 * suspicion timer, which starts at max and falls to min once k confirmations arrive (memberlist state.go
 * suspectNode, suspicion.go); low: probed at once and confirmed; high: probed last (PROBE_WAIT_INTERVALS) and
 * never confirmed.
 */
export function firstDeadExpectation(config: SwimConfig, n: number): Interval {
  const { min, max, k } = suspicionParameters(config, n);
  const p = config.probeInterval;
  return { low: p + min, high: PROBE_WAIT_INTERVALS * p + p + (k > 0 ? max : min) };
}

/**
 * Crash to the last survivor declaring it dead: the first declaration, then its dead message spreads by gossip. A
 * broadcast is sent retransmitLimit(n) times by each node that has it, GossipNodes per GossipInterval, so it has
 * left everybody's queue within retransmitLimit(n) rounds (the dissemination bound the brief names).
 */
export function lastDeadExpectation(config: SwimConfig, n: number): Interval {
  const first = firstDeadExpectation(config, n);
  const spread = retransmitLimit(config.retransmitMult, n) * config.gossipInterval;
  return { low: first.low, high: first.high + spread };
}

/**
 * Every member knowing every other after all join one seed at once. Each joiner's push/pull with the seed gives
 * it the seed's table; what the seed learned after it answered arrives by gossip (log_GossipNodes(n) rounds per
 * message when the queues are short, far more when a thousand alive messages queue at once) or, at the latest, by
 * the next push/pull, every pushPullScale(PushPullInterval, n): the bound.
 */
export function joinExpectation(config: SwimConfig, n: number): Interval {
  const hops = Math.ceil(Math.log(Math.max(2, n)) / Math.log(Math.max(2, config.gossipNodes)));
  return { low: hops * config.gossipInterval, high: pushPullScale(config.pushPullInterval, n) + config.tcpTimeout };
}

export interface TrafficBudget {
  readonly packetsPerSecond: number;
  readonly bytesPerSecond: number;
}

/**
 * What one node may send per second in memberlist's design: a ping per ProbeInterval and the ack of the ping it
 * receives (one on average), GossipNodes gossip packets per GossipInterval, each packet at most UDPBufferSize;
 * and a push/pull every pushPullScale(PushPullInterval, n) (its own, plus answering one on average), each carrying
 * the whole table (`pushPullBytes`).
 */
export function trafficBudget(config: SwimConfig, n: number, pushPullBytes: number): TrafficBudget {
  const probePackets = 2 / (config.probeInterval / 1000);
  const gossipPackets = config.gossipInterval > 0 ? config.gossipNodes / (config.gossipInterval / 1000) : 0;
  const pushPulls = config.pushPullInterval > 0 ? 2 / (pushPullScale(config.pushPullInterval, n) / 1000) : 0;
  const packetsPerSecond = probePackets + gossipPackets;
  return {
    packetsPerSecond,
    bytesPerSecond: packetsPerSecond * config.udpBufferSize + pushPulls * pushPullBytes,
  };
}

/** Bytes of one packet left for messages: UDPBufferSize minus the transport's overhead and the compound header. */
export function packetPayloadBudget(config: SwimConfig): number {
  return config.udpBufferSize - config.packetOverhead - COMPOUND_HEADER_OVERHEAD;
}
