/**
 * Why a received BFD packet was discarded: a stable string table, APPEND-ONLY (the names appear in metrics labels
 * and logs). The codec, the session reducer and the endpoint never throw on input: every discarded packet gets
 * exactly one of these, and the endpoint counts it. Most come straight from RFC 5880 section 6.8.6.
 */
import { dropped, type Decoded } from '../../errors/decoded';

export const BfdDropReason = {
  /** Shorter than the 24-octet mandatory section (RFC 5880 section 4.1). */
  truncated: 'truncated',
  /** Version field is not 1 (6.8.6: discard). */
  badVersion: 'badVersion',
  /** Length below 24 (26 with the A bit), or above the UDP payload (6.8.6: discard). */
  badLength: 'badLength',
  /** Detect Mult is zero (6.8.6: discard). */
  zeroDetectMult: 'zeroDetectMult',
  /** The Multipoint bit is set (6.8.6: discard). */
  multipoint: 'multipoint',
  /** My Discriminator is zero (6.8.6: discard). */
  zeroMyDiscriminator: 'zeroMyDiscriminator',
  /** Your Discriminator is zero while State is neither Down nor AdminDown (6.8.6: discard). */
  zeroYourDiscriminator: 'zeroYourDiscriminator',
  /** Auth Len disagrees with Length, or is shorter than its own two octets (4.2). */
  badAuthLength: 'badAuthLength',
  /** The A bit is set but this session uses no authentication (6.8.6: discard; BFDProfile has no auth). */
  authenticationNotConfigured: 'authenticationNotConfigured',
  /** Your Discriminator names no session of ours (6.8.6: discard). */
  unknownDiscriminator: 'unknownDiscriminator',
  /** Your Discriminator is zero and no session has the packet's source address as its peer. */
  unknownPeer: 'unknownPeer',
  /** The session named by Your Discriminator belongs to another peer address (RFC 5881 section 3, single hop). */
  addressMismatch: 'addressMismatch',
  /** Received TTL / Hop Limit is not 255: it may come from off-link (RFC 5881 section 5, GTSM). */
  badTtl: 'badTtl',
  /** The session is not started, or has stopped. */
  notStarted: 'notStarted',
  /** The session is AdminDown: its variables are updated, the packet is otherwise discarded (6.8.6). */
  sessionAdminDown: 'sessionAdminDown',
} as const;
export type BfdDropReason = keyof typeof BfdDropReason;

/** Every reason in table order, for counters and metrics that pre-register their label values. */
const BFD_DROP_REASONS: readonly BfdDropReason[] = Object.keys(BfdDropReason) as BfdDropReason[];

/** A BFD decoder's answer (errors/decoded.ts): the value, or why the bytes were dropped. */
export type BfdDecoded<T> = Decoded<T, BfdDropReason>;

export function bfdDropped<T = never>(reason: BfdDropReason, detail?: string): BfdDecoded<T> {
  return dropped(reason, detail);
}

/** A zeroed counter for every reason. */
export function emptyDropCounters(): Record<BfdDropReason, number> {
  const counters = {} as Record<BfdDropReason, number>;
  for (const reason of BFD_DROP_REASONS) counters[reason] = 0;
  return counters;
}
