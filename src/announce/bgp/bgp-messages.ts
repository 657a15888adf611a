/**
 * The BGP-4 messages as values (RFC 4271 section 4): what the codec decodes to and encodes from, what the session
 * state machine consumes and emits, and what the speaker builds. Wire constants are append-only `as const` tables.
 * Pure types and constants: no I/O.
 */
import type { CIDR, IP } from '../../ip';

/** RFC 4271 4.1: the marker is 16 bytes of 0xff; a message is 19..4096 bytes (RFC 8654 extended messages: not offered). */
export const BGP_HEADER_BYTES = 19;
export const BGP_MAX_MESSAGE_BYTES = 4096;
export const BGP_VERSION = 4;
/** RFC 6793: the 2-octet My AS field carries AS_TRANS when the real ASN needs 4 octets. */
export const AS_TRANS = 23456;

export const MessageType = { open: 1, update: 2, notification: 3, keepalive: 4, routeRefresh: 5 } as const;

/** Address families (IANA AFI) and subsequent families (SAFI) mlb speaks: unicast IPv4 and IPv6. */
export const Afi = { ipv4: 1, ipv6: 2 } as const;
export const Safi = { unicast: 1 } as const;

/** RFC 4271 4.5 and 6, RFC 4486 (Cease subcodes), RFC 7313 (route refresh errors). */
export const NotificationCode = {
  messageHeaderError: 1,
  openMessageError: 2,
  updateMessageError: 3,
  holdTimerExpired: 4,
  fsmError: 5,
  cease: 6,
  routeRefreshMessageError: 7,
} as const;
export type NotificationCode = (typeof NotificationCode)[keyof typeof NotificationCode];

export const HeaderErrorSubcode = { connectionNotSynchronized: 1, badMessageLength: 2, badMessageType: 3 } as const;
export const OpenErrorSubcode = {
  unsupportedVersionNumber: 1,
  badPeerAs: 2,
  badBgpIdentifier: 3,
  unsupportedOptionalParameter: 4,
  unacceptableHoldTime: 6,
  unsupportedCapability: 7,
} as const;
export const UpdateErrorSubcode = {
  malformedAttributeList: 1,
  unrecognizedWellKnownAttribute: 2,
  missingWellKnownAttribute: 3,
  attributeFlagsError: 4,
  attributeLengthError: 5,
  invalidOriginAttribute: 6,
  invalidNextHopAttribute: 8,
  optionalAttributeError: 9,
  invalidNetworkField: 10,
  malformedAsPath: 11,
} as const;
/** RFC 4271 6.2: an OPEN optional parameter that is recognized but malformed; also the generic "no subcode". */
export const UNSPECIFIC_SUBCODE = 0;
/** RFC 7313 section 5: ROUTE-REFRESH Message Error subcodes. */
export const RouteRefreshErrorSubcode = { invalidMessageLength: 1 } as const;
/** RFC 7313: the ROUTE-REFRESH message subtypes. */
export const RouteRefreshSubtype = { normal: 0, beginningOfRouteRefresh: 1, endOfRouteRefresh: 2 } as const;

export const CeaseSubcode = {
  maximumPrefixesReached: 1,
  administrativeShutdown: 2,
  peerDeconfigured: 3,
  administrativeReset: 4,
  connectionRejected: 5,
  otherConfigurationChange: 6,
  connectionCollisionResolution: 7,
  outOfResources: 8,
} as const;

export const CapabilityCode = {
  multiprotocol: 1,
  routeRefresh: 2,
  gracefulRestart: 64,
  fourOctetAsn: 65,
  enhancedRouteRefresh: 70,
} as const;

export type Capability =
  | { readonly code: 'multiprotocol'; readonly afi: number; readonly safi: number }
  | { readonly code: 'routeRefresh' }
  | { readonly code: 'fourOctetAsn'; readonly asn: number }
  /** RFC 4724: restart flags (R bit = 0x8), restart time, and per family the forwarding-state flag. */
  | {
      readonly code: 'gracefulRestart';
      readonly restartFlags: number;
      readonly restartTimeSeconds: number;
      readonly families: readonly { readonly afi: number; readonly safi: number; readonly flags: number }[];
    }
  /** Anything else, kept as received (a peer's capability we do not speak is ignored, never an error). */
  | { readonly code: 'unknown'; readonly type: number; readonly value: Uint8Array };

