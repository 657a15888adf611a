/**
 * Fuzzing decodePacket and the StreamReader with random and mutated input: the captures from Go (bit flips,
 * truncations, lying lengths, spliced bytes), mlb-encoded messages in every wrapping, and hand-made hostile
 * shapes (truncated compounds, LZW bombs, Vsn of the wrong length, oversize push/pull, nested wrappers).
 * Nothing may throw, every drop must carry a reason from the table, decompression stays within its limit.
 *
 * Deterministic: MLB_FUZZ_SEED picks the run (MLB_FUZZ_SCALE multiplies the counts). A failure prints the
 * input as hex; add it to the regression list below.
 */
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodePacket,
  DROP_REASONS,
  encodeCompound,
  encodeCompressed,
  encodeMessage,
  encodePacket,
  encodeStream,
  Keyring,
  lzwCompress,
  PACKET_MAX_DECOMPRESSED_BYTES,
  StreamReader,
  VSN_LENGTH_CHECK,
} from './fuzz-support';
import { keyringOf, loadCaptures } from './capture-checks';
import { message } from './arbitraries';
import type { GossipMessage } from '../../../src/gossip/messages';

const SEED = Number(process.env.MLB_FUZZ_SEED ?? 0x6d6c62);
const SCALE = Number(process.env.MLB_FUZZ_SCALE ?? 1);
const PACKETS = Math.round(80_000 * SCALE);
const STREAMS = Math.round(24_000 * SCALE);
/** Streams are fuzzed with a small decompression cap so bombs cost milliseconds (the cap logic is the same). */
const STREAM_FUZZ_MAX_DECOMPRESSED = 256 * 1024;
const REASONS = new Set<string>(DROP_REASONS);

/** xorshift32: a fast deterministic source for the mutations. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  return {
    int: (n: number) => next() % Math.max(1, n),
    bytes: (n: number) => Uint8Array.from({ length: n }, () => next() & 0xff),
  };
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const captures = loadCaptures(fileURLToPath(new URL('../../fixtures/gossip/', import.meta.url)));
const labelRing = Keyring.create(new Uint8Array(32).fill(0x42));

type Seed = { bytes: Uint8Array; keyring?: Keyring; label?: string };

function seeds(kind: 'packet' | 'stream'): Seed[] {
  const out: Seed[] = [];
  for (const c of captures) {
    const keyring = keyringOf(c);
    if (kind === 'packet') for (const p of c.packets) out.push({ bytes: Buffer.from(p.hex, 'hex'), keyring });
    else for (const s of c.streams ?? []) out.push({ bytes: Buffer.from(s.hex, 'hex'), keyring });
  }
  const sample = fc.sample(message, { seed: SEED, numRuns: 300 });
  sample.forEach((m, i) => {
    const opts = {
      compress: i % 2 === 0,
      crc: i % 3 === 0,
      keyring: i % 5 === 0 ? labelRing : undefined,
      label: i % 7 === 0 ? 'fz' : undefined,
      encryptionVersion: (i % 4 === 0 ? 0 : 1) as 0 | 1,
    };
    try {
      if (kind === 'packet' && m.type !== 'pushPull')
        out.push({
          bytes: encodePacket([m, ...sample.slice(i + 1, i + 1 + (i % 4)).filter((x) => x.type !== 'pushPull')], opts),
          keyring: opts.keyring,
          label: opts.label,
        });
      if (kind === 'stream') out.push({ bytes: encodeStream(m, opts), keyring: opts.keyring, label: opts.label });
    } catch {
      // a compound part over 64 KiB: not a seed
    }
  });
  out.push(...hostile(kind).map((bytes) => ({ bytes })));
  return out;
}

/** Shapes that attack a limit directly. */
function hostile(kind: 'packet' | 'stream'): Uint8Array[] {
  const alive = encodeMessage({
    type: 'alive',
    incarnation: 1,
    node: 'n',
    addr: Uint8Array.of(1, 2, 3, 4),
    port: 1,
    vsn: Uint8Array.of(1, 5, 2, 0, 0, 0),
  });
  const shortVsn = Uint8Array.from(
    hex(alive).includes('a6010502000000') ? Buffer.from(hex(alive).replace('a6010502000000', 'a3010502'), 'hex') : alive,
  );
  let nested = alive;
  for (let i = 0; i < 6; i++) nested = i % 2 === 0 ? encodeCompound([nested, alive]) : encodeCompressed(nested);
  const bomb = encodeCompressed(new Uint8Array(8 * 1024 * 1024).fill(8));
  const list: Uint8Array[] = [
    shortVsn,
    nested,
    encodeCompound([alive, shortVsn, alive]),
    encodeCompound([alive, alive]).subarray(0, 9),
    Uint8Array.of(7, 255, 0xff, 0xff),
    bomb,
    encodeCompound([bomb, bomb]),
    encodeCompressed(encodeCompressed(encodeCompound([alive, alive]))),
    Uint8Array.of(9, 0x82, 0xa4, 0x41, 0x6c, 0x67, 0x6f, 0, 0xa3, 0x42, 0x75, 0x66, 0xdb, 0xff, 0xff, 0xff, 0xff),
    // push/pull header: 4 billion nodes, -1 user state
    Uint8Array.from(Buffer.from('0683a44a6f696ec3a54e6f646573ceffffffffac5573657253746174654c656ed3ffffffffffffffff', 'hex')),
    Uint8Array.of(10, 0xff, 0xff, 0xff, 0xff, 1, 2, 3),
    lzwCompress(new Uint8Array(0)),
  ];
  if (kind === 'stream') list.push(Uint8Array.of(0xf4, 3, 0x61, 0x62, 0x63, 6, 0x80));
  return list;
}

