// desiredRoutesByPeer: from the election's announcements (built here by the election's own bgpAnnouncementsFor)
// to the routes each peer should hold, merged the way MetalLB's native session merges them.
import { describe, expect, it } from 'vitest';
import { bgpAnnouncementsFor, peersOnNode, type BGPAnnouncement } from '../../../../src/election';
import type { CommunityValue } from '../../../../src/model';
import { formatCIDR } from '../../../../src/ip';
import { desiredRoutesByPeer, SpeakerInputError } from '../../../../src/announce/bgp/speaker';
import { bgpAd, ip, node, peer, sel, standard } from '../../../election/factories';
import { COMMUNITY_64512_100 } from './receiving-rib';

const large = (g: number, l1: number, l2: number): CommunityValue => ({
  kind: 'large',
  text: `${g}:${l1}:${l2}`,
  global: g,
  local1: l1,
  local2: l2,
});

const worker = node('k8s-node-2', { role: 'worker' });
const router = peer('router');
const tor = peer('tor');

function announce(ads: Parameters<typeof bgpAnnouncementsFor>[1], ips: string[], peers = [router]): BGPAnnouncement[] {
  const names = peersOnNode(peers, worker);
  return ips.flatMap((a) => bgpAnnouncementsFor(worker, ads, ip(a), names));
}

function summary(
  byPeer: Map<
    string,
    Map<string, { communities: readonly number[]; largeCommunities: readonly (readonly number[])[]; localPref: number | null }>
  >,
) {
  return Object.fromEntries(
    [...byPeer].map(([p, rs]) => [
      p,
      [...rs].map(([k, r]) => ({
        prefix: k,
        communities: r.communities,
        large: r.largeCommunities.map((c) => c.join(':')),
        localPref: r.localPref,
      })),
    ]),
  );
}

describe('desiredRoutesByPeer', () => {
  it("a /32 per service with the advertisement's community and localPref", () => {
    const ad = bgpAd('bgp', { localPref: 200, communities: ['64512:100'], communityValues: [standard('64512:100')] });
    const byPeer = desiredRoutesByPeer(announce([ad], ['192.168.20.101', '192.168.20.100']), [router]);
    expect(summary(byPeer)).toEqual({
      router: [
        { prefix: '192.168.20.100/32', communities: [COMMUNITY_64512_100], large: [], localPref: 200 },
        { prefix: '192.168.20.101/32', communities: [COMMUNITY_64512_100], large: [], localPref: 200 },
      ],
    });
  });

  it('aggregationLength 30: two services in one /30 give one route, the prefix masked', () => {
    const ad = bgpAd('bgp', { aggregationLength: 30 });
    const byPeer = desiredRoutesByPeer(announce([ad], ['192.168.20.101', '192.168.20.103']), [router]);
    expect([...byPeer.get('router')!.keys()]).toEqual(['192.168.20.100/30']);
    expect(formatCIDR(byPeer.get('router')!.get('192.168.20.100/30')!.prefix)).toBe('192.168.20.100/30');
  });

  it('IPv6 service IPs are masked with aggregationLengthV6', () => {
    const ad = bgpAd('bgp', { aggregationLengthV6: 124 });
    const byPeer = desiredRoutesByPeer(announce([ad], ['fd00:20::17']), [router]);
    expect([...byPeer.get('router')!.keys()]).toEqual(['fd00:20::10/124']);
  });

  it('the same prefix from two advertisements: one route, communities united and sorted, the higher localPref', () => {
    const a = bgpAd('a', { localPref: 100, communityValues: [standard('65000:2'), large(7, 8, 9)] });
    const b = bgpAd('b', { localPref: 300, communityValues: [standard('65000:1'), standard('65000:2'), large(1, 2, 3)] });
    const byPeer = desiredRoutesByPeer(announce([a, b], ['192.168.20.100']), [router]);
    expect(summary(byPeer).router).toEqual([
      {
        prefix: '192.168.20.100/32',
        communities: [65000 * 65536 + 1, 65000 * 65536 + 2],
        large: ['1:2:3', '7:8:9'],
        localPref: 300,
      },
    ]);
    // Either order of the announcements gives the same route.
    const reversed = desiredRoutesByPeer(announce([b, a], ['192.168.20.100']), [router]);
    expect(summary(reversed)).toEqual(summary(byPeer));
  });

  it('a localPref set by one of two advertisements is kept', () => {
    const a = bgpAd('a');
    const b = bgpAd('b', { localPref: 50 });
    const byPeer = desiredRoutesByPeer(announce([a, b], ['192.168.20.100']), [router]);
    expect(byPeer.get('router')!.get('192.168.20.100/32')!.localPref).toBe(50);
  });

  it("the advertisement's peers filter: a route goes only to the peers it names", () => {
    const onlyTor = bgpAd('only-tor', { peers: ['tor'], communityValues: [standard('1:1')] });
    const everyone = bgpAd('everyone', { aggregationLength: 24 });
    const byPeer = desiredRoutesByPeer(announce([onlyTor, everyone], ['192.168.20.100'], [router, tor]), [router, tor]);
    expect([...byPeer.get('router')!.keys()]).toEqual(['192.168.20.0/24']);
    expect([...byPeer.get('tor')!.keys()]).toEqual(['192.168.20.0/24', '192.168.20.100/32']);
  });

  it('BGPPeer nodeSelectors: a peer that does not select this node has no session and gets nothing', () => {
    const spine = peer('spine', [sel({ role: 'spine' })]);
    const byPeer = desiredRoutesByPeer(announce([bgpAd('bgp')], ['192.168.20.100'], [router, spine]), [router]);
    expect([...byPeer.keys()]).toEqual(['router']);
    expect(byPeer.get('router')!.size).toBe(1);
  });

  it('a peer with a session and nothing to receive gets an empty map (its routes are to be withdrawn)', () => {
    const byPeer = desiredRoutesByPeer([], [router, tor]);
    expect([...byPeer]).toEqual([
      ['router', new Map()],
      ['tor', new Map()],
    ]);
  });

  it('announcements naming a peer without a session here are ignored', () => {
    const byPeer = desiredRoutesByPeer(announce([bgpAd('bgp')], ['192.168.20.100'], [router, tor]), [tor]);
    expect([...byPeer.keys()]).toEqual(['tor']);
  });

  it('routes come out in prefix order, IPv4 before IPv6', () => {
    const byPeer = desiredRoutesByPeer(announce([bgpAd('bgp')], ['fd00::1', '10.0.0.9', '10.0.0.10', '9.0.0.1']), [router]);
    expect([...byPeer.get('router')!.keys()]).toEqual(['9.0.0.1/32', '10.0.0.9/32', '10.0.0.10/32', 'fd00::1/128']);
  });

  it('a malformed community or prefix text is a SpeakerInputError with a stable code', () => {
    const base: BGPAnnouncement = {
      node: 'n',
      advertisement: 'a',
      prefix: '10.0.0.1/32',
      peers: ['router'],
      communities: [],
      localPref: null,
    };
    const bad = (a: Partial<BGPAnnouncement>) => {
      try {
        desiredRoutesByPeer([{ ...base, ...a }], [router]);
      } catch (e) {
        return (e as SpeakerInputError).code;
      }
      return 'no error';
    };
    expect(bad({ communities: ['65536:1'] })).toBe('badCommunityText');
    expect(bad({ communities: ['1:2:3:4'] })).toBe('badCommunityText');
    expect(bad({ prefix: '10.0.0.1' })).toBe('badPrefixText');
    expect(bad({})).toBe('no error');
  });
});
