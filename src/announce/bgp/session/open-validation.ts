/**
 * Checking the peer's OPEN (RFC 4271 6.2, RFC 5492, RFC 6286, RFC 6793) and negotiating what the session runs with:
 * the hold time (the smaller of both sides, MetalLB's rule), the keepalive interval (a third of it, or the
 * configured one if smaller), the shared families and the optional capabilities. Pure.
 *
 * A refused OPEN comes back with the NOTIFICATION to send and a stable reason; the checks run in the RFC's order
 * (version, peer AS, hold time, BGP identifier, capabilities), except that a missing 4-octet ASN capability is
 * reported first: without it the peer's real ASN is unknown and "bad peer AS" would blame the wrong thing.
 */
import {
  AS_TRANS,
  BGP_VERSION,
  NotificationCode,
  OpenErrorSubcode,
  type BgpNotification,
  type BgpOpen,
  type Capability,
} from '../bgp-messages';
import {
  fourOctetAsnCapabilityBytes,
  familyNameOfAfiSafi,
  GRACEFUL_RESTART_F_BIT,
  GRACEFUL_RESTART_R_BIT,
  multiprotocolCapabilityBytes,
  supportedVersionBytes,
} from './open-message';
import {
  isInternalPeer,
  KEEPALIVE_HOLD_RATIO,
  MIN_HOLD_TIME_S,
  routerIdValue,
  type FamilyName,
  type LocalSpeaker,
  type PeerAsn,
} from './session-config';

/** Cisco's pre-standard route refresh capability code, still sent by some routers beside code 2 (RFC 2918). */
const LEGACY_ROUTE_REFRESH_CODE = 128;

export interface PeerGracefulRestart {
  /** How long the peer wants us to keep its routes when it restarts (we keep none: mlb ignores received routes). */
  readonly restartTimeS: number;
  /** The peer says it has just restarted (R bit). */
  readonly restarting: boolean;
  /** Families the peer preserves forwarding for (F bit), among the negotiated ones. */
  readonly forwardingPreserved: readonly FamilyName[];
}

/** What both sides agreed on; the 'established' event carries it. */
export interface NegotiatedSession {
  readonly peerAsn: number;
  readonly peerRouterId: string;
  /** Same ASN on both sides: LOCAL_PREF goes out, the next hop and AS_PATH follow iBGP rules. */
  readonly internal: boolean;
  /** The smaller of both hold times; 0 = no hold timer and no keepalives. */
  readonly holdTimeS: number;
  readonly keepaliveS: number;
  /** What the peer offered, for status. */
  readonly peerHoldTimeS: number;
  /** Both sides use 4-octet ASNs in AS_PATH (RFC 6793). */
  readonly fourOctetAsn: boolean;
  /** Families offered by both sides, in our configured order. */
  readonly families: readonly FamilyName[];
  /** The peer accepts ROUTE-REFRESH (RFC 2918); we always do. */
  readonly routeRefresh: boolean;
  /** Present when both sides advertised graceful restart (RFC 4724). */
  readonly gracefulRestart?: PeerGracefulRestart;
}

/** Stable reasons an OPEN is refused (they appear in logs, status and tests). */
export type OpenRejectReason =
  'unsupportedVersion' | 'missingFourOctetAsn' | 'badPeerAs' | 'unacceptableHoldTime' | 'badBgpIdentifier' | 'noCommonFamily';

export type OpenVerdict =
  | { readonly ok: true; readonly negotiated: NegotiatedSession }
  | { readonly ok: false; readonly reason: OpenRejectReason; readonly message: string; readonly notification: BgpNotification };

const EMPTY = new Uint8Array(0);

function reject(reason: OpenRejectReason, subcode: number, message: string, data: Uint8Array = EMPTY): OpenVerdict {
  const notification: BgpNotification = { type: 'notification', code: NotificationCode.openMessageError, subcode, data };
  return { ok: false, reason, message, notification };
}

type CapabilityOf<C extends Capability['code']> = Extract<Capability, { code: C }>;

function findCapability<C extends Capability['code']>(caps: readonly Capability[], code: C): CapabilityOf<C> | undefined {
  return caps.find((c) => c.code === code) as CapabilityOf<C> | undefined;
}

/** RFC 4271 4.4 with MetalLB's rule: hold = min of both sides; keepalive = hold / 3, or the configured one if smaller. */
export function negotiateTimers(localHoldS: number, localKeepaliveS: number, peerHoldS: number): { holdTimeS: number; keepaliveS: number } {
  const holdTimeS = Math.min(localHoldS, peerHoldS);
  if (holdTimeS === 0) return { holdTimeS, keepaliveS: 0 };
  const derived = Math.floor(holdTimeS / KEEPALIVE_HOLD_RATIO);
  return { holdTimeS, keepaliveS: localKeepaliveS > 0 && localKeepaliveS < derived ? localKeepaliveS : derived };
}