function mutate(r: ReturnType<typeof rng>, src: Uint8Array, pool: Seed[]): Uint8Array {
  const b = Uint8Array.from(src);
  switch (r.int(9)) {
    case 0: // bit flips
      for (let k = 1 + r.int(4); k > 0 && b.length > 0; k--) {
        const at = r.int(b.length);
        b[at] = (b[at] as number) ^ (1 << r.int(8));
      }
      return b;
    case 1: // truncate
      return b.subarray(0, r.int(b.length + 1));
    case 2: // random byte values, biased to msgpack/length markers
      for (let k = 1 + r.int(3); k > 0 && b.length > 0; k--)
        b[r.int(b.length)] = [0x00, 0xff, 0xdb, 0xdf, 0xdd, 0xc6, 0x07, 0x09, 0x0c, 0xf4, 0x7f, 0x80][r.int(12)] ?? 0;
      return b;
    case 3: // lying u16/u32 lengths
      if (b.length > 4) {
        const at = r.int(b.length - 4);
        new DataView(b.buffer).setUint32(at, [0xffffffff, 0x7fffffff, 0x0000ffff, 0x00010000, r.int(2 ** 31)][r.int(5)] ?? 0);
      }
      return b;
    case 4: // append garbage
      return Uint8Array.from([...b, ...r.bytes(1 + r.int(40))]);
    case 5: {
      // splice two seeds
      const other = pool[r.int(pool.length)]?.bytes ?? b;
      return Uint8Array.from([...b.subarray(0, r.int(b.length + 1)), ...other.subarray(r.int(other.length + 1))]);
    }
    case 6: // wrap in a compound (maybe lying) or compress
      return r.int(2) === 0 ? encodeCompound([b.subarray(0, 0xffff)]).map((x, i) => (i === 1 ? r.int(256) : x)) : encodeCompressed(b);
    case 7: {
      // insert random bytes
      const at = r.int(b.length + 1);
      return Uint8Array.from([...b.subarray(0, at), ...r.bytes(1 + r.int(8)), ...b.subarray(at)]);
    }
    default: {
      // pure noise, sometimes with a plausible first byte
      const n = r.bytes(r.int(200));
      if (n.length > 0 && r.int(2) === 0) n[0] = r.int(14);
      return n;
    }
  }
}

const seen = new Map<string, number>();

