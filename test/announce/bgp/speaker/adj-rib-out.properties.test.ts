// fast-check properties of the reconciler: whatever the desired routes and the session, the UPDATEs it produces
// bring a receiving RIB to exactly the desired routes, each message fits 4096 bytes, routes that stay are never
// withdrawn, and reconciling again sends nothing.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatCIDR, makeCIDR, type IP } from '../../../../src/ip';
import type { LargeCommunity } from '../../../../src/announce/bgp/bgp-messages';
import {
  emptyAdjRibOut,
  initialSync,
  reconcile,
  resync,
  type RouteIntent,
  type SpeakerSession,
} from '../../../../src/announce/bgp/speaker';
import { applyUpdates, expectedRib, ip, sortedEntries } from './receiving-rib';

const v4Prefix = fc
  .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 255 }), fc.constantFrom(24, 30, 31, 32))
  .map(([c, d, len]) => makeCIDR({ family: 4, value: BigInt(0x0a000000 + c * 256 + d) }, len));
const v6Prefix = fc
  .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(64, 120, 124, 128))
  .map(([net, host, len]) => makeCIDR({ family: 6, value: (0xfd00n << 112n) + (BigInt(net) << 64n) + BigInt(host) }, len));

const sortedNumbers = (max: number) => fc.uniqueArray(fc.integer({ min: 0, max }), { maxLength: 4 }).map((a) => a.sort((x, y) => x - y));
const large = fc
  .uniqueArray(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 })), {
    maxLength: 2,
    selector: (t) => t.join(':'),
  })
  .map((a) => (a as LargeCommunity[]).sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]));

/** Few distinct attribute sets, so routes share messages. */
const intentFor = (prefix: fc.Arbitrary<RouteIntent['prefix']>): fc.Arbitrary<RouteIntent> =>
  fc.record({
    prefix,
    communities: sortedNumbers(3),
    largeCommunities: large,
    localPref: fc.constantFrom(null, 0, 100, 200),
  });

const desiredOf = (maxLength: number) =>
  fc
    .array(intentFor(fc.oneof(v4Prefix, v6Prefix)), { maxLength })
    .map((intents) => new Map(intents.map((r) => [formatCIDR(r.prefix), r] as const)));

const session: fc.Arbitrary<SpeakerSession> = fc
  .record({
    ibgp: fc.boolean(),
    localAsn: fc.constantFrom(64512, 4_200_000_000),
    v6NextHop: fc.boolean(),
    families: fc.constantFrom<('ipv4' | 'ipv6')[]>(['ipv4'], ['ipv6'], ['ipv4', 'ipv6']),
  })
  .map(({ ibgp, localAsn, v6NextHop, families }) => ({
    ibgp,
    localAsn,
    fourOctet: true as const,
    families,
    nextHopV4: ip('192.168.10.20'),
    ...(v6NextHop ? { nextHopV6: ip('fd00:213::20') as IP } : {}),
  }));

describe('reconcile properties', () => {
  it('from an empty Adj-RIB-Out the UPDATEs give the peer exactly the desired routes', () => {
    fc.assert(
      fc.property(desiredOf(60), session, (desired, s) => {
        const { updates } = reconcile(emptyAdjRibOut(), desired, s);
        expect(sortedEntries(applyUpdates(new Map(), updates))).toEqual(sortedEntries(expectedRib(desired, s)));
      }),
      { numRuns: 300 },
    );
  });

  it('from any desired set A to any B: the peer ends with B, routes kept are never withdrawn, and again sends nothing', () => {
    fc.assert(
      fc.property(desiredOf(40), desiredOf(40), session, (a, b, s) => {
        const first = reconcile(emptyAdjRibOut(), a, s);
        const rib = applyUpdates(new Map(), first.updates);
        const second = reconcile(first.state, b, s);
        applyUpdates(rib, second.updates);
        const wanted = expectedRib(b, s);
        expect(sortedEntries(rib)).toEqual(sortedEntries(wanted));
        const withdrawn = second.updates.flatMap((u) => [...u.withdrawn, ...(u.attributes.mpUnreach?.withdrawn ?? [])]).map(formatCIDR);
        expect(withdrawn.filter((p) => wanted.has(p))).toEqual([]);
        expect(reconcile(second.state, b, s).updates).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('initialSync: the desired routes and an End-of-RIB per negotiated family; resync re-sends the same routes', () => {
    fc.assert(
      fc.property(desiredOf(40), session, (desired, s) => {
        const step = initialSync(desired, s);
        const rib = applyUpdates(new Map(), step.updates);
        expect(sortedEntries(rib)).toEqual(sortedEntries(expectedRib(desired, s)));
        const eors = step.updates.slice(-s.families.length);
        expect(eors.every((u) => u.nlri.length === 0 && u.withdrawn.length === 0 && !u.attributes.mpReach)).toBe(true);
        expect(sortedEntries(applyUpdates(new Map(), resync(step.state)))).toEqual(sortedEntries(rib));
        expect(sortedEntries(applyUpdates(new Map(rib), resync(step.state)))).toEqual(sortedEntries(rib));
      }),
      { numRuns: 200 },
    );
  });

  it('thousands of routes: many full messages, all within 4096 bytes, still exactly the desired routes', () => {
    const big = fc
      .uniqueArray(fc.integer({ min: 0, max: 200_000 }), { minLength: 1000, maxLength: 4000 })
      .chain((hosts) =>
        fc.tuple(fc.constant(hosts), fc.array(intentFor(fc.constant(makeCIDR(ip('0.0.0.0'), 32))), { minLength: 1, maxLength: 4 })),
      )
      .map(
        ([hosts, variants]) =>
          new Map(
            hosts.map((h, i) => {
              const prefix =
                h % 2 === 0
                  ? makeCIDR({ family: 4, value: BigInt(0x0a000000 + h) }, 32)
                  : makeCIDR({ family: 6, value: (0xfd00n << 112n) + BigInt(h) }, 128);
              return [formatCIDR(prefix), { ...(variants[i % variants.length] as RouteIntent), prefix }] as const;
            }),
          ),
      );
    fc.assert(
      fc.property(big, session, (desired, s) => {
        const { updates } = reconcile(emptyAdjRibOut(), desired, s);
        expect(sortedEntries(applyUpdates(new Map(), updates))).toEqual(sortedEntries(expectedRib(desired, s)));
      }),
      { numRuns: 15, endOnFailure: true },
    );
  });
});
