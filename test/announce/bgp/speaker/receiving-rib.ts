// A peer's Adj-RIB-In for the speaker tests: applies UPDATEs as a router would (RFC 4271 3.1, RFC 4760) and
// checks what a router checks (mandatory attributes present, no NEXT_HOP in an IPv6-only message, nothing over
// 4096 bytes). The expected RIB is built from the brief's rules, not from the speaker's own attribute code.
import { expect } from 'vitest';
import { formatCIDR, formatIP, parseCIDR, parseIP, type CIDR, type IP } from '../../../../src/ip';
import type { BgpUpdate, PathAttributes } from '../../../../src/announce/bgp/bgp-messages';
import { updateBytes, type RouteIntent, type SpeakerSession } from '../../../../src/announce/bgp/speaker';

export interface ReceivedRoute {
  readonly nextHop: string;
  readonly origin: string;
  readonly asPath: readonly number[];
  readonly localPref: number | undefined;
  readonly communities: readonly number[];
  readonly largeCommunities: readonly string[];
}

function received(a: PathAttributes, nextHop: IP | undefined): ReceivedRoute {
  if (a.origin === undefined || a.asPath === undefined || nextHop === undefined) {
    throw new Error(`a route without a mandatory attribute: ${JSON.stringify(Object.keys(a))}`);
  }
  return {
    nextHop: formatIP(nextHop),
    origin: a.origin,
    asPath: a.asPath.flatMap((s) => s.asns),
    localPref: a.localPref,
    communities: [...(a.communities ?? [])],
    largeCommunities: (a.largeCommunities ?? []).map((c) => c.join(':')),
  };
}

export function applyUpdates(rib: Map<string, ReceivedRoute>, updates: readonly BgpUpdate[]): Map<string, ReceivedRoute> {
  for (const u of updates) {
    expect(updateBytes(u)).toBeLessThanOrEqual(4096);
    for (const w of u.withdrawn) rib.delete(formatCIDR(w));
    for (const w of u.attributes.mpUnreach?.withdrawn ?? []) rib.delete(formatCIDR(w));
    if (u.nlri.length > 0) {
      const route = received(u.attributes, u.attributes.nextHop);
      for (const p of u.nlri) {
        expect(p.ip.family).toBe(4);
        rib.set(formatCIDR(p), route);
      }
    }
    const mp = u.attributes.mpReach;
    if (mp) {
      if (u.nlri.length === 0) expect(u.attributes.nextHop).toBeUndefined();
      const route = received(u.attributes, mp.nextHops[0]);
      for (const p of mp.nlri) rib.set(formatCIDR(p), route);
    }
  }
  return rib;
}

/** What the peer should hold for these desired routes on this session. */
export function expectedRib(desired: ReadonlyMap<string, RouteIntent>, session: SpeakerSession): Map<string, ReceivedRoute> {
  const out = new Map<string, ReceivedRoute>();
  for (const [key, r] of desired) {
    const nh = r.prefix.ip.family === 4 ? session.nextHopV4 : session.nextHopV6;
    const family = r.prefix.ip.family === 4 ? 'ipv4' : 'ipv6';
    if (!nh || !session.families.includes(family)) continue;
    out.set(key, {
      nextHop: formatIP(nh),
      origin: 'igp',
      asPath: session.ibgp ? [] : [session.localAsn],
      localPref: session.ibgp ? (r.localPref ?? 0) : undefined,
      // The wire carries them sorted and distinct whatever order the intent lists them in.
      communities: [...new Set(r.communities)].sort((a, b) => a - b),
      largeCommunities: [...new Map(r.largeCommunities.map((c) => [c.join(':'), c])).values()]
        .sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2])
        .map((c) => c.join(':')),
    });
  }
  return out;
}

export function sortedEntries<V>(m: ReadonlyMap<string, V>): [string, V][] {
  return [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export function cidr(text: string): CIDR {
  const c = parseCIDR(text);
  if (!c) throw new Error(`bad CIDR ${text}`);
  return c;
}

export function ip(text: string): IP {
  const a = parseIP(text);
  if (!a) throw new Error(`bad IP ${text}`);
  return a;
}

export function route(prefix: string, spec: Partial<Omit<RouteIntent, 'prefix'>> = {}): [string, RouteIntent] {
  const c = cidr(prefix);
  return [formatCIDR(c), { prefix: c, communities: [], largeCommunities: [], localPref: null, ...spec }];
}

export function routes(...entries: [string, RouteIntent][]): Map<string, RouteIntent> {
  return new Map(entries);
}

/** A MetalLB lab's session: node 192.168.10.20 in AS 64512 towards FRR in AS 64513. */
export const IPV4_EBGP: SpeakerSession = {
  ibgp: false,
  localAsn: 64512,
  nextHopV4: ip('192.168.10.20'),
  fourOctet: true,
  families: ['ipv4'],
};

export const IPV4_IBGP: SpeakerSession = { ...IPV4_EBGP, ibgp: true };

export const DUAL_STACK_EBGP: SpeakerSession = {
  ibgp: false,
  localAsn: 64512,
  nextHopV4: ip('192.168.10.20'),
  nextHopV6: ip('fd00:213::20'),
  fourOctet: true,
  families: ['ipv4', 'ipv6'],
};

/** 64512:100 as RFC 1997 stores it. */
export const COMMUNITY_64512_100 = 64512 * 65536 + 100;