function checkDrops(drops: readonly { reason: string }[], input: Uint8Array): void {
  for (const d of drops) {
    if (!REASONS.has(d.reason)) throw new Error(`reason ${d.reason} not in the table; input ${hex(input)}`);
    seen.set(d.reason, (seen.get(d.reason) ?? 0) + 1);
  }
}

function checkMessages(ms: readonly GossipMessage[]): void {
  for (const m of ms) {
    if (m.type === 'alive') expect(m.vsn.length).toBe(VSN_LENGTH_CHECK);
    if (m.type === 'pushPull') for (const n of m.nodes) expect(n.vsn.length).toBe(VSN_LENGTH_CHECK);
  }
}

describe('fuzz', () => {
  it(`decodePacket survives ${PACKETS} random and mutated packets`, () => {
    const r = rng(SEED);
    const pool = seeds('packet');
    let dropped = 0;
    for (let i = 0; i < PACKETS; i++) {
      const seed = pool[r.int(pool.length)] as Seed;
      const input = i % 10 === 0 ? seed.bytes : mutate(r, seed.bytes, pool);
      const opts = { keyring: r.int(4) === 0 ? undefined : seed.keyring, label: seed.label };
      let out;
      try {
        out = decodePacket(input, opts);
      } catch (e) {
        throw new Error(`decodePacket threw ${String(e)} on ${hex(input)}`);
      }
      checkDrops(out.drops, input);
      checkMessages(out.messages);
      if (out.decompressedBytes > PACKET_MAX_DECOMPRESSED_BYTES) throw new Error(`decompressed ${out.decompressedBytes} on ${hex(input)}`);
      if (out.drops.length > 0) dropped++;
    }
    // The mutations must actually hurt, and reach every layer.
    expect(dropped).toBeGreaterThan(PACKETS / 3);
    for (const reason of [
      'badLabel',
      'decryptFailed',
      'badCrc',
      'badCompound',
      'truncatedCompound',
      'badLzw',
      'lzwTooLarge',
      'emptyMessage',
      'unknownType',
      'badMsgpack',
      'badVsn',
      'tooDeep',
    ]) {
      expect(seen.get(reason) ?? 0, reason).toBeGreaterThan(0);
    }
    if (process.env.MLB_FUZZ_REPORT) console.log('packet drops', Object.fromEntries(seen));
    seen.clear();
  });

  it(`the stream reader survives ${STREAMS} random and mutated streams, split at random`, () => {
    const r = rng(SEED ^ 0x5a5a5a5a);
    const pool = seeds('stream');
    for (let i = 0; i < STREAMS; i++) {
      const seed = pool[r.int(pool.length)] as Seed;
      const input = i % 10 === 0 ? seed.bytes : mutate(r, seed.bytes, pool);
      const reader = new StreamReader({
        keyring: r.int(4) === 0 ? undefined : seed.keyring,
        label: seed.label,
        maxDecompressedBytes: STREAM_FUZZ_MAX_DECOMPRESSED,
      });
      try {
        for (let at = 0; at < input.length;) {
          const n = 1 + r.int(r.int(2) === 0 ? 16 : 4096);
          const o = reader.push(input.subarray(at, at + n));
          checkDrops(o.drops, input);
          checkMessages(o.messages);
          at += n;
        }
        checkDrops(reader.end().drops, input);
      } catch (e) {
        throw new Error(`stream reader threw ${String(e)} on ${hex(input)}`);
      }
      if (reader.maxDecompressedSeen > STREAM_FUZZ_MAX_DECOMPRESSED)
        throw new Error(`decompressed ${reader.maxDecompressedSeen} on ${hex(input)}`);
    }
    for (const reason of [
      'decryptFailed',
      'truncatedStream',
      'streamTooLarge',
      'pushPullTooLarge',
      'unknownType',
      'badMsgpack',
      'lzwTooLarge',
      'badLabel',
      'notEncrypted',
      'unexpectedEncryption',
    ]) {
      expect(seen.get(reason) ?? 0, reason).toBeGreaterThan(0);
    }
    if (process.env.MLB_FUZZ_REPORT) console.log('stream drops', Object.fromEntries(seen));
  });
});
