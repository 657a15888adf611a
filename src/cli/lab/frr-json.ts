/**
 * Pure readers of FRR 8.4's JSON answers (bgpd's `show bgp summary json`, `show bgp neighbors <address> json` and
 * `show bgp <afi> unicast <prefix> json`, zebra's `show ip route <prefix> json`, bfdd's `show bfd peers json`) into the shared shapes. The field
 * names were taken from FRR 8.4.4 in this lab; anything else in the answer is ignored, a missing field is a
 * RouterError('badOutput') naming it, so an FRR upgrade that renames a field fails loudly, not as "no route".
 */
import type { Origin, PeerSession, RouterPath } from './route-path';
import { RouterError } from './router-error';

export interface FrrSummary {
  readonly routerId?: string;
  readonly asn?: number;
  /** One entry per peer and family: an IPv4 neighbor with IPv6 activated appears under both. */
  readonly peers: readonly (PeerSession & { readonly family: 'ipv4' | 'ipv6'; readonly dynamic: boolean })[];
}

export interface FrrBfdPeer {
  readonly peer: string;
  readonly local?: string;
  readonly interface?: string;
  /** up, down, init, adm-down (bfdd's words). */
  readonly status: string;
  readonly receiveMs: number;
  readonly transmitMs: number;
  readonly multiplier: number;
  readonly remoteReceiveMs?: number;
  readonly remoteTransmitMs?: number;
  readonly remoteMultiplier?: number;
  readonly passive: boolean;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bad(what: string, value: unknown): never {
  throw new RouterError('badOutput', `FRR answer without ${what}: ${JSON.stringify(value).slice(0, 300)}`);
}

const FAMILIES = { ipv4Unicast: 'ipv4', ipv6Unicast: 'ipv6' } as const;

export function parseFrrSummary(json: unknown): FrrSummary {
  if (!isObject(json)) bad('an object', json);
  const peers: FrrSummary['peers'][number][] = [];
  let routerId: string | undefined;
  let asn: number | undefined;
  for (const [key, family] of Object.entries(FAMILIES)) {
    const section = json[key];
    if (!isObject(section)) continue;
    routerId ??= typeof section.routerId === 'string' ? section.routerId : undefined;
    asn ??= typeof section.as === 'number' ? section.as : undefined;
    for (const [address, raw] of Object.entries(isObject(section.peers) ? section.peers : {})) {
      if (!isObject(raw) || typeof raw.state !== 'string') bad(`a state for peer ${address}`, raw);
      peers.push({
        address,
        family,
        ...(typeof raw.remoteAs === 'number' ? { remoteAs: raw.remoteAs } : {}),
        state: raw.state,
        established: raw.state === 'Established',
        ...(typeof raw.pfxRcd === 'number' ? { prefixesReceived: raw.pfxRcd } : {}),
        dynamic: raw.dynamicPeer === true,
      });
    }
  }
  return { ...(routerId ? { routerId } : {}), ...(asn !== undefined ? { asn } : {}), peers };
}

function parseOrigin(value: unknown): Origin | undefined {
  const text = typeof value === 'string' ? value.toLowerCase() : '';
  return text === 'igp' || text === 'egp' || text === 'incomplete' ? text : undefined;
}

function stringList(section: unknown): string[] {
  return isObject(section) && Array.isArray(section.list) ? section.list.map(String) : [];
}

function asPathOf(raw: Json): number[] {
  const aspath = raw.aspath;
  if (!isObject(aspath) || !Array.isArray(aspath.segments)) bad('an aspath', raw);
  return aspath.segments.flatMap((segment: unknown) => (isObject(segment) && Array.isArray(segment.list) ? segment.list.map(Number) : []));
}

/** `show bgp <afi> unicast <prefix> json`: {} when bgpd holds no path for the prefix (filtered or never sent). */
export function parseFrrRoutes(json: unknown): RouterPath[] {
  if (!isObject(json)) bad('an object', json);
  if (json.paths === undefined) return [];
  const prefix = json.prefix;
  if (typeof prefix !== 'string' || !Array.isArray(json.paths)) bad('prefix and paths', json);
  return json.paths.map((raw: unknown): RouterPath => {
    if (!isObject(raw)) bad('a path object', raw);
    const nexthops = Array.isArray(raw.nexthops) ? raw.nexthops.filter(isObject) : [];
    // The first next hop is the global one; an IPv6 path may add its link-local second.
    const nextHop = nexthops[0]?.ip;
    if (typeof nextHop !== 'string') bad('a next hop', raw);
    const peer = isObject(raw.peer) && typeof raw.peer.peerId === 'string' ? raw.peer.peerId : undefined;
    const origin = parseOrigin(raw.origin);
    return {
      prefix,
      nextHop,
      ...(peer ? { peer } : {}),
      asPath: asPathOf(raw),
      ...(origin ? { origin } : {}),
      communities: stringList(raw.community),
      largeCommunities: stringList(raw.largeCommunity),
      ...(typeof raw.locPrf === 'number' ? { localPref: raw.locPrf } : {}),
      best: isObject(raw.bestpath) && raw.bestpath.overall === true,
      multipath: raw.multipath === true,
    };
  });
}

/**
 * The next hops zebra installed in the kernel for exactly `prefix` (`show ip route <prefix> json` answers the
 * longest match too; only the entry whose key is the prefix counts). Only selected, installed routes and next
 * hops in the FIB are reported: that is the ECMP set traffic actually follows.
 */
export function parseZebraNextHops(json: unknown, prefix: string): string[] {
  if (!isObject(json)) bad('an object', json);
  const entries = json[prefix];
  if (entries === undefined) return [];
  if (!Array.isArray(entries)) bad(`a route list for ${prefix}`, json);
  const hops = entries
    .filter((route): route is Json => isObject(route) && route.selected === true && route.installed === true)
    .flatMap((route) => (Array.isArray(route.nexthops) ? route.nexthops.filter(isObject) : []))
    .filter((hop) => hop.fib === true && typeof hop.ip === 'string')
    .map((hop) => hop.ip as string);
  return [...new Set(hops)].sort();
}

export function parseFrrBfdPeers(json: unknown): FrrBfdPeer[] {
  if (!Array.isArray(json)) return isObject(json) && Object.keys(json).length === 0 ? [] : bad('a list of BFD peers', json);
  return json.map((raw: unknown): FrrBfdPeer => {
    if (!isObject(raw) || typeof raw.peer !== 'string' || typeof raw.status !== 'string') bad('peer and status', raw);
    const num = (key: string) => (typeof raw[key] === 'number' ? (raw[key] as number) : undefined);
    return {
      peer: raw.peer,
      ...(typeof raw.local === 'string' ? { local: raw.local } : {}),
      ...(typeof raw.interface === 'string' ? { interface: raw.interface } : {}),
      status: raw.status,
      receiveMs: num('receive-interval') ?? bad('receive-interval', raw),
      transmitMs: num('transmit-interval') ?? bad('transmit-interval', raw),
      multiplier: num('detect-multiplier') ?? bad('detect-multiplier', raw),
      ...(num('remote-receive-interval') !== undefined ? { remoteReceiveMs: num('remote-receive-interval') } : {}),
      ...(num('remote-transmit-interval') !== undefined ? { remoteTransmitMs: num('remote-transmit-interval') } : {}),
      ...(num('remote-detect-multiplier') !== undefined ? { remoteMultiplier: num('remote-detect-multiplier') } : {}),
      passive: raw['passive-mode'] === true,
    };
  });
}

/** Counts from zebra's `show ip route summary json`: BGP routes in the RIB and in the kernel FIB. */
export function parseZebraBgpCounts(json: unknown): { rib: number; fib: number } {
  if (!isObject(json) || !Array.isArray(json.routes)) bad('routes', json);
  let rib = 0;
  let fib = 0;
  for (const entry of json.routes) {
    if (!isObject(entry) || (entry.type !== 'ebgp' && entry.type !== 'ibgp' && entry.type !== 'bgp')) continue;
    rib += typeof entry.rib === 'number' ? entry.rib : 0;
    fib += typeof entry.fib === 'number' ? entry.fib : 0;
  }
  return { rib, fib };
}

export interface FrrNeighborState {
  readonly address: string;
  /** bgpd's word: Idle, Connect, Active, OpenSent, OpenConfirm, Established. */
  readonly state: string;
  readonly established: boolean;
  /** The hold time negotiated with the peer (the lower of both OPENs), once a session came up. */
  readonly holdTimeMs?: number;
  /** Why the last session ended, in bgpd's words ("BGP Notification send", "Peer closed the session"...). */
  readonly lastResetReason?: string;
  /** The last NOTIFICATION sent or received, by name ("Cease/BFD Down": bgpd ended the session because bfdd said so). */
  readonly lastNotification?: string;
  /** bfdd's status for this neighbor as bgpd sees it (Up, Down...), when BFD is configured on it. */
  readonly bfdStatus?: string;
}

/** `show bgp neighbors <address> json`: undefined when bgpd has no such neighbor. */
export function parseFrrNeighbor(json: unknown, address: string): FrrNeighborState | undefined {
  if (!isObject(json)) bad('an object', json);
  const raw = json[address];
  if (raw === undefined) return undefined;
  if (!isObject(raw) || typeof raw.bgpState !== 'string') bad(`a bgpState for neighbor ${address}`, raw);
  const bfd = isObject(raw.peerBfdInfo) && typeof raw.peerBfdInfo.status === 'string' ? raw.peerBfdInfo.status : undefined;
  return {
    address,
    state: raw.bgpState,
    established: raw.bgpState === 'Established',
    ...(typeof raw.bgpTimerHoldTimeMsecs === 'number' ? { holdTimeMs: raw.bgpTimerHoldTimeMsecs } : {}),
    ...(typeof raw.lastResetDueTo === 'string' ? { lastResetReason: raw.lastResetDueTo } : {}),
    ...(typeof raw.lastNotificationReason === 'string' ? { lastNotification: raw.lastNotificationReason } : {}),
    ...(bfd ? { bfdStatus: bfd } : {}),
  };
}
