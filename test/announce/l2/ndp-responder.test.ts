import { describe, expect, it } from 'vitest';
import {
  decodeEthernet,
  decodeNdp,
  encodeNdpFrame,
  formatMAC,
  NDP_HOP_LIMIT,
  ownedIPSet,
  respondNdp,
  respondToFrame,
  solicitedNodeAddress,
  solicitedNodeMAC,
  type L2Interface,
  type NdpOption,
  type NdpPacket,
} from '../../../src/announce/l2';
import { formatIP, type IP } from '../../../src/ip';
import { ip, KERNEL_A, KERNEL_NS, mac, MLB_B, MLB_SOLICITED_NA, toHex } from './l2-fixtures';

const TARGET = ip('fd00:213:9::2');
const OWNED = ownedIPSet([TARGET]);

interface NsShape {
  source?: IP;
  destination?: IP;
  target?: IP;
  hopLimit?: number;
  options?: NdpOption[];
  ethDestination?: Uint8Array;
  ethSource?: Uint8Array;
}

function ns(s: NsShape = {}): Uint8Array {
  const target = s.target ?? TARGET;
  const packet: NdpPacket = {
    source: s.source ?? ip('fd00:213:9::1'),
    destination: s.destination ?? solicitedNodeAddress(target),
    hopLimit: s.hopLimit ?? NDP_HOP_LIMIT,
    message: { kind: 'solicitation', target, options: s.options ?? [{ kind: 'sourceLinkLayer', mac: KERNEL_A.mac }] },
  };
  return encodeNdpFrame(packet, s.ethDestination ?? solicitedNodeMAC(target), s.ethSource ?? KERNEL_A.mac);
}

