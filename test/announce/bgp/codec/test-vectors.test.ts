import { describe, expect, it } from 'vitest';
import { decodeMessage, encodeMessage, endOfRib, endOfRibFamily, isEndOfRib } from '../../../../src/announce/bgp/codec';
import { Afi, AS_TRANS, Safi, type BgpMessage, type BgpUpdate } from '../../../../src/announce/bgp/bgp-messages';
import { formatCIDR, formatIP } from '../../../../src/ip';
import {
  cidr,
  END_OF_RIB_IPV4,
  END_OF_RIB_IPV6,
  hex,
  ip,
  KEEPALIVE,
  MARKER,
  NOTIFICATION_SHUTDOWN,
  OPEN_ALL_CAPABILITIES,
  ROUTE_REFRESH_IPV6,
  METALLB_CAPTURED_UPDATE,
  METALLB_CAPTURED_WITHDRAW,
  toHex,
  UPDATE_ALL_ATTRIBUTES,
  UPDATE_IPV6_LINK_LOCAL,
  UPDATE_IPV6_WITHDRAW,
} from './bgp-vectors';

const FOUR = { fourOctetAsn: true };
const TWO = { fourOctetAsn: false };

function decoded(bytes: Uint8Array, options = FOUR): BgpMessage {
  const result = decodeMessage(bytes, options);
  if (!result.ok) throw new Error(result.error.message);
  expect(result.treatAsWithdraw).toBeUndefined();
  return result.message;
}

function update(bytes: Uint8Array, options = FOUR): BgpUpdate {
  const m = decoded(bytes, options);
  if (m.type !== 'update') throw new Error(`not an UPDATE: ${m.type}`);
  return m;
}

const ALL_ATTRIBUTES_UPDATE: BgpUpdate = {
  type: 'update',
  withdrawn: [cidr('10.0.0.0/8')],
  attributes: {
    origin: 'igp',
    asPath: [
      { type: 'sequence', asns: [64512, 4200000001] },
      { type: 'set', asns: [65001, 65002] },
    ],
    nextHop: ip('10.213.0.2'),
    med: 5,
    localPref: 100,
    communities: [65000 * 65536 + 100, 0xffffff01],
    largeCommunities: [[64512, 1, 2]],
    other: [{ flags: 0xc0, type: 99, value: hex('abcd') }],
  },
  nlri: [cidr('192.168.10.200/32'), cidr('10.213.9.0/24')],
};

