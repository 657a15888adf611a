import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { internetChecksum, verifiesChecksum } from '../../../src/announce/l2';

/** A deliberately naive RFC 1071 sum (BigInt, one word at a time), to check the real one against. */
function naive(bytes: Uint8Array): number {
  let s = 0n;
  for (let i = 0; i < bytes.length; i += 2) s += BigInt(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));
  while (s > 0xffffn) s = (s & 0xffffn) + (s >> 16n);
  return Number(~s & 0xffffn);
}

describe('Internet checksum (RFC 1071)', () => {
  it('matches the RFC 1071 section 3 example: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2', () => {
    expect(internetChecksum(Uint8Array.of(0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7))).toBe(~0xddf2 & 0xffff);
  });

  it('pads an odd last octet with zero', () => {
    expect(internetChecksum(Uint8Array.of(0x12, 0x34, 0x56))).toBe(~(0x1234 + 0x5600) & 0xffff);
  });

  it('agrees with a naive sum, split into chunks or not, and verifies once the checksum is inserted', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 2, maxLength: 3000 }), fc.nat(), (bytes, cut) => {
        const at = (cut % (bytes.length + 1)) & ~1;
        const c = internetChecksum(bytes.subarray(0, at), bytes.subarray(at));
        expect(c).toBe(naive(bytes));
        const withSum = Uint8Array.of(...bytes, ...(bytes.length % 2 ? [0] : []), c >> 8, c & 0xff);
        expect(verifiesChecksum(withSum)).toBe(true);
      }),
    );
  });

  it('refuses an odd chunk before the last (the sum would be misaligned)', () => {
    expect(() => internetChecksum(Uint8Array.of(1), Uint8Array.of(2))).toThrow(RangeError);
  });
});
