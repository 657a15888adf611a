import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeEthernet, decodeIcmpv6, encodeIcmpv6, type Icmpv6Packet } from '../../../src/announce/l2';
import { formatIP } from '../../../src/ip';
import { KERNEL_NA, KERNEL_NS, toHex } from './l2-fixtures';

function ipv6Of(frame: Uint8Array): Uint8Array {
  const f = decodeEthernet(frame);
  if (!f.ok) throw new Error(f.reason);
  return f.value.payload;
}

describe('IPv6 + ICMPv6 (RFC 8200, RFC 4443)', () => {
  it("verifies the kernel's checksums and reads the header fields", () => {
    const ns = decodeIcmpv6(ipv6Of(KERNEL_NS));
    expect(ns.ok).toBe(true);
    if (!ns.ok) return;
    expect(formatIP(ns.value.source)).toBe('fd00:213:9::1');
    expect(formatIP(ns.value.destination)).toBe('ff02::1:ff00:2');
    expect(ns.value.hopLimit).toBe(255);
    expect(ns.value.type).toBe(135);
    expect(ns.value.body.length).toBe(28);
    expect(decodeIcmpv6(ipv6Of(KERNEL_NA)).ok).toBe(true);
  });

  it('re-encodes the kernel NS byte for byte, checksum included', () => {
    const bytes = ipv6Of(KERNEL_NS);
    const ns = decodeIcmpv6(bytes);
    if (!ns.ok) throw new Error(ns.reason);
    expect(toHex(encodeIcmpv6(ns.value))).toBe(toHex(bytes));
  });

  it('drops a flipped bit anywhere the checksum covers as badChecksum', () => {
    const bytes = ipv6Of(KERNEL_NS);
    // Addresses (pseudo-header) and the ICMPv6 message; the first 8 octets are version/length/next header/hop.
    for (let i = 8; i < bytes.length; i++) {
      const b = bytes.slice();
      b[i] = (b[i] as number) ^ 0x10;
      expect(decodeIcmpv6(b), `octet ${i}`).toMatchObject({ ok: false, reason: 'badChecksum' });
    }
  });

  it('distrusts Payload Length: more than present is truncated, fewer leaves the rest as padding', () => {
    const bytes = ipv6Of(KERNEL_NS).slice();
    expect(decodeIcmpv6(bytes.subarray(0, 71))).toMatchObject({ ok: false, reason: 'truncated' });
    expect(decodeIcmpv6(bytes.subarray(0, 39))).toMatchObject({ ok: false, reason: 'truncated' });
    const padded = Uint8Array.of(...bytes, 0, 0, 0, 0);
    expect(decodeIcmpv6(padded).ok).toBe(true);
    const tiny = bytes.slice();
    tiny[5] = 3; // payload length 3 < ICMPv6 header
    expect(decodeIcmpv6(tiny)).toMatchObject({ ok: false, reason: 'truncated' });
  });

  it('drops a wrong version and any next header but ICMPv6 (extension headers included, RFC 6980)', () => {
    const bytes = ipv6Of(KERNEL_NS).slice();
    const v4 = bytes.slice();
    v4[0] = 0x40;
    expect(decodeIcmpv6(v4)).toMatchObject({ ok: false, reason: 'badIpVersion' });
    for (const nh of [0, 17, 43, 44, 60]) {
      const b = bytes.slice();
      b[6] = nh;
      expect(decodeIcmpv6(b)).toMatchObject({ ok: false, reason: 'notIcmpv6' });
    }
  });

  it('round-trips arbitrary ICMPv6 packets, including odd-length bodies (fast-check)', () => {
    const v6 = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map((value) => ({ family: 6 as const, value }));
    fc.assert(
      fc.property(
        v6,
        v6,
        fc.nat({ max: 255 }),
        fc.nat({ max: 255 }),
        fc.nat({ max: 255 }),
        fc.uint8Array({ maxLength: 300 }),
        (source, destination, hopLimit, type, code, body) => {
          const p: Icmpv6Packet = { source, destination, hopLimit, type, code, body };
          expect(decodeIcmpv6(encodeIcmpv6(p))).toEqual({ ok: true, value: p });
        },
      ),
    );
  });
});
