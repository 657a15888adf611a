/**
 * Pure readers of the gobgp CLI's JSON (`gobgp neighbor -j`, `gobgp global rib -a <afi> [prefix] -j`) into the
 * shared shapes. GoBGP prints path attributes as a list of {type, ...} objects keyed by the BGP attribute type
 * code (RFC 4271 section 5, RFC 1997, RFC 4760, RFC 8092), which is what is matched here.
 */
import { formatCommunity, type Origin, type PeerSession, type RouterPath } from '../../../src/cli/lab/route-path';
import { RouterError } from '../../../src/cli/lab/router-shell';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function bad(what: string, value: unknown): never {
  throw new RouterError('badOutput', `gobgp answer without ${what}: ${JSON.stringify(value).slice(0, 300)}`);
}

/** GoBGP's api.PeerState.SessionState enum, as the CLI prints it (a number, or its name in newer builds). */
const SESSION_STATES = ['unknown', 'idle', 'connect', 'active', 'opensent', 'openconfirm', 'established'] as const;

function sessionState(value: unknown): string {
  if (typeof value === 'number') return SESSION_STATES[value] ?? `state-${value}`;
  if (typeof value === 'string') return value.toLowerCase();
  return 'unknown';
}

export function parseGobgpNeighbors(json: unknown): PeerSession[] {
  if (!Array.isArray(json)) return isObject(json) && Object.keys(json).length === 0 ? [] : bad('a neighbor list', json);
  return json.map((raw: unknown): PeerSession => {
    if (!isObject(raw) || !isObject(raw.state)) bad('a neighbor state', raw);
    const conf = isObject(raw.conf) ? raw.conf : {};
    const address = raw.state.neighbor_address ?? conf.neighbor_address;
    if (typeof address !== 'string') bad('neighbor_address', raw);
    const state = sessionState(raw.state.session_state);
    const remoteAs = raw.state.peer_asn ?? conf.peer_asn;
    const received = acceptedPrefixes(raw);
    return {
      address,
      ...(typeof remoteAs === 'number' ? { remoteAs } : {}),
      state,
      established: state === 'established',
      ...(received !== undefined ? { prefixesReceived: received } : {}),
    };
  });
}

/** Sum of accepted prefixes over the families, when the CLI includes afi_safis states. */
function acceptedPrefixes(raw: Json): number | undefined {
  if (!Array.isArray(raw.afi_safis)) return undefined;
  let total = 0;
  for (const family of raw.afi_safis) {
    if (isObject(family) && isObject(family.state) && typeof family.state.accepted === 'number') total += family.state.accepted;
  }
  return total;
}

const ORIGINS: readonly Origin[] = ['igp', 'egp', 'incomplete'];

interface Attributes {
  origin?: Origin;
  asPath: number[];
  nextHop?: string;
  localPref?: number;
  communities: string[];
  largeCommunities: string[];
}

function readAttributes(attrs: readonly unknown[]): Attributes {
  const out: Attributes = { asPath: [], communities: [], largeCommunities: [] };
  for (const attr of attrs) {
    if (!isObject(attr)) continue;
    switch (attr.type) {
      case 1: // ORIGIN
        out.origin = ORIGINS[Number(attr.value)];
        break;
      case 2: // AS_PATH: segments of asns
        for (const segment of Array.isArray(attr.as_paths) ? attr.as_paths : []) {
          if (isObject(segment) && Array.isArray(segment.asns)) out.asPath.push(...segment.asns.map(Number));
        }
        break;
      case 3: // NEXT_HOP
        if (typeof attr.nexthop === 'string') out.nextHop = attr.nexthop;
        break;
      case 5: // LOCAL_PREF
        if (typeof attr.value === 'number') out.localPref = attr.value;
        break;
      case 8: // COMMUNITIES as 32-bit numbers
        for (const c of Array.isArray(attr.communities) ? attr.communities : []) out.communities.push(formatCommunity(Number(c)));
        break;
      case 14: // MP_REACH_NLRI: the next hop of IPv6 routes
        if (typeof attr.nexthop === 'string') out.nextHop = attr.nexthop;
        break;
      case 32: // LARGE_COMMUNITY
        for (const c of Array.isArray(attr.value) ? attr.value : []) {
          if (isObject(c)) out.largeCommunities.push(`${c.ASN}:${c.LocalData1}:${c.LocalData2}`);
        }
        break;
      default:
        break;
    }
  }
  return out;
}

/** `gobgp global rib -a <afi> [prefix] -j`: an object keyed by prefix, each a list of paths ({} when none). */
export function parseGobgpRib(json: unknown): RouterPath[] {
  if (!isObject(json)) return Array.isArray(json) && json.length === 0 ? [] : bad('an object keyed by prefix', json);
  const paths: RouterPath[] = [];
  for (const [prefix, list] of Object.entries(json)) {
    if (!Array.isArray(list)) bad(`a path list for ${prefix}`, json);
    for (const raw of list) {
      if (!isObject(raw) || !Array.isArray(raw.attrs)) bad('attrs', raw);
      const a = readAttributes(raw.attrs);
      const peer = typeof raw['neighbor-ip'] === 'string' ? raw['neighbor-ip'] : undefined;
      paths.push({
        prefix,
        nextHop: a.nextHop ?? bad(`a next hop for ${prefix}`, raw),
        ...(peer ? { peer } : {}),
        asPath: a.asPath,
        ...(a.origin ? { origin: a.origin } : {}),
        communities: a.communities,
        largeCommunities: a.largeCommunities,
        ...(a.localPref !== undefined ? { localPref: a.localPref } : {}),
        best: raw.best === true,
      });
    }
  }
  return paths;
}

/** `gobgp global rib summary -a <afi> -j` prints {"num_destination": N, "num_path": M}. */
export function parseGobgpRibSummary(json: unknown): { destinations: number; paths: number } {
  if (!isObject(json)) bad('a summary object', json);
  return { destinations: Number(json.num_destination ?? 0), paths: Number(json.num_path ?? 0) };
}