/** RFC 4760: a peer without any multiprotocol capability speaks IPv4 unicast only. */
function peerFamilies(caps: readonly Capability[]): FamilyName[] {
  const mp = caps.filter((c): c is Extract<Capability, { code: 'multiprotocol' }> => c.code === 'multiprotocol');
  if (mp.length === 0) return ['ipv4'];
  const families: FamilyName[] = [];
  for (const c of mp) {
    const family = familyNameOfAfiSafi(c.afi, c.safi);
    if (family && !families.includes(family)) families.push(family);
  }
  return families;
}

function isRouteRefresh(c: Capability): boolean {
  return c.code === 'routeRefresh' || (c.code === 'unknown' && c.type === LEGACY_ROUTE_REFRESH_CODE);
}

function peerAsnMatches(expected: PeerAsn, localAsn: number, asn: number): boolean {
  if (expected.asn !== undefined) return asn === expected.asn;
  return expected.dynamicAsn === 'internal' ? asn === localAsn : asn !== localAsn;
}

function describeExpected(expected: PeerAsn): string {
  return expected.asn !== undefined ? `AS ${expected.asn}` : `an ${expected.dynamicAsn} peer (dynamicASN)`;
}

function gracefulRestartOf(
  caps: readonly Capability[],
  local: LocalSpeaker,
  families: readonly FamilyName[],
): PeerGracefulRestart | undefined {
  const theirs = findCapability(caps, 'gracefulRestart');
  if (!local.gracefulRestart || !theirs) return undefined;
  const forwardingPreserved = theirs.families
    .filter((f) => (f.flags & GRACEFUL_RESTART_F_BIT) !== 0)
    .map((f) => familyNameOfAfiSafi(f.afi, f.safi))
    .filter((f): f is FamilyName => f !== undefined && families.includes(f));
  return {
    restartTimeS: theirs.restartTimeSeconds,
    restarting: (theirs.restartFlags & GRACEFUL_RESTART_R_BIT) !== 0,
    forwardingPreserved: [...new Set(forwardingPreserved)],
  };
}

export function validateOpen(open: BgpOpen, local: LocalSpeaker, expected: PeerAsn): OpenVerdict {
  if (open.version !== BGP_VERSION) {
    const message = `the peer speaks BGP version ${open.version}, not ${BGP_VERSION}`;
    return reject('unsupportedVersion', OpenErrorSubcode.unsupportedVersionNumber, message, supportedVersionBytes());
  }
  const caps = open.capabilities;
  const asnCapability = findCapability(caps, 'fourOctetAsn');
  if (!asnCapability && local.requireFourOctetAsn !== false) {
    const message = 'the peer does not support 4-octet ASNs (RFC 6793), which this speaker requires, as MetalLB does';
    return reject('missingFourOctetAsn', OpenErrorSubcode.unsupportedCapability, message, fourOctetAsnCapabilityBytes(local.asn));
  }
  const asn = asnCapability ? asnCapability.asn : open.myAs;
  if (asn === 0 || (!asnCapability && asn === AS_TRANS) || !peerAsnMatches(expected, local.asn, asn)) {
    return reject('badPeerAs', OpenErrorSubcode.badPeerAs, `the peer is AS ${asn}; expected ${describeExpected(expected)}`);
  }
  if (open.holdTimeSeconds > 0 && open.holdTimeSeconds < MIN_HOLD_TIME_S) {
    const message = `hold time ${open.holdTimeSeconds}s: must be 0 or >= ${MIN_HOLD_TIME_S}s`;
    return reject('unacceptableHoldTime', OpenErrorSubcode.unacceptableHoldTime, message);
  }
  const internal = isInternalPeer(local.asn, asn);
  const peerId = routerIdValue(open.bgpIdentifier);
  if (peerId === undefined) {
    const message = `BGP identifier ${open.bgpIdentifier} is zero or not an IPv4 address`;
    return reject('badBgpIdentifier', OpenErrorSubcode.badBgpIdentifier, message);
  }
  // RFC 6286 2.1: identifiers are unique within an AS; an external peer may share ours.
  if (internal && peerId === routerIdValue(local.routerId)) {
    const message = `the internal peer uses our own BGP identifier ${open.bgpIdentifier}`;
    return reject('badBgpIdentifier', OpenErrorSubcode.badBgpIdentifier, message);
  }
  const offered = peerFamilies(caps);
  const families = local.families.filter((f) => offered.includes(f));
  if (families.length === 0) {
    return reject(
      'noCommonFamily',
      OpenErrorSubcode.unsupportedCapability,
      `no address family in common (we offer ${local.families.join(', ')}; the peer ${offered.join(', ') || 'none we know'})`,
      multiprotocolCapabilityBytes(local.families),
    );
  }
  const timers = negotiateTimers(local.holdTimeS, local.keepaliveS, open.holdTimeSeconds);
  const gracefulRestart = gracefulRestartOf(caps, local, families);
  return {
    ok: true,
    negotiated: {
      peerAsn: asn,
      peerRouterId: open.bgpIdentifier,
      internal,
      ...timers,
      peerHoldTimeS: open.holdTimeSeconds,
      fourOctetAsn: asnCapability !== undefined,
      families,
      routeRefresh: caps.some(isRouteRefresh),
      ...(gracefulRestart ? { gracefulRestart } : {}),
    },
  };
}
