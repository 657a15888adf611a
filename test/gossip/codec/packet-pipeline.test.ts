/**
 * The UDP path: encodePacket's layering and overhead, decodePacket's drop reasons. decodePacket never throws.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addCrc,
  decodePacket,
  DROP_REASONS,
  encodeCompound,
  encodeCompressed,
  encodeMessage,
  encodePacket,
  Keyring,
  PACKET_MAX_DECOMPRESSED_BYTES,
  PACKET_MAX_NESTING,
  packetOverhead,
} from '../../../src/gossip/codec';
import { DEFAULT_VSN, type GossipMessage } from '../../../src/gossip/messages';
import { message } from './arbitraries';

const ip = Uint8Array.of(10, 0, 0, 1);
const alive: GossipMessage = { type: 'alive', incarnation: 4, node: 'node-a', addr: ip, port: 7946, vsn: DEFAULT_VSN };
const ping: GossipMessage = { type: 'ping', seqNo: 9, node: 'node-b' };
const key = new Uint8Array(32).fill(7);
const ring = Keyring.create(key);
const nonce = () => new Uint8Array(12).fill(1);
const reasons = (p: Uint8Array, opts = {}) => decodePacket(p, opts).drops.map((d) => d.reason);

describe('encodePacket / decodePacket', () => {
  it('round-trips one or many messages through every layer', () => {
    const packetMessage = message.filter((m) => m.type !== 'pushPull' && m.type !== 'err');
    const opts = fc.record({
      compress: fc.boolean(),
      crc: fc.boolean(),
      encrypt: fc.boolean(),
      v0: fc.boolean(),
      label: fc.constantFrom(undefined, 'cluster-a'),
    });
    fc.assert(
      fc.property(fc.array(packetMessage, { minLength: 1, maxLength: 6 }), opts, (msgs, o) => {
        const enc = {
          compress: o.compress,
          crc: o.crc,
          keyring: o.encrypt ? ring : undefined,
          encryptionVersion: o.v0 ? (0 as const) : (1 as const),
          nonce,
          label: o.label,
        };
        const r = decodePacket(encodePacket(msgs, enc), { keyring: enc.keyring, label: o.label });
        expect(r.drops).toEqual([]);
        expect(r.messages).toEqual(msgs);
      }),
      { numRuns: 400 },
    );
  });

  it('layers: compound, then compress only when smaller, CRC, encryption, label', () => {
    const one = encodePacket([ping]);
    expect(one).toEqual(encodeMessage(ping));
    expect(encodePacket([ping, alive])[0]).toBe(7);
    // A tiny message grows when compressed, so it stays plain; a repetitive one shrinks.
    expect(encodePacket([ping], { compress: true })).toEqual(encodeMessage(ping));
    const many = Array.from({ length: 10 }, () => alive);
    expect(encodePacket(many, { compress: true })[0]).toBe(9);
    expect(encodePacket([ping], { crc: true })).toEqual(addCrc(encodeMessage(ping)));
    const sealed = encodePacket([ping], { keyring: ring, nonce, label: 'L' });
    expect([...sealed.subarray(0, 4)]).toEqual([0xf4, 1, 0x4c, 1]);
    expect(sealed.length).toBe(3 + 29 + encodeMessage(ping).length);
  });

  it('overhead: the label header and the encryption overhead, what memberlist sendMsg takes from UDPBufferSize', () => {
    expect(packetOverhead({})).toBe(0);
    expect(packetOverhead({ label: 'abc' })).toBe(5);
    expect(packetOverhead({ keyring: ring })).toBe(29);
    expect(packetOverhead({ keyring: ring, encryptionVersion: 0, label: 'abc' })).toBe(45 + 5);
    // A full packet is measured where the reducer packs it: test/gossip/swim/packet-filling.test.ts.
  });
});

describe('decodePacket drops', () => {
  it('labels must match exactly, both ways', () => {
    const labeled = encodePacket([ping], { label: 'a' });
    expect(reasons(labeled)).toEqual(['badLabel']);
    expect(reasons(labeled, { label: 'b' })).toEqual(['badLabel']);
    expect(reasons(encodePacket([ping]), { label: 'a' })).toEqual(['badLabel']);
    expect(reasons(Uint8Array.of(0xf4, 0))).toEqual(['badLabel']);
    expect(decodePacket(labeled, { label: 'a' }).messages).toEqual([ping]);
  });

  it('encryption: wrong key or plaintext drops; GossipVerifyIncoming off accepts plaintext', () => {
    const other = Keyring.create(new Uint8Array(16).fill(1));
    expect(reasons(encodePacket([ping], { keyring: ring, nonce }), { keyring: other })).toEqual(['decryptFailed']);
    expect(reasons(encodePacket([ping]), { keyring: ring })).toEqual(['decryptFailed']);
    expect(decodePacket(encodePacket([ping]), { keyring: ring, verifyIncoming: false }).messages).toEqual([ping]);
    // Sealed under label "a" but delivered without it: the AAD differs.
    const sealed = encodePacket([ping], { keyring: ring, nonce, label: 'a' }).subarray(3);
    expect(reasons(sealed, { keyring: ring })).toEqual(['decryptFailed']);
  });

  it('CRC mismatch', () => {
    const p = encodePacket([ping], { crc: true });
    p[p.length - 1] = (p[p.length - 1] as number) ^ 0x40;
    expect(reasons(p)).toEqual(['badCrc']);
    // Under 5 bytes a leading 12 is no CRC header, just an unknown type.
    expect(reasons(Uint8Array.of(12, 1, 2))).toEqual(['unknownType']);
  });

  it('truncated compounds keep what fits', () => {
    const p = encodePacket([ping, alive, ping]);
    const r = decodePacket(p.subarray(0, p.length - 3));
    expect(r.messages).toEqual([ping, alive]);
    expect(r.drops.map((d) => d.reason)).toEqual(['truncatedCompound']);
    expect(reasons(Uint8Array.of(7, 3, 0))).toEqual(['badCompound']);
  });

  it('one bad part does not spoil the others', () => {
    const bad = Uint8Array.of(4, 0x81, 0xa3, 0x56, 0x73, 0x6e, 0xa1, 1); // alive with a 1-byte Vsn
    const r = decodePacket(encodeCompound([encodeMessage(ping), bad, Uint8Array.of(), Uint8Array.of(99), encodeMessage(alive)]));
    expect(r.messages).toEqual([ping, alive]);
    expect(r.drops.map((d) => d.reason)).toEqual(['badVsn', 'emptyMessage', 'unknownType']);
  });

  it('types memberlist does not take from a packet are unknownType', () => {
    for (const m of [
      { type: 'pushPull', join: false, nodes: [], userState: new Uint8Array(0) },
      { type: 'err', error: 'x' },
    ] as GossipMessage[]) {
      expect(reasons(encodeMessage(m))).toEqual(['unknownType']);
    }
    expect(reasons(Uint8Array.of(10, 1, 2, 3))).toEqual(['unknownType']);
  });

  it('nesting beyond the limit is tooDeep', () => {
    let p = encodeMessage(ping);
    for (let i = 0; i < PACKET_MAX_NESTING; i++) p = encodeCompound([p]);
    expect(decodePacket(p).messages).toEqual([ping]);
    expect(reasons(encodeCompound([p]))).toEqual(['tooDeep']);
  });

  it('an LZW bomb stops at the packet budget, summed over all compress wrappers', () => {
    const big = new Uint8Array(PACKET_MAX_DECOMPRESSED_BYTES + 1).fill(8); // a user message of one byte type + zeros
    expect(reasons(encodeCompressed(big))).toEqual(['lzwTooLarge']);
    const half = encodeCompressed(new Uint8Array(PACKET_MAX_DECOMPRESSED_BYTES / 2 + 10).fill(8));
    expect(reasons(encodeCompound([half, half]))).toEqual(['lzwTooLarge']);
    expect(decodePacket(encodeCompound([half])).messages).toHaveLength(1);
  });

  it('empty and oversize packets, empty decompressed output, unknown algorithms', () => {
    expect(reasons(new Uint8Array(0))).toEqual(['badPacketSize']);
    expect(reasons(new Uint8Array(65537))).toEqual(['badPacketSize']);
    expect(reasons(encodeCompressed(new Uint8Array(0)))).toEqual(['emptyDecompressed']);
    // 09 | 82 a4 "Algo" 01 a3 "Buf" a0
    expect(reasons(Uint8Array.of(9, 0x82, 0xa4, 0x41, 0x6c, 0x67, 0x6f, 1, 0xa3, 0x42, 0x75, 0x66, 0xa0))).toEqual(['badCompression']);
  });

  it('every reason is in the table', () => {
    expect(DROP_REASONS).toContain('badLabel');
    expect(new Set(DROP_REASONS).size).toBe(DROP_REASONS.length);
  });
});
