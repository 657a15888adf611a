/**
 * fast-check generators of well-formed BGP messages, within what the codec can represent exactly: every
 * generated message encodes, and decodes back to itself (no treat-as-withdraw, nothing discarded).
 */
import fc from 'fast-check';
import type { AsPathSegment, BgpMessage, BgpOpen, BgpUpdate, Capability, PathAttributes } from '../../../../src/announce/bgp/bgp-messages';
import { isV4MappedValue, makeCIDR, type CIDR, type IP } from '../../../../src/ip';

/** Attribute types the codec interprets (or validates): `other` must avoid them to come back unchanged. */
const INTERPRETED_TYPES = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14, 15, 16, 17, 18, 32]);
const KNOWN_CAPABILITIES = new Set([1, 2, 64, 65]);

export const ipv4 = (): fc.Arbitrary<IP> => fc.integer({ min: 0, max: 0xffff_ffff }).map((v) => ({ family: 4 as const, value: BigInt(v) }));
/** A host address: not 0/8 and not 224/3 (RFC 7606 7.3 would treat those as withdraw). */
export const ipv4Host = (): fc.Arbitrary<IP> =>
  fc.integer({ min: 0x0100_0000, max: 0xdfff_ffff }).map((v) => ({ family: 4 as const, value: BigInt(v) }));
export const ipv6 = (): fc.Arbitrary<IP> =>
  fc
    .bigInt({ min: 0n, max: (1n << 128n) - 1n })
    .filter((v) => !isV4MappedValue(v))
    .map((value) => ({ family: 6 as const, value }));
export const cidr4 = (): fc.Arbitrary<CIDR> => fc.tuple(ipv4(), fc.integer({ min: 0, max: 32 })).map(([ip, p]) => makeCIDR(ip, p));
export const cidr6 = (): fc.Arbitrary<CIDR> => fc.tuple(ipv6(), fc.integer({ min: 0, max: 128 })).map(([ip, p]) => makeCIDR(ip, p));

const u32 = () => fc.integer({ min: 0, max: 0xffff_ffff });
const asn = (fourOctet: boolean) => fc.integer({ min: 1, max: fourOctet ? 0xffff_ffff : 0xffff });

export const asPath = (fourOctet: boolean): fc.Arbitrary<AsPathSegment[]> =>
  fc.array(
    fc.record({
      type: fc.constantFrom('sequence' as const, 'set' as const),
      asns: fc.array(asn(fourOctet), { minLength: 1, maxLength: 12 }),
    }),
    { maxLength: 3 },
  );

const other = () =>
  fc
    .uniqueArray(
      fc.record({
        // Optional bit set (an unknown well-known attribute would reset the session); low nibble zero (RFC 4271 4.3).
        flags: fc.constantFrom(0x80, 0xc0, 0xe0, 0x90, 0xd0),
        type: fc.integer({ min: 0, max: 255 }).filter((t) => !INTERPRETED_TYPES.has(t)),
        value: fc.uint8Array({ maxLength: 40 }),
      }),
      { maxLength: 3, selector: (o) => o.type },
    )
    .map((list) => [...list].sort((a, b) => a.type - b.type));

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