describe('BGP test vectors (RFC formats, written by hand)', () => {
  it('OPEN with multiprotocol IPv4/IPv6, route refresh, 4-octet ASN and graceful restart, both ways', () => {
    const open: BgpMessage = {
      type: 'open',
      version: 4,
      myAs: AS_TRANS,
      holdTimeSeconds: 90,
      bgpIdentifier: '10.213.0.2',
      capabilities: [
        { code: 'multiprotocol', afi: Afi.ipv4, safi: Safi.unicast },
        { code: 'multiprotocol', afi: Afi.ipv6, safi: Safi.unicast },
        { code: 'routeRefresh' },
        { code: 'fourOctetAsn', asn: 4200000001 },
        {
          code: 'gracefulRestart',
          restartFlags: 0,
          restartTimeSeconds: 120,
          families: [
            { afi: 1, safi: 1, flags: 0 },
            { afi: 2, safi: 1, flags: 0 },
          ],
        },
      ],
    };
    expect(toHex(encodeMessage(open, FOUR))).toBe(toHex(OPEN_ALL_CAPABILITIES));
    expect(decoded(OPEN_ALL_CAPABILITIES)).toEqual(open);
  });

  it('UPDATE with every attribute: withdrawn, ORIGIN, AS_SEQUENCE + AS_SET, NEXT_HOP, MED, LOCAL_PREF, communities, large communities, an unknown one', () => {
    expect(toHex(encodeMessage(ALL_ATTRIBUTES_UPDATE, FOUR))).toBe(toHex(UPDATE_ALL_ATTRIBUTES));
    const u = update(UPDATE_ALL_ATTRIBUTES);
    expect(u).toEqual(ALL_ATTRIBUTES_UPDATE);
    expect(u.nlri.map(formatCIDR)).toEqual(['192.168.10.200/32', '10.213.9.0/24']);
    expect(isEndOfRib(u)).toBe(false);
  });

  it('IPv6 MP_REACH_NLRI with a global and a link-local next hop (32 octets)', () => {
    const u = update(UPDATE_IPV6_LINK_LOCAL);
    expect(u.attributes.mpReach?.nextHops.map(formatIP)).toEqual(['fd00:213::2', 'fe80::ff:fe00:b02']);
    expect(u.attributes.mpReach?.nlri.map(formatCIDR)).toEqual(['fd00:213:9::1/128', 'fd00:213:9::/64']);
    expect(u.attributes.nextHop).toBeUndefined();
    // MP_REACH_NLRI goes first (RFC 7606 5.1), the rest in type order.
    expect(toHex(encodeMessage(u, FOUR))).toBe(toHex(UPDATE_IPV6_LINK_LOCAL));
  });

  it('IPv6 MP_REACH_NLRI with one 16-octet next hop', () => {
    const u: BgpUpdate = {
      type: 'update',
      withdrawn: [],
      nlri: [],
      attributes: {
        origin: 'igp',
        asPath: [],
        mpReach: { afi: 2, safi: 1, nextHops: [ip('fd00:213::2')], nlri: [cidr('fd00:213:9::1/128')] },
      },
    };
    const bytes = encodeMessage(u, FOUR);
    expect(toHex(bytes)).toBe(
      toHex(
        hex(`${MARKER} 0047 02 0000 0030   # length 71; attributes 48
      80 0e 26 0002 01 10 fd000213000000000000000000000002 00 80 fd000213000900000000000000000001
      40 01 01 00
      40 02 00`),
      ),
    );
    expect(update(bytes)).toEqual(u);
  });

  it('IPv6 MP_UNREACH_NLRI withdrawal', () => {
    const u = update(UPDATE_IPV6_WITHDRAW);
    expect(u.attributes.mpUnreach?.withdrawn.map(formatCIDR)).toEqual(['fd00:213:9::1/128']);
    expect(isEndOfRib(u)).toBe(false);
    expect(toHex(encodeMessage(u, FOUR))).toBe(toHex(UPDATE_IPV6_WITHDRAW));
  });

  it('End-of-RIB: the empty UPDATE for IPv4, an empty MP_UNREACH_NLRI for IPv6', () => {
    expect(toHex(encodeMessage(endOfRib(Afi.ipv4, Safi.unicast), FOUR))).toBe(toHex(END_OF_RIB_IPV4));
    expect(toHex(encodeMessage(endOfRib(Afi.ipv6, Safi.unicast), FOUR))).toBe(toHex(END_OF_RIB_IPV6));
    expect(endOfRibFamily(update(END_OF_RIB_IPV4))).toEqual({ afi: 1, safi: 1 });
    expect(endOfRibFamily(update(END_OF_RIB_IPV6))).toEqual({ afi: 2, safi: 1 });
  });

  it('NOTIFICATION, KEEPALIVE and ROUTE-REFRESH, both ways', () => {
    const notification: BgpMessage = { type: 'notification', code: 6, subcode: 2, data: hex('0b 6d61696e74656e616e6365') };
    expect(toHex(encodeMessage(notification, FOUR))).toBe(toHex(NOTIFICATION_SHUTDOWN));
    expect(decoded(NOTIFICATION_SHUTDOWN)).toEqual(notification);
    expect(toHex(encodeMessage({ type: 'keepalive' }, FOUR))).toBe(toHex(KEEPALIVE));
    expect(decoded(KEEPALIVE)).toEqual({ type: 'keepalive' });
    expect(toHex(encodeMessage({ type: 'routeRefresh', afi: 2, safi: 1 }, FOUR))).toBe(toHex(ROUTE_REFRESH_IPV6));
    expect(decoded(ROUTE_REFRESH_IPV6)).toEqual({ type: 'routeRefresh', afi: 2, safi: 1 });
  });

  it('reproduces a captured UPDATE MetalLB sent FRR byte for byte, and reads its withdrawal (not an End-of-RIB)', () => {
    const metallb: BgpUpdate = {
      type: 'update',
      withdrawn: [],
      nlri: [cidr('192.168.20.100/32')],
      attributes: {
        origin: 'igp',
        asPath: [{ type: 'sequence', asns: [64512] }],
        nextHop: ip('192.168.10.20'),
        communities: [64512 * 65536 + 100],
      },
    };
    expect(toHex(encodeMessage(metallb, FOUR))).toBe(toHex(METALLB_CAPTURED_UPDATE));
    expect(METALLB_CAPTURED_UPDATE.length).toBe(55);
    const withdraw = update(METALLB_CAPTURED_WITHDRAW);
    expect(withdraw.withdrawn.map(formatCIDR)).toEqual(['192.168.20.100/32']);
    expect(isEndOfRib(withdraw)).toBe(false);
    expect(METALLB_CAPTURED_WITHDRAW.length).toBe(28);
  });

  it('towards a 2-octet peer: AS_TRANS in AS_PATH and the real path in AS4_PATH (RFC 6793 4.2.2)', () => {
    const u: BgpUpdate = {
      type: 'update',
      withdrawn: [],
      nlri: [cidr('192.168.20.100/32')],
      attributes: { origin: 'igp', asPath: [{ type: 'sequence', asns: [65001, 4200000001] }], nextHop: ip('192.168.10.20') },
    };
    const bytes = encodeMessage(u, TWO);
    expect(toHex(bytes)).toBe(
      toHex(
        hex(`${MARKER} 003d 02 0000 0021   # length 61; attributes 33
      40 01 01 00
      40 02 06 02 02 fde9 5ba0            # AS_PATH 65001 AS_TRANS, 2-octet
      40 03 04 c0a80a14
      c0 11 0a 02 02 0000fde9 fa56ea01    # AS4_PATH (optional transitive) 65001 4200000001
      20 c0a81464`),
      ),
    );
    const back = update(bytes, TWO);
    expect(back.attributes.asPath).toEqual([{ type: 'sequence', asns: [65001, AS_TRANS] }]);
    expect(back.attributes.other).toEqual([{ flags: 0xc0, type: 17, value: hex('02 02 0000fde9 fa56ea01') }]);
    // A 4-octet speaker must not send AS4_PATH; one that does has it discarded (RFC 6793).
    const fromNewSpeaker = decodeMessage(bytes, FOUR);
    expect(fromNewSpeaker.ok && fromNewSpeaker.message.type === 'update' && fromNewSpeaker.message.discardedAttributes).toBeTruthy();
  });

  it('splits an AS_SEQUENCE longer than 255 ASNs into consecutive segments (RFC 4271 5.1.2)', () => {
    const asns = Array.from({ length: 300 }, (_, i) => 64512 + i);
    const u: BgpUpdate = { type: 'update', withdrawn: [], nlri: [], attributes: { origin: 'igp', asPath: [{ type: 'sequence', asns }] } };
    const back = update(encodeMessage(u, FOUR));
    expect(back.attributes.asPath?.map((s) => s.asns.length)).toEqual([255, 45]);
    expect(back.attributes.asPath?.flatMap((s) => s.asns)).toEqual(asns);
  });

  it('uses the Extended Length flag for an attribute over 255 octets (RFC 4271 4.3)', () => {
    const communities = Array.from({ length: 100 }, (_, i) => 65000 * 65536 + i);
    const bytes = encodeMessage({ type: 'update', withdrawn: [], nlri: [], attributes: { communities } }, FOUR);
    // Path attributes start after header (19) + withdrawn length (2) + attribute length (2).
    expect(toHex(bytes.subarray(23, 27))).toBe('d0080190'); // flags O|T|E, type 8, 2-octet length 400
    expect(update(bytes).attributes.communities).toEqual(communities);
  });
});
