/**
 * LZW against Go's compress/lzw (LSB, litWidth 8). The vectors were computed with Go 1.19's lzw.NewWriter over
 * the LCG sequence below (x = x*1103515245 + 12345 mod 2^32, byte = (x >> 16) % alphabet, x0 = 12345); the big
 * ones cross the 4095-code reset many times. The captures (fixtures.test.ts) check the same against memberlist.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecodeError, lzwCompress, lzwDecompress } from '../../../src/gossip/codec';

function lcg(n: number, alphabet: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = 12345;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = (x >>> 16) % alphabet;
  }
  return out;
}

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const BIG = 64 * 1024 * 1024;

const GO_VECTORS = [
  { n: 0, a: 1, len: 3, sha: 'ca175b7b97e4180ff4b1dc13271f897a7d711d6da53ddd112d60bf4ac100e23e', bytes: '000302' },
  { n: 1, a: 256, len: 4, sha: 'e1517a644536c4854107e63ce7dbfd0f8eedd39ffb3c2ca9455db4f55868a539', bytes: '00b90504' },
  {
    n: 24,
    a: 4,
    len: 22,
    sha: 'f7c3033ce2db6b24bbaf89150dcc5826586be132340fe34d6266c56e2bafe0e6',
    bytes: '000100082060400082020200185070c0c087061d0604',
  },
  { n: 20_000, a: 256, len: 27_374, sha: 'c0bad55f582987c163b1ee0737c6b1a41da1324d882b0cce53d6302981af9d64' },
  { n: 50_000, a: 7, len: 21_124, sha: '65cf9b615b00767ce1a5106f0a3f0bb36f4d4aec920fa3a1237ee7c93d633217' },
  { n: 300_000, a: 2, len: 46_058, sha: 'b03e2a2c1723a8512bc3b2de9c65a1457999c61c6f0440976116c4530882c8c1' },
];

describe('lzwCompress', () => {
  for (const v of GO_VECTORS) {
    it(`writes what Go writes for ${v.n} bytes over ${v.a} symbols`, () => {
      const out = lzwCompress(lcg(v.n, v.a));
      expect(out.length).toBe(v.len);
      expect(sha(out)).toBe(v.sha);
      if (v.bytes) expect(hex(out)).toBe(v.bytes);
      expect(lzwDecompress(out, BIG)).toEqual(lcg(v.n, v.a));
    });
  }

  it('round-trips anything', () => {
    const data = fc.oneof(
      fc.uint8Array({ maxLength: 3000 }),
      fc.array(fc.constantFrom(0, 1, 2, 255), { maxLength: 20_000 }).map((a) => Uint8Array.from(a)),
    );
    fc.assert(
      fc.property(data, (d) => {
        expect(lzwDecompress(lzwCompress(d), BIG)).toEqual(d);
      }),
      { numRuns: 300 },
    );
  });
});

describe('lzwDecompress', () => {
  const abc = new TextEncoder().encode('TOBEORNOTTOBEORTOBEORNOT');

  it('accepts data without the leading clear code (old Go writers)', () => {
    // Drop the 9-bit clear: re-pack the codes after it.
    const codes = readCodes(lzwCompress(abc));
    expect(codes[0]).toBe(256);
    expect(lzwDecompress(packCodes(codes.slice(1)), BIG)).toEqual(abc);
  });

  it('requires the end code', () => {
    const codes = readCodes(lzwCompress(abc));
    expect(() => lzwDecompress(packCodes(codes.slice(0, -1)), BIG)).toThrow(DecodeError);
    expect(() => lzwDecompress(new Uint8Array(0), BIG)).toThrow(/end code/);
  });

  it('rejects a code beyond the next free entry', () => {
    expect(() => lzwDecompress(packCodes([256, 65, 300, 257]), BIG)).toThrow(/invalid LZW code 300/);
  });

  it('ignores bytes after the end code', () => {
    const c = lzwCompress(abc);
    expect(lzwDecompress(Uint8Array.from([...c, 1, 2, 3]), BIG)).toEqual(abc);
  });

  it('stops an LZW bomb at the cap, without allocating past it', () => {
    const bomb = lzwCompress(new Uint8Array(5_000_000)); // about 6 KB of codes
    expect(bomb.length).toBeLessThan(10_000);
    try {
      lzwDecompress(bomb, 100_000);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(DecodeError);
      expect((e as DecodeError).code).toBe('lzwTooLarge');
    }
    expect(lzwDecompress(bomb, 5_000_000)).toHaveLength(5_000_000);
  });
});

/** 9..12-bit codes of Go-written data (the widths follow the same rule as the writer). */
function readCodes(data: Uint8Array): number[] {
  const codes: number[] = [];
  let bits = 0;
  let n = 0;
  let width = 9;
  let hi = 257;
  let i = 0;
  for (;;) {
    while (n < width) {
      bits |= (data[i++] as number) << n;
      n += 8;
    }
    const c = bits & ((1 << width) - 1);
    bits >>>= width;
    n -= width;
    codes.push(c);
    if (c === 257) return codes;
    if (c === 256) {
      width = 9;
      hi = 257;
      continue;
    }
    hi++;
    if (hi >= 1 << width && width < 12) width++;
  }
}

function packCodes(codes: number[]): Uint8Array {
  const out: number[] = [];
  let bits = 0;
  let n = 0;
  let width = 9;
  let hi = 257;
  for (const c of codes) {
    bits |= c << n;
    n += width;
    while (n >= 8) {
      out.push(bits & 0xff);
      bits >>>= 8;
      n -= 8;
    }
    if (c === 256) {
      width = 9;
      hi = 257;
    } else if (c !== 257) {
      hi++;
      if (hi >= 1 << width && width < 12) width++;
    }
  }
  if (n > 0) out.push(bits & 0xff);
  return Uint8Array.from(out);
}
