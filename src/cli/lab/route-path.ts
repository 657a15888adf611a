/**
 * The shapes every router answers in (the lab's FRR, and the interop tests' routers), whatever it prints: a path
 * to a prefix as a router holds it, and a BGP session as a router sees it. One shape lets an interop test ask FRR,
 * BIRD, GoBGP and ExaBGP the same question ("which next hops, which communities?") and compare the answers with
 * what mlb was told to send.
 */

export type Origin = 'igp' | 'egp' | 'incomplete';

export interface RouterPath {
  /** The prefix in its canonical text form, e.g. 10.213.0.200/32 or fd00:213::200/128. */
  readonly prefix: string;
  /** The BGP NEXT_HOP (or MP_REACH next hop) of this path. */
  readonly nextHop: string;
  /** The neighbor the path was learnt from, when the router says. */
  readonly peer?: string;
  readonly asPath: readonly number[];
  readonly origin?: Origin;
  /** RFC 1997 communities as "asn:value". */
  readonly communities: readonly string[];
  /** RFC 8092 large communities as "global:local1:local2". */
  readonly largeCommunities: readonly string[];
  /** LOCAL_PREF, present on iBGP paths only (MetalLB never sends it to an eBGP peer). */
  readonly localPref?: number;
  readonly best?: boolean;
  /** Taking part in ECMP (FRR's "multipath"). */
  readonly multipath?: boolean;
}

export interface PeerSession {
  readonly address: string;
  readonly remoteAs?: number;
  /** The router's own word for the state (Established, Active, up, ...). */
  readonly state: string;
  readonly established: boolean;
  /** Prefixes accepted from this peer (after the inbound policy), when the router counts them. */
  readonly prefixesReceived?: number;
}

/** A 32-bit RFC 1997 community value as "high:low". */
export function formatCommunity(value: number): string {
  return `${Math.floor(value / 65536)}:${value % 65536}`;
}

/** The address family of a prefix or address from its text. */
export function ipVersionOfText(prefixOrAddress: string): 4 | 6 {
  return prefixOrAddress.includes(':') ? 6 : 4;
}

/** The distinct next hops of a set of paths, sorted, as tests compare them with the nodes' addresses. */
export function nextHopsOf(paths: readonly RouterPath[]): string[] {
  return [...new Set(paths.map((p) => p.nextHop))].sort();
}
