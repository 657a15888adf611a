/**
 * One route as the speaker means to send it to one peer: the prefix and the attributes that come from the
 * configuration (communities, large communities, LOCAL_PREF). Session-given attributes (ORIGIN, AS_PATH, next
 * hop) are added per session in route-attributes.ts. Pure.
 *
 * The election hands communities over as text (BGPAnnouncement.communities: "65000:100" for RFC 1997, "1:2:3" for
 * RFC 8092 large communities, the way internal/bgp/community prints them); this file turns them into wire values.
 */
import { compareIP, type CIDR } from '../../../ip';
import type { LargeCommunity } from '../bgp-messages';
import { SpeakerInputError } from './speaker-input-error';

export interface RouteIntent {
  readonly prefix: CIDR;
  /** RFC 1997 values (high 16 bits * 65536 + low 16 bits), distinct, ascending. */
  readonly communities: readonly number[];
  /** RFC 8092 values, distinct, ascending field by field. */
  readonly largeCommunities: readonly LargeCommunity[];
  /** null when no advertisement sets one (MetalLB then sends 0 to iBGP peers: route-attributes.ts). */
  readonly localPref: number | null;
}

/** One peer's desired routes, keyed by prefix text (formatCIDR). */
export type PeerRoutes = ReadonlyMap<string, RouteIntent>;

const UINT16_MAX = 0xffff;
const UINT32_MAX = 0xffff_ffff;
const STANDARD_FIELDS = 2;
const LARGE_FIELDS = 3;

function field(text: string, max: number, whole: string): number {
  if (!/^[0-9]+$/.test(text) || Number(text) > max) {
    throw new SpeakerInputError('badCommunityText', `community "${whole}" has a bad field "${text}"`);
  }
  return Number(text);
}

type ParsedCommunity = { readonly kind: 'standard'; readonly value: number } | { readonly kind: 'large'; readonly value: LargeCommunity };

/** "a:b" -> a standard community, "a:b:c" -> a large one (the text BGPAnnouncement carries). */
function parseCommunityText(text: string): ParsedCommunity {
  const parts = text.split(':');
  if (parts.length === STANDARD_FIELDS) {
    const [high, low] = parts as [string, string];
    return { kind: 'standard', value: field(high, UINT16_MAX, text) * 0x10000 + field(low, UINT16_MAX, text) };
  }
  if (parts.length === LARGE_FIELDS) {
    const [g, l1, l2] = parts as [string, string, string];
    return { kind: 'large', value: [field(g, UINT32_MAX, text), field(l1, UINT32_MAX, text), field(l2, UINT32_MAX, text)] };
  }
  throw new SpeakerInputError('badCommunityText', `"${text}" is neither a:b nor a:b:c`);
}

export function compareLarge(a: LargeCommunity, b: LargeCommunity): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Distinct standard and large values, each sorted: the order the COMMUNITIES attribute is sent in. */
export function splitCommunities(texts: readonly string[]): Pick<RouteIntent, 'communities' | 'largeCommunities'> {
  const standard = new Set<number>();
  const large = new Map<string, LargeCommunity>();
  for (const text of texts) {
    const c = parseCommunityText(text);
    if (c.kind === 'standard') standard.add(c.value);
    else large.set(c.value.join(':'), c.value);
  }
  return {
    communities: [...standard].sort((a, b) => a - b),
    largeCommunities: [...large.values()].sort(compareLarge),
  };
}

/**
 * Two advertisements giving one peer the same prefix become one path (internal/bgp/native Set: keyed by prefix,
 * communities united and sorted, the first advertisement's LOCAL_PREF kept). MetalLB's "first" is Go map order,
 * i.e. random; mlb keeps the highest LOCAL_PREF so the choice is deterministic. MetalLB's config validation
 * already refuses conflicting LOCAL_PREFs within one pool, so this only decides between pools that aggregate
 * into the same prefix.
 */
export function mergeIntents(a: RouteIntent, b: RouteIntent): RouteIntent {
  const standard = [...new Set([...a.communities, ...b.communities])].sort((x, y) => x - y);
  const large = new Map<string, LargeCommunity>();
  for (const c of [...a.largeCommunities, ...b.largeCommunities]) large.set(c.join(':'), c);
  return {
    prefix: a.prefix,
    communities: standard,
    largeCommunities: [...large.values()].sort(compareLarge),
    localPref: a.localPref === null ? b.localPref : b.localPref === null ? a.localPref : Math.max(a.localPref, b.localPref),
  };
}

/** IPv4 before IPv6, then by address, then shorter prefixes first: the order routes are packed and listed in. */
export function comparePrefixes(a: CIDR, b: CIDR): number {
  return compareIP(a.ip, b.ip) || a.prefix - b.prefix;
}
