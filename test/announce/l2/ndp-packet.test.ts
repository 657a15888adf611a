import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  decodeEthernet,
  decodeNdp,
  encodeIcmpv6,
  encodeNdp,
  encodeNdpFrame,
  NDP_HOP_LIMIT,
  type NdpPacket,
} from '../../../src/announce/l2';
import { formatIP } from '../../../src/ip';
import { ip, KERNEL_NA, KERNEL_NS, MLB_B, MLB_SOLICITED_NA, toHex } from './l2-fixtures';

function payloadOf(frame: Uint8Array): Uint8Array {
  const f = decodeEthernet(frame);
  if (!f.ok) throw new Error(f.reason);
  return f.value.payload;
}

interface IcmpFields {
  hopLimit: number;
  type: number;
  code: number;
  body: Uint8Array;
}

/** Rebuilds the packet through encodeIcmpv6 so the checksum stays valid and only the edited field is wrong. */
function withIcmp(bytes: Uint8Array, edit: (p: IcmpFields) => void): Uint8Array {
  const fields = { hopLimit: bytes[7] as number, type: bytes[40] as number, code: bytes[41] as number, body: bytes.slice(44) };
  edit(fields);
  return encodeIcmpv6({ source: ip('fd00:213:9::1'), destination: ip('ff02::1:ff00:2'), ...fields });
}

describe('Neighbor Solicitation / Advertisement (RFC 4861 4.3, 4.4)', () => {
  it('decodes the kernel NS: target and source link-layer option', () => {
    const d = decodeNdp(payloadOf(KERNEL_NS));
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.value.message.kind).toBe('solicitation');
    expect(formatIP(d.value.message.target)).toBe('fd00:213:9::2');
    expect(d.value.message.options).toEqual([{ kind: 'sourceLinkLayer', mac: Uint8Array.from([2, 0, 0, 0, 0x0a, 1]) }]);
  });

  it("decodes the kernel's NA flags (S=1 O=1 R=0)", () => {
    const d = decodeNdp(payloadOf(KERNEL_NA));
    expect(d.ok && d.value.message).toMatchObject({ kind: 'advertisement', router: false, solicited: true, override: true });
  });

  it('re-encodes both kernel messages byte for byte', () => {
    for (const frame of [KERNEL_NS, KERNEL_NA]) {
      const d = decodeNdp(payloadOf(frame));
      if (!d.ok) throw new Error(d.reason);
      expect(toHex(encodeNdp(d.value))).toBe(toHex(payloadOf(frame)));
    }
  });

  it('encodes the NA golden (Python-computed checksum 0x21e2)', () => {
    const na: NdpPacket = {
      source: ip('fe80::ff:fe00:b02'),
      destination: ip('fd00:213:9::1'),
      hopLimit: NDP_HOP_LIMIT,
      message: {
        kind: 'advertisement',
        router: false,
        solicited: true,
        override: false,
        target: ip('fd00:213:9::2'),
        options: [{ kind: 'targetLinkLayer', mac: MLB_B.mac }],
      },
    };
    expect(toHex(encodeNdpFrame(na, Uint8Array.from([2, 0, 0, 0, 0x0a, 1]), MLB_B.mac))).toBe(toHex(MLB_SOLICITED_NA));
  });

  it('applies the RFC 4861 7.1.1 checks, each with its reason', () => {
    const ns = payloadOf(KERNEL_NS);
    expect(decodeNdp(withIcmp(ns, (p) => (p.hopLimit = 254)))).toMatchObject({ ok: false, reason: 'badHopLimit' });
    expect(decodeNdp(withIcmp(ns, (p) => (p.hopLimit = 1)))).toMatchObject({ ok: false, reason: 'badHopLimit' });
    expect(decodeNdp(withIcmp(ns, (p) => (p.code = 1)))).toMatchObject({ ok: false, reason: 'badCode' });
    expect(decodeNdp(withIcmp(ns, (p) => (p.body = p.body.slice(0, 19))))).toMatchObject({ ok: false, reason: 'truncated' });
    expect(decodeNdp(withIcmp(ns, (p) => (p.body[4] = 0xff)))).toMatchObject({ ok: false, reason: 'multicastTarget' });
    expect(decodeNdp(withIcmp(ns, (p) => (p.body[21] = 0)))).toMatchObject({ ok: false, reason: 'malformedOption' });
    expect(decodeNdp(withIcmp(ns, (p) => (p.type = 128)))).toMatchObject({ ok: false, reason: 'notRequest' });
  });

  it('accepts a solicitation with no options at all (the responder, not the codec, wants the SLLA)', () => {
    const d = decodeNdp(withIcmp(payloadOf(KERNEL_NS), (p) => (p.body = p.body.slice(0, 20))));
    expect(d.ok && d.value.message.options).toEqual([]);
  });

  it('round-trips arbitrary NS and NA (fast-check)', () => {
    const v6 = fc.bigInt({ min: 0n, max: (0xfen << 120n) - 1n }).map((value) => ({ family: 6 as const, value }));
    const mac6 = fc.uint8Array({ minLength: 6, maxLength: 6 });
    const options = fc.array(
      fc.oneof(
        mac6.map((mac) => ({ kind: 'sourceLinkLayer' as const, mac })),
        mac6.map((mac) => ({ kind: 'targetLinkLayer' as const, mac })),
      ),
      { maxLength: 3 },
    );
    const message = fc.oneof(
      fc.tuple(v6, options).map(([target, o]) => ({ kind: 'solicitation' as const, target, options: o })),
      fc.tuple(fc.boolean(), fc.boolean(), fc.boolean(), v6, options).map(([router, solicited, override, target, o]) => ({
        kind: 'advertisement' as const,
        router,
        solicited,
        override,
        target,
        options: o,
      })),
    );
    fc.assert(
      fc.property(v6, v6, message, (source, destination, m) => {
        const p: NdpPacket = { source, destination, hopLimit: NDP_HOP_LIMIT, message: m };
        expect(decodeNdp(encodeNdp(p))).toEqual({ ok: true, value: p });
      }),
    );
  });
});
