/**
 * The path attributes one route carries on one session: what MetalLB's native speaker writes
 * (internal/bgp/native/messages.go encodePathAttrs), plus IPv6 and large communities beyond it. Pure.
 *
 *   ORIGIN      IGP (a capture of MetalLB v0.16's UPDATEs: "Origin (1) ... IGP").
 *   AS_PATH     empty towards iBGP peers; one AS_SEQUENCE holding the local ASN (4 octets) towards eBGP peers
 *               (the same capture: "AS Path (2), length: 6 ... 0201 0000 fc00").
 *   NEXT_HOP    the session's local address (IPv4 routes); IPv6 routes carry theirs in MP_REACH_NLRI (RFC 4760).
 *   LOCAL_PREF  iBGP only, and then always: MetalLB writes its uint32 field even when no advertisement set it, so
 *               an unset localPref goes out as 0 (RFC 4271 5.1.5: never to eBGP peers; none in the capture).
 *   COMMUNITIES sorted ascending (RFC 1997); LARGE_COMMUNITY sorted (RFC 8092, beyond native MetalLB, which has
 *               legacy communities only).
 */
import { formatIP, type CIDR, type IP } from '../../../ip';
import type { PathAttributes } from '../bgp-messages';
import type { FamilyName } from '../session/session-config';
import { compareLarge, type RouteIntent } from './route-intent';

/** What the speaker needs to know about an Established session. */
export interface SpeakerSession {
  readonly ibgp: boolean;
  readonly localAsn: number;
  /** The session's local IPv4 address (MetalLB: conn.LocalAddr()); without it no IPv4 route can be sent. */
  readonly nextHopV4?: IP;
  /** A global IPv6 address of this host towards the peer; without it no IPv6 route can be sent. */
  readonly nextHopV6?: IP;
  /** mlb only speaks to peers with 4-octet ASNs (MetalLB's native speaker needs them too). */
  readonly fourOctet: true;
  /** The families both sides announced in OPEN (RFC 4760); routes of other families are not sent. */
  readonly families: readonly FamilyName[];
}

/** MetalLB sends its LocalPref field as is on iBGP, and an unset field is 0 (not the usual default 100). */
const IBGP_LOCAL_PREF_WHEN_UNSET = 0;

export type SkipReason =
  /** The route's family was not negotiated on this session. */
  | 'familyNotNegotiated'
  /** The session has no local address of the route's family to use as next hop. */
  | 'noNextHopForFamily'
  /** The attributes alone (e.g. thousands of communities) leave no room for the prefix in 4096 bytes. */
  | 'attributesTooLarge';

/** A route's attributes on one session. Routes with equal `key`s are sent in the same UPDATEs. */
export interface RouteAttributes {
  readonly family: FamilyName;
  /** Everything but the prefixes (IPv6 routes: without MP_REACH_NLRI, which the packer adds). */
  readonly attributes: PathAttributes;
  /** IPv6: the next hop for MP_REACH_NLRI. */
  readonly mpNextHop?: IP;
  /** Equal keys <=> identical attributes on the wire. */
  readonly key: string;
}

/** The family a prefix is announced in. */
function addressFamilyOfPrefix(prefix: CIDR): FamilyName {
  return prefix.ip.family === 4 ? 'ipv4' : 'ipv6';
}

export type RouteAttributesResult =
  { readonly ok: true; readonly value: RouteAttributes } | { readonly ok: false; readonly reason: SkipReason };

/** RouteIntent promises sorted, distinct values; the wire gets them so whoever built the intent. */
function sortedDistinct<T>(values: readonly T[], compare: (a: T, b: T) => number): readonly T[] {
  let ordered = true;
  for (let i = 1; i < values.length && ordered; i++) ordered = compare(values[i - 1] as T, values[i] as T) < 0;
  if (ordered) return values;
  return [...values].sort(compare).filter((v, i, all) => i === 0 || compare(all[i - 1] as T, v) !== 0);
}

export function routeAttributes(route: RouteIntent, session: SpeakerSession): RouteAttributesResult {
  const family = addressFamilyOfPrefix(route.prefix);
  if (!session.families.includes(family)) return { ok: false, reason: 'familyNotNegotiated' };
  const nextHop = family === 'ipv4' ? session.nextHopV4 : session.nextHopV6;
  if (!nextHop) return { ok: false, reason: 'noNextHopForFamily' };
  const localPref = session.ibgp ? (route.localPref ?? IBGP_LOCAL_PREF_WHEN_UNSET) : undefined;
  const communities = sortedDistinct(route.communities, (a, b) => a - b);
  const largeCommunities = sortedDistinct(route.largeCommunities, compareLarge);
  const attributes: PathAttributes = {
    origin: 'igp',
    asPath: session.ibgp ? [] : [{ type: 'sequence', asns: [session.localAsn] }],
    ...(family === 'ipv4' ? { nextHop } : {}),
    ...(localPref !== undefined ? { localPref } : {}),
    ...(communities.length > 0 ? { communities } : {}),
    ...(largeCommunities.length > 0 ? { largeCommunities } : {}),
  };
  const key = [
    family,
    formatIP(nextHop),
    session.ibgp ? '' : session.localAsn,
    localPref ?? '',
    communities.join(','),
    largeCommunities.map((c) => c.join(':')).join(','),
  ].join('|');
  return { ok: true, value: { family, attributes, ...(family === 'ipv6' ? { mpNextHop: nextHop } : {}), key } };
}
