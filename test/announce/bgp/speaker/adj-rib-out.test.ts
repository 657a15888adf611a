// The Adj-RIB-Out reconciler: the UPDATEs a peer receives as the desired routes change, checked against
// captures of MetalLB v0.16 talking to FRR 8.4, and by applying them to a receiving RIB.
import { describe, expect, it } from 'vitest';
import { formatCIDR, type CIDR } from '../../../../src/ip';
import type { BgpUpdate } from '../../../../src/announce/bgp/bgp-messages';
import { emptyAdjRibOut, initialSync, reconcile, resync, updateBytes, type RouteIntent } from '../../../../src/announce/bgp/speaker';
import {
  applyUpdates,
  COMMUNITY_64512_100,
  DUAL_STACK_EBGP,
  expectedRib,
  ip,
  route,
  routes,
  IPV4_EBGP,
  IPV4_IBGP,
  sortedEntries,
  type ReceivedRoute,
} from './receiving-rib';

const texts = (cs: readonly CIDR[]) => cs.map(formatCIDR);
const allNlri = (us: readonly BgpUpdate[]) => us.flatMap((u) => [...texts(u.nlri), ...texts(u.attributes.mpReach?.nlri ?? [])]);
const allWithdrawn = (us: readonly BgpUpdate[]) =>
  us.flatMap((u) => [...texts(u.withdrawn), ...texts(u.attributes.mpUnreach?.withdrawn ?? [])]);

describe('reconcile: as MetalLB against FRR 8.4', () => {
  const withCommunity = routes(route('192.168.20.100/32', { communities: [COMMUNITY_64512_100], localPref: 200 }));

  it('eBGP: the UPDATE carries ORIGIN IGP, AS_PATH 64512, the local next hop and the community, no LOCAL_PREF (55 bytes)', () => {
    const step = reconcile(emptyAdjRibOut(), withCommunity, IPV4_EBGP);
    expect(step.updates).toEqual([
      {
        type: 'update',
        withdrawn: [],
        nlri: [withCommunity.get('192.168.20.100/32')!.prefix],
        attributes: {
          origin: 'igp',
          asPath: [{ type: 'sequence', asns: [64512] }],
          nextHop: ip('192.168.10.20'),
          communities: [COMMUNITY_64512_100],
        },
      },
    ]);
    expect(updateBytes(step.updates[0]!)).toBe(55);
    expect(step.announced).toEqual([{ prefix: '192.168.20.100/32', reason: 'new' }]);
  });

  it('iBGP: an empty AS_PATH and LOCAL_PREF 200', () => {
    const [u] = reconcile(emptyAdjRibOut(), withCommunity, IPV4_IBGP).updates;
    expect(u!.attributes.asPath).toEqual([]);
    expect(u!.attributes.localPref).toBe(200);
  });

  it('iBGP without a localPref: LOCAL_PREF 0, as MetalLB writes its unset field', () => {
    const [u] = reconcile(emptyAdjRibOut(), routes(route('192.168.20.100/32')), IPV4_IBGP).updates;
    expect(u!.attributes.localPref).toBe(0);
  });

  it('aggregationLength 30: the /30 is announced first, then the /32 withdrawn (55 then 28 bytes)', () => {
    const before = reconcile(emptyAdjRibOut(), withCommunity, IPV4_EBGP).state;
    const step = reconcile(before, routes(route('192.168.20.100/30', { communities: [COMMUNITY_64512_100] })), IPV4_EBGP);
    expect(step.updates.map((u) => [allNlri([u]), allWithdrawn([u]), updateBytes(u)])).toEqual([
      [['192.168.20.100/30'], [], 55],
      [[], ['192.168.20.100/32'], 28],
    ]);
    expect(step.withdrawn).toEqual([{ prefix: '192.168.20.100/32', reason: 'notDesired' }]);
  });

  it("the exclusion label: the node's desired set shrinks, so only withdrawals go out and the session stays", () => {
    const two = routes(route('192.168.20.100/32'), route('192.168.20.101/32'));
    const before = reconcile(emptyAdjRibOut(), two, IPV4_EBGP).state;
    const step = reconcile(before, routes(), IPV4_EBGP);
    expect(step.announced).toEqual([]);
    expect(step.updates).toHaveLength(1);
    expect(step.updates[0]!.attributes).toEqual({});
    expect(allWithdrawn(step.updates)).toEqual(['192.168.20.100/32', '192.168.20.101/32']);
    expect(step.state.routes.size).toBe(0);
  });

  it('one service of two excluded: only its route is withdrawn', () => {
    const two = routes(route('192.168.20.100/32'), route('192.168.20.101/32'));
    const before = reconcile(emptyAdjRibOut(), two, IPV4_EBGP).state;
    const step = reconcile(before, routes(route('192.168.20.101/32')), IPV4_EBGP);
    expect(step.updates.map((u) => updateBytes(u))).toEqual([28]);
    expect(allWithdrawn(step.updates)).toEqual(['192.168.20.100/32']);
    expect([...step.state.routes.keys()]).toEqual(['192.168.20.101/32']);
  });
});

