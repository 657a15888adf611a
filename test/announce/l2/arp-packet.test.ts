import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  arpGratuitousPair,
  ArpOperation,
  arpReplyTo,
  arpRequest,
  BROADCAST_MAC,
  decodeArp,
  decodeEthernet,
  encodeArp,
  encodeArpFrame,
  formatMAC,
  isArpAnnouncement,
  isArpProbe,
  type ArpPacket,
} from '../../../src/announce/l2';
import { formatIP } from '../../../src/ip';
import {
  hex,
  ip,
  KERNEL_ARP_REPLY,
  KERNEL_ARP_REQUEST,
  METALLB_GRATUITOUS_REPLY,
  METALLB_GRATUITOUS_REQUEST,
  METALLB_NODE,
  METALLB_REPLY_60,
  ARPING_REQUEST_BROADCAST,
  METALLB_VIP,
  toHex,
} from './l2-fixtures';

function arpOf(frame: Uint8Array): ArpPacket {
  const f = decodeEthernet(frame);
  if (!f.ok) throw new Error(f.reason);
  const a = decodeArp(f.value.payload);
  if (!a.ok) throw new Error(a.reason);
  return a.value;
}

describe('ARP packet (RFC 826)', () => {
  it('decodes a captured broadcast request from iputils arping', () => {
    const p = arpOf(ARPING_REQUEST_BROADCAST);
    expect(p.operation).toBe(ArpOperation.request);
    expect(formatMAC(p.senderMAC)).toBe('52:54:00:3a:10:20');
    expect(formatIP(p.senderIP)).toBe('192.168.10.20');
    expect(formatMAC(p.targetMAC)).toBe('ff:ff:ff:ff:ff:ff');
    expect(formatIP(p.targetIP)).toBe('192.168.10.200');
  });

  it('decodes the kernel request (target MAC zero) and reply, ignoring no fields', () => {
    const req = arpOf(KERNEL_ARP_REQUEST);
    expect(formatMAC(req.targetMAC)).toBe('00:00:00:00:00:00');
    const rep = arpOf(KERNEL_ARP_REPLY);
    expect(rep.operation).toBe(ArpOperation.reply);
    expect(formatIP(rep.senderIP)).toBe('10.213.9.2');
  });

  it("encodes MetalLB's captured reply byte for byte: 60 octets, unicast to the requester", () => {
    const reply = arpReplyTo(arpOf(ARPING_REQUEST_BROADCAST), METALLB_NODE.mac, METALLB_VIP);
    const frame = encodeArpFrame(reply, reply.targetMAC, METALLB_NODE.mac);
    expect(frame.length).toBe(60);
    expect(toHex(frame)).toBe(toHex(METALLB_REPLY_60));
  });

  it("encodes MetalLB's gratuitous pair as tcpdump shows it (request then reply, broadcast, sender = target = VIP)", () => {
    const [request, reply] = arpGratuitousPair(METALLB_NODE.mac, METALLB_VIP);
    expect(toHex(encodeArpFrame(request, BROADCAST_MAC, METALLB_NODE.mac))).toBe(toHex(METALLB_GRATUITOUS_REQUEST));
    expect(toHex(encodeArpFrame(reply, BROADCAST_MAC, METALLB_NODE.mac))).toBe(toHex(METALLB_GRATUITOUS_REPLY));
    expect(isArpAnnouncement(request) && isArpAnnouncement(reply)).toBe(true);
  });

  it('tells probes (sender 0.0.0.0) from announcements', () => {
    const probe = arpRequest(METALLB_NODE.mac, ip('0.0.0.0'), METALLB_VIP);
    expect(isArpProbe(probe)).toBe(true);
    expect(isArpAnnouncement(probe)).toBe(false);
  });

  it('drops each malformed fixed field with its own reason', () => {
    const good = encodeArp(arpOf(ARPING_REQUEST_BROADCAST));
    const patch = (offset: number, ...bytes: number[]) => {
      const b = good.slice();
      b.set(bytes, offset);
      return decodeArp(b);
    };
    expect(decodeArp(good.subarray(0, 27))).toMatchObject({ ok: false, reason: 'truncated' });
    expect(patch(0, 0x00, 0x06)).toMatchObject({ ok: false, reason: 'badHardwareType' });
    expect(patch(2, 0x86, 0xdd)).toMatchObject({ ok: false, reason: 'badProtocolType' });
    expect(patch(4, 8)).toMatchObject({ ok: false, reason: 'badAddressLength' });
    expect(patch(5, 16)).toMatchObject({ ok: false, reason: 'badAddressLength' });
    expect(patch(6, 0x00, 0x03)).toMatchObject({ ok: false, reason: 'unknownOperation' }); // RARP request
    expect(patch(6, 0x00, 0x00)).toMatchObject({ ok: false, reason: 'unknownOperation' });
  });

  it('ignores trailing bytes (Ethernet padding) after the 28 octets', () => {
    expect(decodeArp(hex(toHex(encodeArp(arpOf(ARPING_REQUEST_BROADCAST))) + '00'.repeat(18))).ok).toBe(true);
  });

  it('refuses to encode IPv6 addresses (a caller bug: IPv6 uses NDP)', () => {
    expect(() => encodeArp({ ...arpOf(ARPING_REQUEST_BROADCAST), targetIP: ip('fd00::1') })).toThrow(RangeError);
  });

  it('round-trips arbitrary packets through encode and decode (fast-check)', () => {
    const mac6 = fc.uint8Array({ minLength: 6, maxLength: 6 });
    const v4 = fc.nat({ max: 0xffffffff }).map((n) => ({ family: 4 as const, value: BigInt(n) }));
    fc.assert(
      fc.property(fc.constantFrom(1, 2), mac6, v4, mac6, v4, (operation, senderMAC, senderIP, targetMAC, targetIP) => {
        const p: ArpPacket = { operation, senderMAC, senderIP, targetMAC, targetIP };
        expect(decodeArp(encodeArp(p))).toEqual({ ok: true, value: p });
      }),
    );
  });
});
