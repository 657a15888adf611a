/**
 * compound, CRC, label, keyring, encryption and MetalLB's key: the small framing pieces, each against the
 * memberlist behaviour it copies. (The captures check them against Go's bytes as well.)
 */
import { describe, expect, it } from 'vitest';
import {
  addCrc,
  addLabel,
  checkCrc,
  CodecError,
  crc32Ieee,
  DecodeError,
  decodeCompound,
  decryptPayload,
  encodeCompound,
  encryptedLength,
  encryptionVersionFor,
  encryptPayload,
  Keyring,
  labelHeader,
  metallbKeyFromSecret,
  splitLabel,
  streamAad,
} from '../../../src/gossip/codec';

const bytes = (h: string) => new Uint8Array(Buffer.from(h.replace(/\s+/g, ''), 'hex'));
const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('hex') : undefined);
const text = (s: string) => new TextEncoder().encode(s);

describe('compound', () => {
  it('frames parts as [07][count][u16 lengths][bodies]', () => {
    expect(hex(encodeCompound([bytes('0b81'), bytes('aabbcc')]))).toBe('07' + '02' + '0002' + '0003' + '0b81' + 'aabbcc');
  });

  it('keeps the parts that fit and reports the rest as truncated', () => {
    const c = encodeCompound([bytes('01'), bytes('0203'), bytes('040506')]);
    expect(decodeCompound(c.subarray(1))).toEqual({ parts: [bytes('01'), bytes('0203'), bytes('040506')], truncated: 0 });
    const cut = decodeCompound(c.subarray(1, c.length - 1));
    expect(cut.parts).toEqual([bytes('01'), bytes('0203')]);
    expect(cut.truncated).toBe(1);
    expect(decodeCompound(c.subarray(1, 8)).truncated).toBe(3);
  });

  it('a short header is malformed, including counts >= 128 (Go computes the table size in uint8)', () => {
    expect(() => decodeCompound(new Uint8Array(0))).toThrow(DecodeError);
    expect(() => decodeCompound(bytes('02 0001'))).toThrow(/truncated length table/);
    const big = new Uint8Array(1 + 200 * 2 - 1);
    big[0] = 200;
    expect(() => decodeCompound(big)).toThrow(DecodeError);
  });

  it('refuses more than 255 parts or a part over 65535 bytes', () => {
    expect(() => encodeCompound(Array.from({ length: 256 }, () => bytes('00')))).toThrow(CodecError);
    expect(() => encodeCompound([new Uint8Array(65536)])).toThrow(CodecError);
    expect(encodeCompound(Array.from({ length: 255 }, () => bytes('00')))[1]).toBe(255);
  });
});

describe('CRC', () => {
  it('is zlib IEEE CRC-32, big-endian after 0x0c', () => {
    expect(crc32Ieee(text('123456789')).toString(16)).toBe('cbf43926');
    expect(hex(addCrc(text('123456789')))).toBe('0ccbf43926' + hex(text('123456789')));
    expect(checkCrc(addCrc(bytes('0b81')))).toEqual(bytes('0b81'));
    const bad = addCrc(bytes('0b81'));
    bad[6] = (bad[6] as number) ^ 1;
    expect(checkCrc(bad)).toBeUndefined();
  });
});

describe('label', () => {
  it('is [f4][len][label] before everything, nothing without a label', () => {
    expect(hex(addLabel(bytes('0b81'), text('ab')))).toBe('f4026162' + '0b81');
    expect(hex(addLabel(bytes('0b81'), new Uint8Array(0)))).toBe('0b81');
    expect(splitLabel(bytes('f4026162 0b81'), true)).toEqual({ kind: 'label', label: text('ab'), rest: bytes('0b81') });
    expect(splitLabel(bytes('0b81'), true)).toEqual({ kind: 'none', rest: bytes('0b81') });
  });

  it('a truncated or empty label header is malformed; on a stream a short one waits for more', () => {
    expect(() => splitLabel(bytes('f4'), true)).toThrow(DecodeError);
    expect(() => splitLabel(bytes('f40561'), true)).toThrow(/truncated/);
    expect(() => splitLabel(bytes('f400 0b81'), true)).toThrow(/empty label/);
    expect(splitLabel(bytes('f40561'), false)).toEqual({ kind: 'incomplete' });
  });

  it('labels are at most 255 bytes', () => {
    expect(labelHeader(new Uint8Array(255))).toHaveLength(257);
    expect(() => labelHeader(new Uint8Array(256))).toThrow(CodecError);
  });
});

describe('keyring', () => {
  const k16 = new Uint8Array(16).fill(1);
  const k24 = new Uint8Array(24).fill(2);
  const k32 = new Uint8Array(32).fill(3);

  it('takes 16, 24 or 32-byte keys, primary first, no duplicates', () => {
    const ring = Keyring.create(k16, [k24, k16, k32]);
    expect(ring.keys.map((k) => k.length)).toEqual([16, 24, 32]);
    expect(() => Keyring.create(new Uint8Array(20))).toThrow(CodecError);
  });

  it('rotates: add, use, remove (never the primary)', () => {
    const ring = Keyring.create(k16).add(k32).use(k32);
    expect(ring.primary).toEqual(k32);
    expect(ring.remove(k16).keys).toEqual([k32]);
    expect(() => ring.remove(k32)).toThrow(CodecError);
    expect(() => ring.use(k24)).toThrow(CodecError);
  });
});

