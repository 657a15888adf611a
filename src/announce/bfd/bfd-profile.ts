/**
 * From a MetalLB BFDProfile (milliseconds, MetalLB api/v1beta1/bfdprofile_types.go) to the session's timers
 * (microseconds, RFC 5880 section 6.8.1). Pure.
 *
 * What maps, and what does not:
 * - receiveInterval -> bfd.RequiredMinRxInterval; transmitInterval -> bfd.DesiredMinTxInterval (while Up; the
 *   reducer slows it to 1 s while not Up, 6.8.3); detectMultiplier -> bfd.DetectMult; passiveMode -> the Passive
 *   role (6.1). Defaults and ranges are MetalLB's (the same as FRR's bfdd, which MetalLB configures).
 * - echoMode / echoInterval: not implemented. The Echo function needs packets looped back by the peer's
 *   forwarding plane (UDP 3785, RFC 5881 section 4); mlb advertises Required Min Echo RX 0, which tells the peer
 *   never to send Echo packets to it (RFC 5880 section 4.1). BfdProfileMapping.ignored says so.
 * - minimumTtl: MetalLB applies it to multi-hop sessions only; single hop always requires 255 (RFC 5881 section 5).
 */
import type { BFDProfile } from '../../model/types';
import { BfdError } from './bfd-error';

/** MetalLB's default for both intervals (ms): FRR bfdd's default, which MetalLB passes through. */
const DEFAULT_INTERVAL_MS = 300;
/** MetalLB's default multiplier: three missed packets, 900 ms with the default intervals. */
const DEFAULT_DETECT_MULTIPLIER = 3;
/** MetalLB's ranges for BFDProfile (the kubebuilder limits in api/v1beta1/bfdprofile_types.go). */
const MIN_INTERVAL_MS = 10;
const MAX_INTERVAL_MS = 60_000;
const MIN_DETECT_MULTIPLIER = 2;
const MAX_DETECT_MULTIPLIER = 255;
const MICROSECONDS_PER_MS = 1000;

/** The BFDProfile fields the session uses; the rest of a full BFDProfile may be passed along and is ignored. */
export interface BfdProfileInput {
  readonly receiveInterval?: number;
  readonly transmitInterval?: number;
  readonly detectMultiplier?: number;
  readonly passiveMode?: boolean;
  readonly echoMode?: boolean;
  readonly echoInterval?: number;
  readonly minimumTtl?: number;
  readonly meta?: BFDProfile['meta'];
}

/** What the reducer is configured with (RFC 5880 names, microseconds). */
export interface BfdTimerConfig {
  /** bfd.DesiredMinTxInterval once the session is Up. */
  readonly desiredMinTxUs: number;
  /** bfd.RequiredMinRxInterval. */
  readonly requiredMinRxUs: number;
  /** bfd.DetectMult. */
  readonly detectMult: number;
  /** The Passive role: transmit nothing until the peer has been heard (RFC 5880 section 6.1). */
  readonly passive: boolean;
}

export interface BfdProfileMapping {
  readonly config: BfdTimerConfig;
  /** Profile settings that have no effect here, each with why (for a warning in the logs). */
  readonly ignored: readonly string[];
}

function inRange(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new BfdError('invalidProfile', `BFDProfile ${name} must be an integer in ${min}..${max}, not ${String(value)}`);
  }
  return value;
}

/** Maps a profile (absent fields take MetalLB's defaults); throws BfdError('invalidProfile') outside its ranges. */
export function bfdTimersFromProfile(profile: BfdProfileInput = {}): BfdProfileMapping {
  const rx = inRange('receiveInterval', profile.receiveInterval ?? DEFAULT_INTERVAL_MS, MIN_INTERVAL_MS, MAX_INTERVAL_MS);
  const tx = inRange('transmitInterval', profile.transmitInterval ?? DEFAULT_INTERVAL_MS, MIN_INTERVAL_MS, MAX_INTERVAL_MS);
  const mult = inRange(
    'detectMultiplier',
    profile.detectMultiplier ?? DEFAULT_DETECT_MULTIPLIER,
    MIN_DETECT_MULTIPLIER,
    MAX_DETECT_MULTIPLIER,
  );
  const ignored: string[] = [];
  if (profile.echoMode) ignored.push('echoMode: the Echo function is not implemented (Required Min Echo RX is advertised as 0)');
  return {
    config: {
      desiredMinTxUs: tx * MICROSECONDS_PER_MS,
      requiredMinRxUs: rx * MICROSECONDS_PER_MS,
      detectMult: mult,
      passive: profile.passiveMode === true,
    },
    ignored,
  };
}