describe('reconcile: changes', () => {
  const base = routes(route('10.0.0.1/32', { communities: [1] }), route('10.0.0.2/32', { communities: [1] }));
  const sent = () => reconcile(emptyAdjRibOut(), base, IPV4_IBGP).state;

  it('a change of communities re-announces the route and withdraws nothing (RFC 4271 implicit withdrawal)', () => {
    const changed = routes(route('10.0.0.1/32', { communities: [1, 2] }), route('10.0.0.2/32', { communities: [1] }));
    const step = reconcile(sent(), changed, IPV4_IBGP);
    expect(step.announced).toEqual([{ prefix: '10.0.0.1/32', reason: 'attributesChanged' }]);
    expect(step.withdrawn).toEqual([]);
    expect(step.updates).toHaveLength(1);
    expect(step.updates[0]!.attributes.communities).toEqual([1, 2]);
    expect(allWithdrawn(step.updates)).toEqual([]);
  });

  it('a change of localPref re-announces on iBGP, and sends nothing on eBGP where LOCAL_PREF is not sent', () => {
    const changed = routes(route('10.0.0.1/32', { communities: [1], localPref: 300 }), route('10.0.0.2/32', { communities: [1] }));
    expect(allNlri(reconcile(sent(), changed, IPV4_IBGP).updates)).toEqual(['10.0.0.1/32']);
    const ebgp = reconcile(emptyAdjRibOut(), base, IPV4_EBGP).state;
    expect(reconcile(ebgp, changed, IPV4_EBGP).updates).toEqual([]);
  });

  it('reconciling the same desired set again sends nothing', () => {
    const first = reconcile(emptyAdjRibOut(), base, IPV4_IBGP);
    expect(first.updates.length).toBeGreaterThan(0);
    const second = reconcile(first.state, base, IPV4_IBGP);
    expect(second.updates).toEqual([]);
    expect(second.announced).toEqual([]);
  });

  it('routes with identical attributes share one UPDATE; different attributes get their own', () => {
    const mixed = routes(
      route('10.0.0.3/32', { communities: [7] }),
      route('10.0.0.1/32', { communities: [7] }),
      route('10.0.0.2/32', { communities: [8] }),
    );
    const { updates } = reconcile(emptyAdjRibOut(), mixed, IPV4_EBGP);
    expect(updates.map((u) => [u.attributes.communities, texts(u.nlri)])).toEqual([
      [[7], ['10.0.0.1/32', '10.0.0.3/32']],
      [[8], ['10.0.0.2/32']],
    ]);
  });

  it('communities and large communities go out sorted', () => {
    const r = routes(
      route('10.0.0.1/32', {
        communities: [5, 1, 3],
        largeCommunities: [
          [2, 0, 0],
          [1, 9, 9],
        ],
      }),
    );
    const [u] = reconcile(emptyAdjRibOut(), r, IPV4_EBGP).updates;
    expect(u!.attributes.communities).toEqual([1, 3, 5]);
    expect(u!.attributes.largeCommunities).toEqual([
      [1, 9, 9],
      [2, 0, 0],
    ]);
  });
});