/** Drops undefined keys so toEqual compares what the decoder really returns. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const mpReach = () =>
  fc.oneof(
    fc.record({
      afi: fc.constant(2),
      safi: fc.constant(1),
      nextHops: fc.array(ipv6(), { minLength: 1, maxLength: 2 }),
      nlri: fc.array(cidr6(), { maxLength: 6 }),
    }),
    fc.record({ afi: fc.constant(1), safi: fc.constant(1), nextHops: ipv4().map((ip) => [ip]), nlri: fc.array(cidr4(), { maxLength: 6 }) }),
  );
const mpUnreach = () =>
  fc.oneof(
    fc.record({ afi: fc.constant(2), safi: fc.constant(1), withdrawn: fc.array(cidr6(), { maxLength: 6 }) }),
    fc.record({ afi: fc.constant(1), safi: fc.constant(1), withdrawn: fc.array(cidr4(), { maxLength: 6 }) }),
  );

export const update = (fourOctet: boolean): fc.Arbitrary<BgpUpdate> =>
  fc
    .record({
      withdrawn: fc.array(cidr4(), { maxLength: 8 }),
      nlri: fc.array(cidr4(), { maxLength: 8 }),
      origin: optional(fc.constantFrom('igp' as const, 'egp' as const, 'incomplete' as const)),
      asPath: optional(asPath(fourOctet)),
      nextHop: optional(ipv4Host()),
      med: optional(u32()),
      localPref: optional(u32()),
      communities: optional(fc.array(u32(), { minLength: 1, maxLength: 6 })),
      largeCommunities: optional(fc.array(fc.tuple(u32(), u32(), u32()), { minLength: 1, maxLength: 4 })),
      mpReach: optional(mpReach()),
      mpUnreach: optional(mpUnreach()),
      other: optional(other().filter((o) => o.length > 0)),
    })
    .map(({ withdrawn, nlri, ...a }) => {
      // RFC 7606 3 item d: reachable prefixes need ORIGIN and AS_PATH (and NEXT_HOP for the IPv4 field).
      const reachable = nlri.length > 0 || (a.mpReach?.nlri.length ?? 0) > 0;
      const attributes: PathAttributes = defined({
        ...a,
        origin: a.origin ?? (reachable ? 'igp' : undefined),
        asPath: a.asPath ?? (reachable ? [] : undefined),
        nextHop: a.nextHop ?? (nlri.length > 0 ? { family: 4 as const, value: 0x0ad50002n } : undefined),
      });
      return { type: 'update' as const, withdrawn, attributes, nlri };
    });

const capability = (): fc.Arbitrary<Capability> =>
  fc.oneof(
    fc.record({
      code: fc.constant('multiprotocol' as const),
      afi: fc.integer({ min: 0, max: 0xffff }),
      safi: fc.integer({ min: 0, max: 255 }),
    }),
    fc.constant({ code: 'routeRefresh' as const }),
    fc.record({ code: fc.constant('fourOctetAsn' as const), asn: fc.integer({ min: 1, max: 0xffff_ffff }) }),
    fc.record({
      code: fc.constant('gracefulRestart' as const),
      restartFlags: fc.integer({ min: 0, max: 15 }),
      restartTimeSeconds: fc.integer({ min: 0, max: 4095 }),
      families: fc.array(
        fc.record({
          afi: fc.integer({ min: 0, max: 0xffff }),
          safi: fc.integer({ min: 0, max: 255 }),
          flags: fc.integer({ min: 0, max: 255 }),
        }),
        { maxLength: 4 },
      ),
    }),
    fc.record({
      code: fc.constant('unknown' as const),
      type: fc.integer({ min: 0, max: 255 }).filter((t) => !KNOWN_CAPABILITIES.has(t)),
      value: fc.uint8Array({ maxLength: 12 }),
    }),
  );

export const open = (): fc.Arbitrary<BgpOpen> =>
  fc.record({
    type: fc.constant('open' as const),
    version: fc.constant(4),
    myAs: fc.integer({ min: 1, max: 0xffff }),
    holdTimeSeconds: fc.oneof(fc.constant(0), fc.integer({ min: 3, max: 0xffff })),
    bgpIdentifier: fc.integer({ min: 1, max: 0xffff_ffff }).map((v) => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.')),
    capabilities: fc.array(capability(), { maxLength: 8 }),
  });

export const message = (fourOctet: boolean): fc.Arbitrary<BgpMessage> =>
  fc.oneof(
    open(),
    update(fourOctet),
    fc.record({
      type: fc.constant('notification' as const),
      code: fc.integer({ min: 0, max: 255 }),
      subcode: fc.integer({ min: 0, max: 255 }),
      data: fc.uint8Array({ maxLength: 64 }),
    }),
    fc.constant({ type: 'keepalive' as const }),
    fc.record({
      type: fc.constant('routeRefresh' as const),
      afi: fc.integer({ min: 0, max: 0xffff }),
      safi: fc.integer({ min: 0, max: 255 }),
    }),
  );
