import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeEthernet, encodeEthernet, ETHERNET_MIN_FRAME_BYTES, EtherType, formatMAC, vlanIdOf } from '../../../src/announce/l2';
import { hex, KERNEL_ARP_REQUEST, METALLB_REPLY_60, toHex } from './l2-fixtures';

describe('Ethernet II', () => {
  it("decodes MetalLB's captured reply: addresses, ARP EtherType, payload including padding", () => {
    const f = decodeEthernet(METALLB_REPLY_60);
    expect(f.ok).toBe(true);
    if (!f.ok) return;
    expect(formatMAC(f.value.destination)).toBe('52:54:00:3a:10:20');
    expect(formatMAC(f.value.source)).toBe('52:54:00:3a:10:21');
    expect(f.value.etherType).toBe(EtherType.arp);
    expect(f.value.payload.length).toBe(46);
    expect(f.value.vlanTci).toBeUndefined();
  });

  it('tolerates one 802.1Q tag and reports its TCI', () => {
    const tagged = hex(`ffffffffffff 020000000a01 8100 a064 0806 0001080006040001`);
    const f = decodeEthernet(tagged);
    expect(f.ok && f.value.etherType).toBe(EtherType.arp);
    expect(f.ok && f.value.vlanTci).toBe(0xa064);
    expect(vlanIdOf(0xa064)).toBe(100);
  });

  it('drops frames shorter than the header, or a tag cut short', () => {
    expect(decodeEthernet(new Uint8Array(13))).toMatchObject({ ok: false, reason: 'truncated' });
    expect(decodeEthernet(hex('ffffffffffff 020000000a01 8100 a064'))).toMatchObject({ ok: false, reason: 'truncated' });
  });

  it('pads to 60 octets only when asked, and never shortens', () => {
    const f = decodeEthernet(KERNEL_ARP_REQUEST);
    if (!f.ok) throw new Error('fixture');
    expect(encodeEthernet(f.value).length).toBe(42);
    const padded = encodeEthernet(f.value, { padToMinimum: true });
    expect(padded.length).toBe(ETHERNET_MIN_FRAME_BYTES);
    expect(toHex(padded.subarray(0, 42))).toBe(toHex(KERNEL_ARP_REQUEST));
    expect(padded.subarray(42).every((b) => b === 0)).toBe(true);
  });

  it('round-trips arbitrary frames, tagged or not', () => {
    const mac6 = fc.uint8Array({ minLength: 6, maxLength: 6 });
    fc.assert(
      fc.property(
        mac6,
        mac6,
        fc.constantFrom(0x0806, 0x86dd, 0x0800, 0x1234),
        fc.option(fc.nat({ max: 0xffff }), { nil: undefined }),
        fc.uint8Array({ maxLength: 200 }),
        (d, s, t, tci, payload) => {
          const frame = { destination: d, source: s, etherType: t, payload, ...(tci === undefined ? {} : { vlanTci: tci }) };
          const back = decodeEthernet(encodeEthernet(frame));
          expect(back).toEqual({ ok: true, value: frame });
        },
      ),
    );
  });
});