describe('reconcile: IPv6', () => {
  const v6 = routes(route('fd00:20::1/128', { communities: [COMMUNITY_64512_100] }), route('192.168.20.100/32'));

  it('IPv6 prefixes travel in MP_REACH_NLRI with the IPv6 next hop and no NEXT_HOP attribute', () => {
    const { updates } = reconcile(emptyAdjRibOut(), v6, DUAL_STACK_EBGP);
    const mp = updates.find((u) => u.attributes.mpReach)!;
    expect(mp.nlri).toEqual([]);
    expect(mp.attributes.nextHop).toBeUndefined();
    expect(mp.attributes.mpReach).toEqual({ afi: 2, safi: 1, nextHops: [ip('fd00:213::20')], nlri: [v6.get('fd00:20::1/128')!.prefix] });
    expect(mp.attributes.communities).toEqual([COMMUNITY_64512_100]);
    const v4 = updates.find((u) => u.nlri.length > 0)!;
    expect(v4.attributes.nextHop).toEqual(ip('192.168.10.20'));
    expect(updates).toHaveLength(2);
  });

  it('withdrawing an IPv6 prefix uses MP_UNREACH_NLRI', () => {
    const before = reconcile(emptyAdjRibOut(), v6, DUAL_STACK_EBGP).state;
    const { updates } = reconcile(before, routes(route('192.168.20.100/32')), DUAL_STACK_EBGP);
    expect(updates).toEqual([
      {
        type: 'update',
        withdrawn: [],
        nlri: [],
        attributes: { mpUnreach: { afi: 2, safi: 1, withdrawn: [v6.get('fd00:20::1/128')!.prefix] } },
      },
    ]);
  });

  it('an IPv6 route is skipped, with its reason, when the session has no IPv6 next hop or did not negotiate IPv6', () => {
    const noNextHop = reconcile(emptyAdjRibOut(), v6, { ...DUAL_STACK_EBGP, nextHopV6: undefined });
    expect(noNextHop.skipped).toEqual([{ prefix: 'fd00:20::1/128', reason: 'noNextHopForFamily' }]);
    expect(allNlri(noNextHop.updates)).toEqual(['192.168.20.100/32']);
    const notNegotiated = reconcile(emptyAdjRibOut(), v6, { ...DUAL_STACK_EBGP, families: ['ipv4'] });
    expect(notNegotiated.skipped).toEqual([{ prefix: 'fd00:20::1/128', reason: 'familyNotNegotiated' }]);
  });
});

describe('initialSync and resync', () => {
  const desired = routes(route('192.168.20.100/32'), route('fd00:20::1/128'));

  it('a new session gets everything, then End-of-RIB for each negotiated family (RFC 4724)', () => {
    const { updates, state } = initialSync(desired, DUAL_STACK_EBGP);
    expect(updates.slice(-2)).toEqual([
      { type: 'update', withdrawn: [], attributes: {}, nlri: [] },
      { type: 'update', withdrawn: [], nlri: [], attributes: { mpUnreach: { afi: 2, safi: 1, withdrawn: [] } } },
    ]);
    expect(allNlri(updates).sort()).toEqual(['192.168.20.100/32', 'fd00:20::1/128']);
    expect(state.routes.size).toBe(2);
    expect(initialSync(desired, IPV4_EBGP).updates.at(-1)).toEqual({ type: 'update', withdrawn: [], attributes: {}, nlri: [] });
    expect(initialSync(routes(), IPV4_EBGP).updates).toHaveLength(1);
  });

  it('after ROUTE-REFRESH the held routes are sent again, nothing withdrawn; one family when asked', () => {
    const { state, updates } = initialSync(desired, DUAL_STACK_EBGP);
    expect(resync(state)).toEqual(updates.slice(0, -2));
    expect(allNlri(resync(state, 'ipv6'))).toEqual(['fd00:20::1/128']);
    expect(allWithdrawn(resync(state))).toEqual([]);
  });
});

