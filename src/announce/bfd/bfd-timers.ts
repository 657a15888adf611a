/**
 * The arithmetic of BFD's timers (RFC 5880 sections 6.8.2-6.8.4 and 6.8.7), pure: which Desired Min TX a session
 * advertises in each state, how often it transmits, how the interval is jittered, and how long it waits for the
 * peer before declaring it down. Intervals are microseconds (the wire's unit); results meant for a clock are
 * milliseconds.
 */
import type { BfdState } from './bfd-packet';

/** While not Up, bfd.DesiredMinTxInterval is at least one second (RFC 5880 section 6.8.3). */
const SLOW_TX_INTERVAL_US = 1_000_000;
/** bfd.RemoteMinRxInterval before anything is heard (6.8.1: initialized to 1). */
export const INITIAL_REMOTE_MIN_RX_US = 1;
/** Jitter takes 0-25% off each interval (6.8.7) ... */
const MAX_JITTER_FRACTION = 0.25;
/** ... or, with bfd.DetectMult 1, keeps each interval between 75% and 90% of the negotiated one (6.8.7). */
const SINGLE_MULT_MIN_FRACTION = 0.75;
const SINGLE_MULT_MAX_FRACTION = 0.9;

/** bfd.DesiredMinTxInterval for a state: the configured value when Up, never below 1 s otherwise (6.8.3). */
export function advertisedDesiredMinTxUs(state: BfdState, configuredUs: number): number {
  return state === 'Up' ? configuredUs : Math.max(configuredUs, SLOW_TX_INTERVAL_US);
}

/**
 * The negotiated transmit interval: the larger of our Desired Min TX and the peer's Required Min RX (6.8.2,
 * 6.8.7); undefined when the peer asks for no periodic packets (Required Min RX 0, section 4.1).
 */
export function transmitIntervalUs(desiredMinTxUs: number, remoteMinRxUs: number): number | undefined {
  if (remoteMinRxUs === 0) return undefined;
  return Math.max(desiredMinTxUs, remoteMinRxUs);
}

/** One jittered interval in ms; `random` is uniform in [0, 1) (injected, so tests choose it). */
export function jitteredIntervalMs(intervalUs: number, detectMult: number, random: number): number {
  const r = Math.min(Math.max(random, 0), 1);
  const fraction =
    detectMult === 1 ? SINGLE_MULT_MIN_FRACTION + r * (SINGLE_MULT_MAX_FRACTION - SINGLE_MULT_MIN_FRACTION) : 1 - r * MAX_JITTER_FRACTION;
  return (intervalUs * fraction) / 1000;
}

/**
 * The Detection Time in ms (6.8.4, Asynchronous mode): the peer's Detect Mult times the larger of our Required
 * Min RX and the peer's last Desired Min TX.
 */
export function detectionTimeMs(remoteDetectMult: number, requiredMinRxUs: number, remoteDesiredMinTxUs: number): number {
  return (remoteDetectMult * Math.max(requiredMinRxUs, remoteDesiredMinTxUs)) / 1000;
}