describe('NDP responder: MetalLB rules', () => {
  it("answers a solicitation the kernel received for this host (multicast), not one received for a VLAN with no device here (otherHost), as the kernel's ipv6_rcv ignores those", () => {
    expect(respondToFrame(KERNEL_NS, MLB_B, OWNED, { pkttype: 'multicast' }).reply).toBeDefined();
    // The kernel strips the 802.1Q tag before a packet socket sees the frame: the same bytes, only the pkttype differs.
    expect(respondToFrame(KERNEL_NS, MLB_B, OWNED, { pkttype: 'otherHost' })).toMatchObject({ drop: 'notForUs' });
  });

  it("answers the kernel's NS with the golden NA: S=1 O=0, TLLA, from the link-local, to the NS source", () => {
    const r = respondToFrame(KERNEL_NS, MLB_B, OWNED);
    expect(r.drop).toBeUndefined();
    expect(toHex(r.reply!)).toBe(toHex(MLB_SOLICITED_NA));
  });

  it('answers from the target itself when the interface has no link-local address', () => {
    const noLinkLocal: L2Interface = { ...MLB_B, addresses: [] };
    const f = decodeEthernet(respondToFrame(KERNEL_NS, noLinkLocal, OWNED).reply!);
    if (!f.ok) throw new Error(f.reason);
    const na = decodeNdp(f.value.payload);
    expect(na.ok && formatIP(na.value.source)).toBe('fd00:213:9::2');
  });

  it('answers a unicast NS (neighbour unreachability detection) sent to our MAC and the target', () => {
    expect(respondToFrame(ns({ destination: TARGET, ethDestination: MLB_B.mac }), MLB_B, OWNED).reply).toBeDefined();
  });

  it('ignores a solicitation without a source link-layer option (noSourceLinkLayer)', () => {
    expect(respondToFrame(ns({ options: [] }), MLB_B, OWNED)).toMatchObject({ drop: 'noSourceLinkLayer' });
    expect(respondToFrame(ns({ options: [{ kind: 'targetLinkLayer', mac: KERNEL_A.mac }] }), MLB_B, OWNED)).toMatchObject({
      drop: 'noSourceLinkLayer',
    });
  });

  it('finds the SLLA after unknown options', () => {
    const r = respondToFrame(
      ns({
        options: [
          { kind: 'unknown', type: 14, data: new Uint8Array(6) },
          { kind: 'sourceLinkLayer', mac: KERNEL_A.mac },
        ],
      }),
      MLB_B,
      OWNED,
    );
    expect(r.reply).toBeDefined();
  });

  it('never answers a DAD probe (unspecified source)', () => {
    expect(respondToFrame(ns({ source: ip('::'), options: [] }), MLB_B, OWNED)).toMatchObject({ drop: 'dadProbe' });
  });

  it('does not answer for a target not owned here', () => {
    expect(respondToFrame(ns({ target: ip('fd00:213:9::3') }), MLB_B, OWNED)).toMatchObject({ drop: 'notOwned' });
  });

  it('requires hop limit 255 (RFC 4861 7.1.1)', () => {
    expect(respondToFrame(ns({ hopLimit: 64 }), MLB_B, OWNED)).toMatchObject({ drop: 'badHopLimit' });
  });

  it('drops a corrupted checksum', () => {
    const f = KERNEL_NS.slice();
    f[f.length - 1] = (f[f.length - 1] as number) ^ 1;
    expect(respondToFrame(f, MLB_B, OWNED)).toMatchObject({ drop: 'badChecksum' });
  });

  it('drops a frame to another unicast MAC or to the wrong group MAC (notForUs)', () => {
    expect(respondToFrame(ns({ ethDestination: mac('02:00:00:00:0c:03') }), MLB_B, OWNED)).toMatchObject({ drop: 'notForUs' });
    expect(respondToFrame(ns({ ethDestination: mac('33:33:ff:00:00:09') }), MLB_B, OWNED)).toMatchObject({ drop: 'notForUs' });
  });

  it('drops an IPv6 destination that is neither the target nor its group (badDestination)', () => {
    const other = ip('ff02::1');
    expect(respondToFrame(ns({ destination: other, ethDestination: mac('33:33:00:00:00:01') }), MLB_B, OWNED)).toMatchObject({
      drop: 'badDestination',
    });
  });

  it('does not answer advertisements; an NA for our target from another MAC is a conflict', () => {
    const na: NdpPacket = {
      source: ip('fe80::1'),
      destination: ip('ff02::1'),
      hopLimit: NDP_HOP_LIMIT,
      message: {
        kind: 'advertisement',
        router: false,
        solicited: false,
        override: true,
        target: TARGET,
        options: [{ kind: 'targetLinkLayer', mac: KERNEL_A.mac }],
      },
    };
    const r = respondToFrame(encodeNdpFrame(na, mac('33:33:00:00:00:01'), KERNEL_A.mac), MLB_B, OWNED);
    expect(r.drop).toBe('notRequest');
    expect(r.conflict).toMatchObject({ interface: 'vb', evidence: 'neighborAdvertisement' });
    expect(formatMAC(r.conflict!.mac)).toBe('02:00:00:00:0a:01');
    const notOurs = { ...na, message: { ...na.message, target: ip('fd00:213:9::7') } };
    expect(respondToFrame(encodeNdpFrame(notOurs, mac('33:33:00:00:00:01'), KERNEL_A.mac), MLB_B, OWNED).conflict).toBeUndefined();
  });

  it('ignores our own frames and refuses a multicast SLLA', () => {
    expect(respondToFrame(ns({ ethSource: MLB_B.mac }), MLB_B, OWNED)).toEqual({ drop: 'fromSelf' });
    expect(respondToFrame(ns({ options: [{ kind: 'sourceLinkLayer', mac: mac('33:33:00:00:00:01') }] }), MLB_B, OWNED)).toMatchObject({
      drop: 'badSender',
    });
  });

  it('echoes an 802.1Q tag and refuses non-IPv6 frames on the NDP path', () => {
    const f = decodeEthernet(KERNEL_NS);
    if (!f.ok) throw new Error(f.reason);
    const r = respondNdp({ ...f.value, vlanTci: 7 }, MLB_B, OWNED);
    const back = decodeEthernet(r.reply!);
    expect(back.ok && back.value.vlanTci).toBe(7);
    expect(respondNdp({ ...f.value, etherType: 0x0806 }, MLB_B, OWNED)).toEqual({ drop: 'unsupportedEtherType' });
  });
});
