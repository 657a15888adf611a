import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeNdpOptions, encodeNdpOptions, formatMAC, sourceLinkLayerOf, type NdpOption } from '../../../src/announce/l2';
import { hex, toHex } from './l2-fixtures';

describe('NDP options (RFC 4861 4.6)', () => {
  it('reads source and target link-layer addresses', () => {
    const d = decodeNdpOptions(hex('0101 020000000a01 0201 020000000b02'));
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.value.map((o) => o.kind)).toEqual(['sourceLinkLayer', 'targetLinkLayer']);
    expect(formatMAC(sourceLinkLayerOf(d.value)!)).toBe('02:00:00:00:0a:01');
  });

  it('skips unknown options (nonce, MTU) and keeps looking', () => {
    const d = decodeNdpOptions(hex('0e01 112233445566  0501 0000 000005dc  0101 020000000a01'));
    expect(d.ok && d.value.map((o) => o.kind)).toEqual(['unknown', 'unknown', 'sourceLinkLayer']);
    expect(d.ok && formatMAC(sourceLinkLayerOf(d.value)!)).toBe('02:00:00:00:0a:01');
  });

  it('discards the packet on a zero length, an overrun, a cut header, or a link-layer option of another size', () => {
    for (const bad of ['0100 020000000a01', '0102 020000000a01', '01', '0101 020000000a01 02', '0102 020000000a01 0000000000000000']) {
      expect(decodeNdpOptions(hex(bad)), bad).toMatchObject({ ok: false, reason: 'malformedOption' });
    }
  });

  it('empty options are fine', () => {
    expect(decodeNdpOptions(new Uint8Array(0))).toEqual({ ok: true, value: [] });
  });

  it('encodes link-layer options as one 8-octet unit', () => {
    expect(toHex(encodeNdpOptions([{ kind: 'targetLinkLayer', mac: hex('020000000b02') }]))).toBe('0201020000000b02');
  });

  it('round-trips arbitrary option lists (fast-check)', () => {
    const mac6 = fc.uint8Array({ minLength: 6, maxLength: 6 });
    const option: fc.Arbitrary<NdpOption> = fc.oneof(
      mac6.map((mac) => ({ kind: 'sourceLinkLayer' as const, mac })),
      mac6.map((mac) => ({ kind: 'targetLinkLayer' as const, mac })),
      fc
        .tuple(fc.integer({ min: 3, max: 255 }), fc.nat({ max: 4 }), fc.uint8Array({ minLength: 6, maxLength: 6 }))
        .chain(([type, units, head]) =>
          fc
            .uint8Array({ minLength: units * 8, maxLength: units * 8 })
            .map((rest) => ({ kind: 'unknown' as const, type, data: Uint8Array.of(...head, ...rest) })),
        ),
    );
    fc.assert(
      fc.property(fc.array(option, { maxLength: 6 }), (options) => {
        expect(decodeNdpOptions(encodeNdpOptions(options))).toEqual({ ok: true, value: options });
      }),
    );
  });
});
