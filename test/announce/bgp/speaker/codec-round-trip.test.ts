// Every UPDATE the speaker produces, through the real codec: it encodes to exactly the size the speaker planned
// with (so packing never overshoots 4096 bytes on the wire), and decoding gives back the same routes.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatCIDR, makeCIDR } from '../../../../src/ip';
import type { BgpUpdate } from '../../../../src/announce/bgp/bgp-messages';
import { decodeMessage, encodeMessage } from '../../../../src/announce/bgp/codec';
import {
  emptyAdjRibOut,
  initialSync,
  reconcile,
  updateBytes,
  type RouteIntent,
  type SpeakerSession,
} from '../../../../src/announce/bgp/speaker';
import {
  applyUpdates,
  COMMUNITY_64512_100,
  DUAL_STACK_EBGP,
  expectedRib,
  route,
  routes,
  IPV4_EBGP,
  IPV4_IBGP,
  sortedEntries,
} from './receiving-rib';

const OPTIONS = { fourOctetAsn: true };

function throughCodec(updates: readonly BgpUpdate[]): BgpUpdate[] {
  return updates.map((u) => {
    const bytes = encodeMessage(u, OPTIONS);
    expect(bytes.length).toBe(updateBytes(u));
    expect(bytes.length).toBeLessThanOrEqual(4096);
    const decoded = decodeMessage(bytes, OPTIONS);
    if (!decoded.ok) throw decoded.error;
    expect(decoded.treatAsWithdraw).toBeUndefined();
    expect(decoded.message.type).toBe('update');
    return decoded.message as BgpUpdate;
  });
}

function roundTrips(desired: ReadonlyMap<string, RouteIntent>, session: SpeakerSession): void {
  const { updates } = initialSync(desired, session);
  const decoded = throughCodec(updates);
  expect(sortedEntries(applyUpdates(new Map(), decoded))).toEqual(sortedEntries(applyUpdates(new Map(), updates)));
  expect(sortedEntries(applyUpdates(new Map(), decoded))).toEqual(sortedEntries(expectedRib(desired, session)));
  const gone = throughCodec(reconcile(initialSync(desired, session).state, routes(), session).updates);
  expect(applyUpdates(applyUpdates(new Map(), decoded), gone).size).toBe(0);
}

describe('speaker UPDATEs through the codec', () => {
  it("MetalLB's 55-byte announcement encodes to the bytes tcpdump showed", () => {
    const [u] = reconcile(emptyAdjRibOut(), routes(route('192.168.20.100/32', { communities: [COMMUNITY_64512_100] })), IPV4_EBGP).updates;
    const hex = Buffer.from(encodeMessage(u!, OPTIONS)).toString('hex');
    expect(hex.length / 2).toBe(55);
    // ORIGIN IGP, AS_PATH 0201 0000fc00, NEXT_HOP c0a80a14, COMMUNITIES fc000064, in any attribute order.
    for (const attr of ['40010100', '4002060201' + '0000fc00', '400304c0a80a14', 'c00804fc000064']) expect(hex).toContain(attr);
    expect(hex.endsWith('20c0a81464')).toBe(true);
  });

  it('a /32, an aggregated /30 and a /128 round-trip on eBGP, iBGP and dual stack', () => {
    const desired = routes(
      route('192.168.20.100/32', { communities: [COMMUNITY_64512_100], localPref: 200 }),
      route('192.168.20.100/30', { largeCommunities: [[64512, 1, 2]] }),
      route('fd00:20::1/128', { communities: [1, 2] }),
    );
    for (const s of [IPV4_EBGP, IPV4_IBGP, DUAL_STACK_EBGP]) roundTrips(desired, s);
  });

  it('10,000 IPv4 and 10,000 IPv6 prefixes: every full message encodes within 4096 bytes', () => {
    const v4 = Array.from({ length: 10_000 }, (_, i) =>
      route(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/32`, { communities: [i % 7] }),
    );
    const v6 = Array.from({ length: 10_000 }, (_, i) => route(`fd00:20::${i.toString(16)}/128`, { localPref: i % 3 === 0 ? null : 150 }));
    roundTrips(routes(...v4, ...v6), { ...DUAL_STACK_EBGP, ibgp: true });
  });

  it('random routes and sessions', () => {
    const intent = fc
      .record({
        family: fc.constantFrom(4, 6),
        host: fc.integer({ min: 0, max: 0xffff }),
        len: fc.integer({ min: 0, max: 128 }),
        communities: fc.uniqueArray(fc.integer({ min: 0, max: 0xffff_ffff }), { maxLength: 80 }),
        large: fc.uniqueArray(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { maxLength: 25, selector: (t) => t.join(':') }),
        localPref: fc.option(fc.integer({ min: 0, max: 0xffff_ffff }), { nil: null }),
      })
      .map(({ family, host, len, communities, large, localPref }): RouteIntent => ({
        prefix:
          family === 4
            ? makeCIDR({ family: 4, value: BigInt(0x0a000000 + host) }, len % 33)
            : makeCIDR({ family: 6, value: (0xfd00n << 112n) + BigInt(host) }, len),
        communities,
        largeCommunities: large as [number, number, number][],
        localPref,
      }));
    const desired = fc.array(intent, { maxLength: 40 }).map((rs) => new Map(rs.map((r) => [formatCIDR(r.prefix), r] as const)));
    fc.assert(
      fc.property(desired, fc.boolean(), (d, ibgp) => roundTrips(d, { ...DUAL_STACK_EBGP, ibgp })),
      { numRuns: 100 },
    );
  });
});
