/**
 * msgpack as go-msgpack's MsgpackHandle writes it (old spec) and as leniently as it reads it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MsgpackWriter } from '../../../src/gossip/codec/msgpack-writer';
import { MsgExt, MsgFloat, MsgMap, MsgpackIncomplete, type MsgValue, readValue } from '../../../src/gossip/codec/msgpack-reader';
import { CodecError, MSGPACK_MAX_DEPTH } from '../../../src/gossip/codec';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (h: string) => new Uint8Array(Buffer.from(h.replace(/\s+/g, ''), 'hex'));
const w = () => new MsgpackWriter(4);

describe('MsgpackWriter', () => {
  it('writes unsigned integers in the smallest form (go-msgpack encodeUint)', () => {
    const cases: [number, string][] = [
      [0, '00'],
      [127, '7f'],
      [128, 'cc80'],
      [255, 'ccff'],
      [256, 'cd0100'],
      [65535, 'cdffff'],
      [65536, 'ce00010000'],
      [0xffffffff, 'ceffffffff'],
      [2 ** 32, 'cf0000000100000000'],
    ];
    for (const [v, h] of cases) expect(hex(w().uint(v).bytes()), String(v)).toBe(h);
  });

  it('writes non-negative signed ints as unsigned (0.2.2) and negatives in the smallest int form', () => {
    const cases: [number, string][] = [
      [5, '05'],
      [200, 'ccc8'],
      [-1, 'ff'],
      [-32, 'e0'],
      [-33, 'd0df'],
      [-128, 'd080'],
      [-129, 'd1ff7f'],
      [-32768, 'd18000'],
      [-32769, 'd2ffff7fff'],
      [-(2 ** 31) - 1, 'd3ffffffff7fffffff'],
    ];
    for (const [v, h] of cases) expect(hex(w().int(v).bytes()), String(v)).toBe(h);
  });

  it('writes strings and bytes in the str family only: fixstr, str16, str32; never str8 or bin', () => {
    expect(hex(w().str(new Uint8Array(0)).bytes())).toBe('a0');
    expect(hex(w().str(new Uint8Array(31)).bytes()).slice(0, 2)).toBe('bf');
    expect(hex(w().str(new Uint8Array(32)).bytes()).slice(0, 6)).toBe('da0020');
    expect(hex(w().str(new Uint8Array(255)).bytes()).slice(0, 6)).toBe('da00ff');
    expect(hex(w().str(new Uint8Array(65536)).bytes()).slice(0, 10)).toBe('db00010000');
    expect(hex(w().bytesOrNil(undefined).bytes())).toBe('c0');
  });

  it('writes map and array headers', () => {
    expect(hex(w().mapHeader(15).bytes())).toBe('8f');
    expect(hex(w().mapHeader(16).bytes())).toBe('de0010');
    expect(hex(w().mapHeader(70000).bytes())).toBe('df00011170');
    expect(hex(w().arrayHeader(3).bytes())).toBe('93');
    expect(hex(w().arrayHeader(65535).bytes())).toBe('dcffff');
  });

  it('writes structs as maps with the field names sorted', () => {
    const out = w()
      .struct({ SeqNo: { uint: 1 }, Node: { str: 'a' }, Nack: { bool: true } })
      .bytes();
    // 83 | a4 "Nack" c3 | a4 "Node" a1 "a" | a5 "SeqNo" 01
    expect(hex(out)).toBe('83' + 'a44e61636b' + 'c3' + 'a44e6f6465' + 'a161' + 'a55365714e6f' + '01');
  });

  it('refuses numbers that are not integers', () => {
    expect(() => w().uint(-1)).toThrow(CodecError);
    expect(() => w().uint(1.5)).toThrow(CodecError);
    expect(() => w().int(Number.MAX_SAFE_INTEGER + 2)).toThrow(CodecError);
  });
});

describe('readValue', () => {
  it('reads every integer width', () => {
    const cases: [string, number][] = [
      ['7f', 127],
      ['cc80', 128],
      ['cd0100', 256],
      ['ce00010000', 65536],
      ['cf0000000100000000', 2 ** 32],
      ['ff', -1],
      ['d080', -128],
      ['d1ff7f', -129],
      ['d2ffff7fff', -32769],
      ['d3ffffffff7fffffff', -(2 ** 31) - 1],
    ];
    for (const [h, v] of cases) expect(readValue(bytes(h)).value, h).toBe(v);
  });

  it('reads str8 and bin8/16/32 as raw bytes, like the str family', () => {
    for (const h of ['a3616263', 'd903616263', 'da0003616263', 'db00000003616263', 'c403616263', 'c50003616263', 'c600000003616263']) {
      expect(readValue(bytes(h)).value, h).toEqual(new Uint8Array([0x61, 0x62, 0x63]));
    }
  });

  it('keeps floats and ext apart from integers', () => {
    expect(readValue(bytes('ca3fc00000')).value).toEqual(new MsgFloat(1.5));
    expect(readValue(bytes('cb3ff8000000000000')).value).toEqual(new MsgFloat(1.5));
    expect(readValue(bytes('d40105')).value).toEqual(new MsgExt(1, new Uint8Array([5])));
    expect(readValue(bytes('c7020701ff')).value).toEqual(new MsgExt(7, new Uint8Array([1, 0xff])));
  });

  it('reads maps in wire order and nested arrays', () => {
    const v = readValue(bytes('82 a162 01 a161 92 c2 c3')).value as MsgMap;
    expect(v).toBeInstanceOf(MsgMap);
    expect(v.entries.map(([k]) => hex(k as Uint8Array))).toEqual(['62', '61']);
    expect(v.entries[1]?.[1]).toEqual([false, true]);
  });

  it('says how many bytes a cut value needs', () => {
    const need = (h: string) => {
      try {
        readValue(bytes(h));
      } catch (e) {
        expect(e).toBeInstanceOf(MsgpackIncomplete);
        return (e as MsgpackIncomplete).need;
      }
      throw new Error('no error');
    };
    expect(need('')).toBe(1);
    expect(need('cd01')).toBe(3);
    expect(need('a5 6162')).toBe(6);
    // A lying str32: its length is known from the header, not by reading it.
    expect(need('db ffffffff 00')).toBe(5 + 0xffffffff);
    // A map32 of 2^32-1 entries needs at least two bytes per entry before anything is read.
    expect(() => readValue(bytes('df ffffffff'))).toThrow(CodecError);
    expect(need('de 0100')).toBe(3 + 512);
  });

  it('rejects 0xc1 and nesting past the limit', () => {
    expect(() => readValue(bytes('c1'))).toThrow(CodecError);
    const deep = new Uint8Array(MSGPACK_MAX_DEPTH + 2).fill(0x91);
    expect(() => readValue(deep)).toThrow(/nested deeper/);
  });

  it('round-trips what the writer writes', () => {
    type V = { kind: 'u'; v: number } | { kind: 'i'; v: number } | { kind: 'b'; v: boolean } | { kind: 's'; v: Uint8Array } | { kind: 'n' };
    const val: fc.Arbitrary<V> = fc.oneof(
      fc.nat().map((v) => ({ kind: 'u' as const, v })),
      fc.maxSafeInteger().map((v) => ({ kind: 'i' as const, v })),
      fc.boolean().map((v) => ({ kind: 'b' as const, v })),
      fc.uint8Array({ maxLength: 70 }).map((v) => ({ kind: 's' as const, v })),
      fc.constant({ kind: 'n' as const }),
    );
    fc.assert(
      fc.property(fc.array(val, { maxLength: 20 }), (vals) => {
        const wr = w().arrayHeader(vals.length);
        for (const x of vals) {
          if (x.kind === 'u') wr.uint(x.v);
          else if (x.kind === 'i') wr.int(x.v);
          else if (x.kind === 'b') wr.bool(x.v);
          else if (x.kind === 's') wr.str(x.v);
          else wr.nil();
        }
        const buf = wr.bytes();
        const r = readValue(buf);
        expect(r.end).toBe(buf.length);
        const expected: MsgValue[] = vals.map((x) => (x.kind === 'n' ? null : x.v));
        expect(r.value).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