describe('encryption', () => {
  const key = new Uint8Array(32).map((_, i) => i);
  const nonce = new Uint8Array(12).fill(9);
  const ring = Keyring.create(key);

  it('version 1: [01][nonce][ciphertext+tag], 29 bytes of overhead', () => {
    const msg = text('hello memberlist');
    const out = encryptPayload(1, key, msg, new Uint8Array(0), nonce);
    expect(out.length).toBe(msg.length + 29);
    expect(out.length).toBe(encryptedLength(1, msg.length));
    expect(hex(out.subarray(0, 13))).toBe('01' + '09'.repeat(12));
    expect(decryptPayload(ring, out, new Uint8Array(0))).toEqual(msg);
  });

  it('version 0 pads with PKCS7 to 16 bytes (a whole block when already aligned)', () => {
    for (let n = 0; n <= 33; n++) {
      const msg = new Uint8Array(n).fill(7);
      const out = encryptPayload(0, key, msg, new Uint8Array(0), nonce);
      expect(out.length).toBe(encryptedLength(0, n));
      expect(out.length).toBe(1 + 12 + (Math.floor(n / 16) + 1) * 16 + 16);
      expect(decryptPayload(ring, out, new Uint8Array(0))).toEqual(msg);
    }
  });

  it('tries every key: a packet sealed with an old key opens after rotation', () => {
    const old = new Uint8Array(16).fill(5);
    const sealed = encryptPayload(1, old, text('x'), new Uint8Array(0), nonce);
    expect(() => decryptPayload(ring, sealed, new Uint8Array(0))).toThrow(/no installed key/);
    expect(decryptPayload(ring.add(old), sealed, new Uint8Array(0))).toEqual(text('x'));
  });

  it('authenticates the additional data: UDP the label, TCP [0a][length] + label', () => {
    const sealed = encryptPayload(1, key, text('x'), text('lab'), nonce);
    expect(decryptPayload(ring, sealed, text('lab'))).toEqual(text('x'));
    expect(() => decryptPayload(ring, sealed, text('other'))).toThrow(DecodeError);
    expect(hex(streamAad(0x1234, text('lab')))).toBe('0a00001234' + '6c6162');
  });

  it('rejects empty, unknown versions, short payloads and bad padding', () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as DecodeError).code;
      }
      return 'none';
    };
    expect(code(() => decryptPayload(ring, new Uint8Array(0), new Uint8Array(0)))).toBe('decryptFailed');
    expect(code(() => decryptPayload(ring, new Uint8Array(64).fill(2), new Uint8Array(0)))).toBe('decryptFailed');
    expect(code(() => decryptPayload(ring, new Uint8Array(28).fill(1), new Uint8Array(0)))).toBe('decryptFailed');
    expect(code(() => decryptPayload(ring, new Uint8Array(44), new Uint8Array(0)))).toBe('decryptFailed');
    // A version-0 body whose last byte claims 0 padding: only a key holder can make one; Go would mis-slice.
    const badPad = encryptPayload(1, key, new Uint8Array(16), new Uint8Array(0), nonce);
    badPad[0] = 0;
    expect(code(() => decryptPayload(ring, badPad, new Uint8Array(0)))).toBe('decryptFailed');
  });

  it('protocol 1 uses version 0, anything newer version 1', () => {
    expect([1, 2, 5].map(encryptionVersionFor)).toEqual([0, 1, 1]);
  });
});

describe("MetalLB's key", () => {
  // Computed by Go (test/interop/go/memberlist-capture, metallbKey: sha256.New().Sum(secret)[:32]) for the
  // 22-character secret "c2VjcmV0LWtleS1vZi1tbG", with and without a trailing newline; also in the captures.
  it('is the secret bytes followed by SHA-256(""), cut to 32 bytes', () => {
    expect(hex(metallbKeyFromSecret(text('c2VjcmV0LWtleS1vZi1tbG')))).toBe(
      '6332566a636d56304c57746c655331765a6931746247e3b0c44298fc1c149afb',
    );
    expect(hex(metallbKeyFromSecret(text('c2VjcmV0LWtleS1vZi1tbG\n')))).toBe(
      '6332566a636d56304c57746c655331765a69317462470ae3b0c44298fc1c149a',
    );
  });

  it('keeps a long secret as its first 32 bytes, and no secret means no encryption', () => {
    expect(metallbKeyFromSecret(new Uint8Array(40).fill(0x41))).toEqual(new Uint8Array(32).fill(0x41));
    expect(metallbKeyFromSecret(new Uint8Array(0))).toBeUndefined();
  });
});
