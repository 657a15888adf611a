import { describe, expect, it } from 'vitest';
import {
  arpGratuitousPair,
  arpRequest,
  BROADCAST_MAC,
  decodeEthernet,
  encodeArpFrame,
  EtherType,
  formatMAC,
  ownedIPSet,
  parseMAC,
  respondArp,
  respondToFrame,
  type ArpPacket,
} from '../../../src/announce/l2';
import { formatIP } from '../../../src/ip';
import {
  hex,
  ip,
  mac,
  METALLB_NODE,
  METALLB_REPLY_60,
  ARPING_REQUEST_BROADCAST,
  ARPING_REQUEST_UNICAST,
  METALLB_VIP,
  toHex,
} from './l2-fixtures';

const OWNED = ownedIPSet([METALLB_VIP]);
const CLIENT = mac('52:54:00:3a:10:17');
const OTHER_NODE = mac('52:54:00:3a:10:20');

function frameOf(p: ArpPacket, destination = BROADCAST_MAC, source = p.senderMAC): Uint8Array {
  return encodeArpFrame(p, destination, source);
}

describe('ARP responder: MetalLB rules', () => {
  it("answers a captured arping broadcast request with MetalLB's exact 60-octet reply", () => {
    const r = respondToFrame(ARPING_REQUEST_BROADCAST, METALLB_NODE, OWNED);
    expect(r.drop).toBeUndefined();
    expect(toHex(r.reply!)).toBe(toHex(METALLB_REPLY_60));
    expect(formatIP(r.target!)).toBe('192.168.10.200');
  });

  it("answers a request unicast to our MAC (arping's follow-ups)", () => {
    expect(toHex(respondToFrame(ARPING_REQUEST_UNICAST, METALLB_NODE, OWNED).reply!)).toBe(toHex(METALLB_REPLY_60));
  });

  it('does not answer a request unicast to another MAC (notForUs)', () => {
    const f = frameOf(arpRequest(CLIENT, ip('192.168.10.17'), METALLB_VIP), OTHER_NODE);
    expect(respondToFrame(f, METALLB_NODE, OWNED)).toMatchObject({ drop: 'notForUs' });
  });

  it('does not answer for an address not owned on this interface (notOwned)', () => {
    const f = frameOf(arpRequest(CLIENT, ip('192.168.10.17'), ip('192.168.10.201')));
    expect(respondToFrame(f, METALLB_NODE, OWNED)).toMatchObject({ drop: 'notOwned' });
    expect(respondToFrame(ARPING_REQUEST_BROADCAST, METALLB_NODE, ownedIPSet([]))).toMatchObject({ drop: 'notOwned' });
  });

  it('does not answer replies (notRequest)', () => {
    const reply: ArpPacket = {
      operation: 2,
      senderMAC: CLIENT,
      senderIP: ip('192.168.10.17'),
      targetMAC: METALLB_NODE.mac,
      targetIP: METALLB_VIP,
    };
    expect(respondToFrame(frameOf(reply, METALLB_NODE.mac), METALLB_NODE, OWNED)).toMatchObject({ drop: 'notRequest' });
  });

  it("reports another node's gratuitous claim of our IP as a conflict, and does not answer it", () => {
    for (const p of arpGratuitousPair(OTHER_NODE, METALLB_VIP)) {
      const r = respondToFrame(frameOf(p), METALLB_NODE, OWNED);
      expect(r.drop).toBe('notRequest');
      expect(r.conflict).toMatchObject({ interface: 'enp1s0', evidence: p.operation === 1 ? 'arpAnnouncement' : 'arpReply' });
      expect(formatMAC(r.conflict!.mac)).toBe('52:54:00:3a:10:20');
      expect(formatIP(r.conflict!.ip)).toBe('192.168.10.200');
    }
  });

  it('reports a request whose sender IP is ours from another MAC, and still answers its owned target', () => {
    const p = arpRequest(OTHER_NODE, METALLB_VIP, ip('192.168.10.201'));
    const r = respondToFrame(frameOf(p), METALLB_NODE, ownedIPSet([METALLB_VIP, ip('192.168.10.201')]));
    expect(r.reply).toBeDefined();
    expect(r.conflict).toMatchObject({ evidence: 'arpRequest' });
  });

  it('does not report announcements of addresses we do not own, nor our own', () => {
    const [theirs] = arpGratuitousPair(OTHER_NODE, ip('192.168.10.50'));
    expect(respondToFrame(frameOf(theirs), METALLB_NODE, OWNED).conflict).toBeUndefined();
    const [ours] = arpGratuitousPair(METALLB_NODE.mac, METALLB_VIP);
    // A frame with our own source MAC is our own send echoed by the packet socket.
    expect(respondToFrame(frameOf(ours), METALLB_NODE, OWNED)).toEqual({ drop: 'fromSelf' });
  });

  it('answers an RFC 5227 probe (sender 0.0.0.0) as the kernel does, to the prober, target 0.0.0.0', () => {
    const r = respondToFrame(frameOf(arpRequest(CLIENT, ip('0.0.0.0'), METALLB_VIP)), METALLB_NODE, OWNED);
    const f = decodeEthernet(r.reply!);
    expect(f.ok && formatMAC(f.value.destination)).toBe('52:54:00:3a:10:17');
    expect(r.conflict).toBeUndefined();
  });

  it('does not unicast a reply to a multicast sender MAC (badSender)', () => {
    const f = frameOf(arpRequest(parseMAC('01:00:5e:00:00:01')!, ip('192.168.10.17'), METALLB_VIP), BROADCAST_MAC, CLIENT);
    expect(respondToFrame(f, METALLB_NODE, OWNED)).toMatchObject({ drop: 'badSender' });
  });

  it('replies to the ARP sender hardware address, even when the Ethernet source differs (MetalLB)', () => {
    const f = frameOf(arpRequest(CLIENT, ip('192.168.10.17'), METALLB_VIP), BROADCAST_MAC, mac('52:54:00:00:00:99'));
    const reply = decodeEthernet(respondToFrame(f, METALLB_NODE, OWNED).reply!);
    expect(reply.ok && formatMAC(reply.value.destination)).toBe('52:54:00:3a:10:17');
  });

  it('echoes an 802.1Q tag and keeps the 60-octet minimum', () => {
    const tagged = hex(toHex(ARPING_REQUEST_BROADCAST.subarray(0, 12)) + '8100' + '0064' + toHex(ARPING_REQUEST_BROADCAST.subarray(12)));
    const r = respondToFrame(tagged, METALLB_NODE, OWNED);
    expect(r.reply!.length).toBe(60);
    const f = decodeEthernet(r.reply!);
    expect(f.ok && f.value.vlanTci).toBe(0x64);
    expect(f.ok && f.value.etherType).toBe(EtherType.arp);
  });

  it('passes codec drops through with their reasons', () => {
    const bad = ARPING_REQUEST_BROADCAST.slice();
    bad[14 + 7] = 9;
    expect(respondToFrame(bad, METALLB_NODE, OWNED)).toMatchObject({ drop: 'unknownOperation' });
    expect(respondToFrame(ARPING_REQUEST_BROADCAST.subarray(0, 30), METALLB_NODE, OWNED)).toMatchObject({ drop: 'truncated' });
    const f = decodeEthernet(ARPING_REQUEST_BROADCAST);
    if (!f.ok) throw new Error('fixture');
    expect(respondArp({ ...f.value, etherType: 0x0800 }, METALLB_NODE, OWNED)).toEqual({ drop: 'notArp' });
    expect(respondToFrame(hex('ffffffffffff 5254003a1020 88cc 0000'), METALLB_NODE, OWNED)).toMatchObject({ drop: 'unsupportedEtherType' });
  });
});
