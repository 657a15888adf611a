// updateBytes against message lengths seen on the wire (a tcpdump of MetalLB v0.16 talking to FRR 8.4) and
// lengths worked out by hand from RFC 4271 / RFC 4760 / RFC 4724.
import { describe, expect, it } from 'vitest';
import type { BgpUpdate } from '../../../../src/announce/bgp/bgp-messages';
import { attributeBytes, prefixBytes, updateBytes } from '../../../../src/announce/bgp/speaker';
import { cidr, COMMUNITY_64512_100, ip } from './receiving-rib';

const update = (u: Partial<BgpUpdate>): BgpUpdate => ({ type: 'update', withdrawn: [], attributes: {}, nlri: [], ...u });

describe('updateBytes', () => {
  it('MetalLB\'s capture: ORIGIN, AS_PATH 64512, NEXT_HOP, COMMUNITIES 64512:100 and one /32 is "Update Message (2), length: 55"', () => {
    expect(
      updateBytes(
        update({
          attributes: {
            origin: 'igp',
            asPath: [{ type: 'sequence', asns: [64512] }],
            nextHop: ip('192.168.10.20'),
            communities: [COMMUNITY_64512_100],
          },
          nlri: [cidr('192.168.20.100/32')],
        }),
      ),
    ).toBe(55);
  });

  it('MetalLB\'s capture: withdrawing one /32 is "Update Message (2), length: 28"', () => {
    expect(updateBytes(update({ withdrawn: [cidr('192.168.20.100/32')] }))).toBe(28);
  });

  it('the IPv4 End-of-RIB is the 23-byte empty UPDATE (RFC 4724 2)', () => {
    expect(updateBytes(update({}))).toBe(23);
  });

  it('an IPv6 /128 in MP_REACH_NLRI with one global next hop', () => {
    // 23 + ORIGIN 4 + AS_PATH 9 + MP_REACH (3 + AFI 2, SAFI 1, NH len 1, NH 16, reserved 1, prefix 17) = 77
    expect(
      updateBytes(
        update({
          attributes: {
            origin: 'igp',
            asPath: [{ type: 'sequence', asns: [64512] }],
            mpReach: { afi: 2, safi: 1, nextHops: [ip('fd00:213::20')], nlri: [cidr('fd00:20::1/128')] },
          },
        }),
      ),
    ).toBe(77);
  });

  it('the IPv6 End-of-RIB: an empty MP_UNREACH_NLRI (23 + 3 + 3)', () => {
    expect(updateBytes(update({ attributes: { mpUnreach: { afi: 2, safi: 1, withdrawn: [] } } }))).toBe(29);
  });

  it('prefix octets: the length octet plus the fewest octets holding the bits', () => {
    expect([0, 1, 8, 9, 24, 30, 32, 64, 65, 128].map((len) => prefixBytes({ ip: ip('::'), prefix: len }))).toEqual([
      1, 2, 2, 3, 4, 5, 5, 9, 10, 17,
    ]);
  });

  it('an attribute longer than 255 octets takes the two-octet Extended Length', () => {
    expect(attributeBytes(255)).toBe(258);
    expect(attributeBytes(256)).toBe(260);
    expect(attributeBytes(4, 0x10)).toBe(8);
    const communities = (n: number) => updateBytes(update({ attributes: { communities: Array.from({ length: n }, (_, i) => i) } }));
    expect(communities(63)).toBe(23 + 3 + 252);
    expect(communities(64)).toBe(23 + 4 + 256);
  });

  it('iBGP: an empty AS_PATH is still an attribute (3 octets) and LOCAL_PREF is 7', () => {
    expect(updateBytes(update({ attributes: { asPath: [], localPref: 0 } }))).toBe(23 + 3 + 7);
  });
});