export interface BgpOpen {
  readonly type: 'open';
  readonly version: number;
  /** The 2-octet My AS field as sent (AS_TRANS for 4-octet ASNs: the real one is in the fourOctetAsn capability). */
  readonly myAs: number;
  readonly holdTimeSeconds: number;
  /** Dotted-quad BGP identifier. */
  readonly bgpIdentifier: string;
  readonly capabilities: readonly Capability[];
}

export const Origin = { igp: 0, egp: 1, incomplete: 2 } as const;
export type OriginName = keyof typeof Origin;

export interface AsPathSegment {
  readonly type: 'sequence' | 'set';
  /** Always decoded and encoded as 4-octet ASNs (both sides advertise the fourOctetAsn capability). */
  readonly asns: readonly number[];
}

/** A large community (RFC 8092): global administrator, local data 1, local data 2. */
export type LargeCommunity = readonly [number, number, number];

export interface PathAttributes {
  readonly origin?: OriginName;
  readonly asPath?: readonly AsPathSegment[];
  /** IPv4 NEXT_HOP (type 3); IPv6 next hops travel in mpReach. */
  readonly nextHop?: IP;
  readonly med?: number;
  /** iBGP only (RFC 4271 5.1.5). */
  readonly localPref?: number;
  /** RFC 1997 communities as 32-bit values (65000:100 = 65000 * 65536 + 100). */
  readonly communities?: readonly number[];
  readonly largeCommunities?: readonly LargeCommunity[];
  /** RFC 4760 MP_REACH_NLRI (IPv6 unicast here). */
  readonly mpReach?: { readonly afi: number; readonly safi: number; readonly nextHops: readonly IP[]; readonly nlri: readonly CIDR[] };
  /** RFC 4760 MP_UNREACH_NLRI; empty withdrawn list for the family = End-of-RIB (RFC 4724). */
  readonly mpUnreach?: { readonly afi: number; readonly safi: number; readonly withdrawn: readonly CIDR[] };
  /** Attributes mlb does not interpret, kept as received (flags, type code, value). */
  readonly other?: readonly { readonly flags: number; readonly type: number; readonly value: Uint8Array }[];
}

export interface BgpUpdate {
  readonly type: 'update';
  /** IPv4 withdrawn routes. */
  readonly withdrawn: readonly CIDR[];
  readonly attributes: PathAttributes;
  /** IPv4 NLRI. */
  readonly nlri: readonly CIDR[];
  /**
   * Set by the decoder only: RFC 7606 "treat-as-withdraw". An attribute was malformed in a way that leaves the
   * message parseable, so every prefix it carries (nlri, mpReach.nlri, and the withdrawn lists) must be treated as
   * withdrawn and the session stays up. Never encoded.
   */
  readonly treatAsWithdraw?: { readonly reason: string };
  /** Set by the decoder only: attributes dropped under RFC 7606 "attribute discard" (the rest of the UPDATE stands). */
  readonly discardedAttributes?: readonly { readonly type: number; readonly reason: string }[];
}

export interface BgpNotification {
  readonly type: 'notification';
  readonly code: number;
  readonly subcode: number;
  readonly data: Uint8Array;
}

export interface BgpKeepalive {
  readonly type: 'keepalive';
}

/** RFC 2918. */
export interface BgpRouteRefresh {
  readonly type: 'routeRefresh';
  readonly afi: number;
  readonly safi: number;
  /**
   * RFC 7313 message subtype (the octet RFC 2918 called Reserved): absent or 0 = a request to resend, 1 = BoRR,
   * 2 = EoRR; any other value MUST be ignored by the receiver (RFC 7313 section 5).
   */
  readonly subtype?: number;
}

export type BgpMessage = BgpOpen | BgpUpdate | BgpNotification | BgpKeepalive | BgpRouteRefresh;