describe('batching: 10,000 services', () => {
  const many = (n: number, spec: (i: number) => Partial<Omit<RouteIntent, 'prefix'>> = () => ({})) =>
    routes(...Array.from({ length: n }, (_, i) => route(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/32`, spec(i))));

  it('10,000 /32s with one set of attributes fill UPDATEs of at most 4096 bytes: 13 instead of 10,000', () => {
    const desired = many(10_000);
    const { updates } = reconcile(emptyAdjRibOut(), desired, IPV4_EBGP);
    // 4096 - 19 header - 4 length fields - 20 attribute bytes leaves room for 810 five-byte prefixes.
    expect(updates).toHaveLength(Math.ceil(10_000 / 810));
    expect(updates.every((u) => updateBytes(u) <= 4096)).toBe(true);
    expect(updateBytes(updates[0]!)).toBe(4096 - 3);
    const rib = applyUpdates(new Map(), updates);
    expect(sortedEntries(rib)).toEqual(sortedEntries(expectedRib(desired, IPV4_EBGP)));
  });

  it('10,000 /32s in 100 community groups: one UPDATE per group, withdrawing them all takes 13', () => {
    const desired = many(10_000, (i) => ({ communities: [i % 100] }));
    const first = reconcile(emptyAdjRibOut(), desired, IPV4_IBGP);
    expect(first.updates).toHaveLength(100);
    const gone = reconcile(first.state, routes(), IPV4_IBGP);
    expect(gone.updates).toHaveLength(Math.ceil(10_000 / Math.floor((4096 - 23) / 5)));
    expect(gone.updates.every((u) => updateBytes(u) <= 4096)).toBe(true);
    expect(applyUpdates(applyUpdates(new Map(), first.updates), gone.updates).size).toBe(0);
  });

  it('10,000 IPv6 /128s fit MP_REACH_NLRI messages of at most 4096 bytes', () => {
    const desired = routes(...Array.from({ length: 10_000 }, (_, i) => route(`fd00:20::${i.toString(16)}/128`)));
    const { updates } = reconcile(emptyAdjRibOut(), desired, DUAL_STACK_EBGP);
    expect(updates.every((u) => updateBytes(u) <= 4096)).toBe(true);
    expect(updates.length).toBe(Math.ceil(10_000 / Math.floor((4096 - 23 - 4 - 9 - 4 - 21) / 17)));
    const rib = applyUpdates(new Map(), updates);
    expect(sortedEntries(rib)).toEqual(sortedEntries(expectedRib(desired, DUAL_STACK_EBGP)));
  });

  it('a route whose attributes cannot fit one message is skipped with attributesTooLarge, the rest still go', () => {
    const desired = routes(route('10.0.0.1/32', { communities: Array.from({ length: 1100 }, (_, i) => i) }), route('10.0.0.2/32'));
    const step = reconcile(emptyAdjRibOut(), desired, IPV4_EBGP);
    expect(step.skipped).toEqual([{ prefix: '10.0.0.1/32', reason: 'attributesTooLarge' }]);
    expect(allNlri(step.updates)).toEqual(['10.0.0.2/32']);
    const rib: Map<string, ReceivedRoute> = applyUpdates(new Map(), step.updates);
    expect([...rib.keys()]).toEqual(['10.0.0.2/32']);
  });

  it('a held route that can no longer be sent is withdrawn with that reason', () => {
    const before = reconcile(emptyAdjRibOut(), routes(route('fd00::1/128')), DUAL_STACK_EBGP).state;
    const step = reconcile(before, routes(route('fd00::1/128')), { ...DUAL_STACK_EBGP, nextHopV6: undefined });
    expect(step.withdrawn).toEqual([{ prefix: 'fd00::1/128', reason: 'noNextHopForFamily' }]);
  });
});
