/**
 * Fuzz: >= 100,000 random and mutated BGP messages (truncations, lying lengths, bad markers, flag flips,
 * attribute length lies, unknown types, splices, garbage) through decodeMessage and BgpMessageReader.push.
 * Nothing may throw out of them; every failure must carry a code/subcode from RFC 4271 4.5 / RFC 7313's tables;
 * a message that decodes cleanly must re-encode to something that decodes the same; the reader and the
 * whole-message decoder must agree. Deterministic (seeded), so a failure reproduces; the failing input's hex is
 * in the assertion message, to become a named case in malformed.test.ts.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  BgpDecodeError,
  BgpEncodeError,
  BgpMessageReader,
  decodeMessage,
  encodeMessage,
  type DecodeResult,
} from '../../../../src/announce/bgp/codec';
import * as arb from './bgp-arbitraries';
import * as vectors from './bgp-vectors';
import { hex, toHex } from './bgp-vectors';

const MESSAGES = 120_000;
const OPTIONS = { fourOctetAsn: true };
/** Every fourth message is read as from a peer without the 4-octet ASN capability (2-octet AS_PATHs). */
const TWO_OCTET = { fourOctetAsn: false };

/** RFC 4271 4.5 (with RFC 5492's 2/7 and RFC 7313's 7/1): the NOTIFICATIONs a decode error may carry. */
const RFC_SUBCODES: Readonly<Record<number, readonly number[]>> = {
  1: [1, 2, 3],
  2: [0, 1, 2, 3, 4, 6, 7],
  3: [1, 2, 3, 4, 5, 6, 8, 9, 10, 11],
  7: [1],
};

/** xorshift32: small, fast, seeded. */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x1_0000_0000;
  };
}

function corpus(): Uint8Array[] {
  const fixtures = ['gobgp', 'frr'].flatMap((name) =>
    readFileSync(new URL(`../../../fixtures/bgp/${name}-stream.hex`, import.meta.url), 'utf8')
      .trim()
      .split('\n')
      .map((l) => hex(l)),
  );
  const handWritten = Object.values(vectors).filter((v): v is Uint8Array => v instanceof Uint8Array);
  const generated = fc.sample(arb.message(true), { seed: 4271, numRuns: 400 }).map((m) => encodeMessage(m, OPTIONS));
  return [...handWritten, ...fixtures, ...generated];
}

type Mutator = (b: Uint8Array, r: () => number, pick: () => Uint8Array) => Uint8Array;
const int = (r: () => number, n: number) => Math.floor(r() * n);
const setLength = (b: Uint8Array, length: number) => {
  if (b.length >= 18) {
    b[16] = (length >> 8) & 0xff;
    b[17] = length & 0xff;
  }
  return b;
};

/** Offsets of path attributes in an UPDATE, walked tolerantly (stops at the first implausible one). */
function attributeOffsets(b: Uint8Array): number[] {
  if (b.length < 23 || b[18] !== 2) return [];
  const wl = ((b[19] ?? 0) << 8) | (b[20] ?? 0);
  let o = 21 + wl;
  const tal = ((b[o] ?? 0) << 8) | (b[o + 1] ?? 0);
  o += 2;
  const end = Math.min(b.length, o + tal);
  const out: number[] = [];
  while (o + 3 <= end && out.length < 32) {
    out.push(o);
    const ext = ((b[o] ?? 0) & 0x10) !== 0;
    const len = ext ? ((b[o + 2] ?? 0) << 8) | (b[o + 3] ?? 0) : (b[o + 2] ?? 0);
    o += (ext ? 4 : 3) + len;
  }
  return out;
}

const MUTATORS: Record<string, Mutator> = {
  truncate: (b, r) => b.slice(0, int(r, b.length + 1)),
  truncateAndFixLength: (b, r) => {
    const t = b.slice(0, 19 + int(r, Math.max(1, b.length - 18)));
    return setLength(t, t.length);
  },
  extend: (b, r) => {
    const x = new Uint8Array(b.length + 1 + int(r, 40));
    x.set(b);
    for (let i = b.length; i < x.length; i++) x[i] = int(r, 256);
    return setLength(x, x.length);
  },
  flipByte: (b, r) => {
    const x = b.slice();
    if (x.length) x[int(r, x.length)] = int(r, 256);
    return x;
  },
  flipBodyBit: (b, r) => {
    const x = b.slice();
    if (x.length > 19) x[19 + int(r, x.length - 19)]! ^= 1 << int(r, 8);
    return x;
  },
  lieLength: (b, r) => setLength(b.slice(), r() < 0.5 ? int(r, 5000) : b.length + int(r, 9) - 4),
  badMarker: (b, r) => {
    const x = b.slice();
    if (x.length) x[int(r, Math.min(16, x.length))] = int(r, 255);
    return x;
  },
  unknownType: (b, r) => {
    const x = b.slice();
    if (x.length > 18) x[18] = r() < 0.5 ? 6 + int(r, 250) : int(r, 7);
    return x;
  },
  attributeFlags: (b, r) => {
    const x = b.slice();
    const offs = attributeOffsets(x);
    if (offs.length) x[offs[int(r, offs.length)]!]! ^= [0x80, 0x40, 0x20, 0x10, 0xc0][int(r, 5)]!;
    return x;
  },
  attributeLength: (b, r) => {
    const x = b.slice();
    const offs = attributeOffsets(x);
    if (offs.length) {
      const o = offs[int(r, offs.length)]!;
      x[o + 2] = r() < 0.5 ? int(r, 256) : (x[o + 2]! + int(r, 5) - 2) & 0xff;
    }
    return x;
  },
  attributeType: (b, r) => {
    const x = b.slice();
    const offs = attributeOffsets(x);
    if (offs.length) x[offs[int(r, offs.length)]! + 1] = r() < 0.5 ? int(r, 40) : int(r, 256);
    return x;
  },
  updateLengths: (b, r) => {
    const x = b.slice();
    if (x.length >= 23 && x[18] === 2) {
      const at = r() < 0.5 ? 19 : 21 + (((x[19]! << 8) | x[20]!) % 4000);
      if (at + 1 < x.length) {
        x[at] = int(r, 3);
        x[at + 1] = int(r, 256);
      }
    }
    return x;
  },
  openParameters: (b, r) => {
    const x = b.slice();
    if (x.length >= 29 && x[18] === 1) x[19 + 9 + int(r, 3)] = int(r, 256);
    return x;
  },
  splice: (b, r, pick) => {
    const o = pick();
    const x = Uint8Array.from([...b.slice(0, int(r, b.length + 1)), ...o.slice(int(r, o.length + 1))]);
    return r() < 0.7 ? setLength(x, x.length) : x;
  },
  garbage: (_base, r) => {
    const x = new Uint8Array(19 + int(r, 120));
    x.fill(0xff, 0, 16);
    for (let i = 18; i < x.length; i++) x[i] = int(r, 256);
    x[18] = 1 + int(r, 5);
    return setLength(x, x.length);
  },
};
const MUTATOR_NAMES = Object.keys(MUTATORS);

function checkError(e: BgpDecodeError, input: Uint8Array, where: string): void {
  const allowed = RFC_SUBCODES[e.notificationCode];
  if (!(e instanceof BgpDecodeError) || !allowed?.includes(e.subcode) || !(e.data instanceof Uint8Array)) {
    expect.fail(`${where}: ${e.notificationCode}/${e.subcode} is not in the RFC tables for input ${toHex(input)}`);
  }
}

function outcomeOf(result: DecodeResult): string {
  if (!result.ok) return `error ${result.error.notificationCode}/${result.error.subcode}`;
  if (result.treatAsWithdraw) return 'ok: treat-as-withdraw';
  if (result.message.type === 'update' && result.message.discardedAttributes) return 'ok: attribute discard';
  return `ok: ${result.message.type}`;
}

describe('BGP fuzz', () => {
  it(`${MESSAGES} random and mutated messages: no throw, RFC codes only, reader and decoder agree`, () => {
    // MLB_BGP_FUZZ_SEED explores other inputs by hand; the default keeps CI deterministic.
    const r = prng(Number(process.env['MLB_BGP_FUZZ_SEED'] ?? 0x4271_7606));
    const seeds = corpus();
    const pick = () => seeds[int(r, seeds.length)] as Uint8Array;
    const counts = new Map<string, number>();
    const byMutator = new Map<string, number>();
    const keepalive = vectors.KEEPALIVE;
    for (let i = 0; i < MESSAGES; i++) {
      let input = pick();
      const rounds = 1 + int(r, 3);
      for (let k = 0; k < rounds; k++) {
        const name = MUTATOR_NAMES[int(r, MUTATOR_NAMES.length)] as string;
        byMutator.set(name, (byMutator.get(name) ?? 0) + 1);
        input = (MUTATORS[name] as Mutator)(input, r, pick);
      }

      const options = i % 4 === 0 ? TWO_OCTET : OPTIONS;
      let result: DecodeResult;
      try {
        result = decodeMessage(input, options);
      } catch (e) {
        expect.fail(`decodeMessage threw ${String(e)} for ${toHex(input)}`);
      }
      const outcome = outcomeOf(result);
      counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
      if (!result.ok) checkError(result.error, input, 'decodeMessage');
      else if (!result.treatAsWithdraw && !(result.message.type === 'update' && result.message.discardedAttributes)) {
        // A clean decode re-encodes (or is refused with BgpEncodeError) to bytes that decode the same.
        let encoded: Uint8Array | undefined;
        try {
          encoded = encodeMessage(result.message, options);
        } catch (e) {
          if (!(e instanceof BgpEncodeError)) expect.fail(`encodeMessage threw ${String(e)} re-encoding ${toHex(input)}`);
        }
        if (encoded) {
          const again = decodeMessage(encoded, options);
          if (!again.ok || !isDeepStrictEqual(again.message, result.message))
            expect.fail(`re-encoding changed the message for ${toHex(input)}`);
        }
      }

      // The same bytes, in up to three chunks, then a KEEPALIVE, through the stream reader.
      const reader = new BgpMessageReader(options);
      const stream = new Uint8Array(input.length + keepalive.length);
      stream.set(input);
      stream.set(keepalive, input.length);
      const cut1 = int(r, stream.length + 1);
      const cut2 = cut1 + int(r, stream.length - cut1 + 1);
      const read = [] as ReturnType<BgpMessageReader['push']>[];
      try {
        for (const chunk of [stream.subarray(0, cut1), stream.subarray(cut1, cut2), stream.subarray(cut2)]) read.push(reader.push(chunk));
      } catch (e) {
        expect.fail(`BgpMessageReader.push threw ${String(e)} for ${toHex(input)}`);
      }
      const error = read.find((x) => x.error)?.error;
      if (error) checkError(error, input, 'BgpMessageReader');
      const announced = input.length >= 19 ? ((input[16] as number) << 8) | (input[17] as number) : -1;
      if (announced === input.length) {
        // Framed exactly: the reader must give the decoder's verdict, then the KEEPALIVE if the stream survived.
        const messages = read.reduce((n, x) => n + x.messages.length, 0);
        const agree = result.ok
          ? error === undefined && messages === 2
          : error?.notificationCode === result.error.notificationCode && error.subcode === result.error.subcode && messages === 0;
        if (!agree) expect.fail(`reader and decoder disagree on ${toHex(input)}`);
      }
    }

    const table = [...counts.entries()].sort((a, b) => b[1] - a[1]);
    console.log(`BGP fuzz: ${MESSAGES} messages from ${seeds.length} seeds; mutations ${JSON.stringify(Object.fromEntries(byMutator))}`);
    console.table(Object.fromEntries(table));
    const total = table.reduce((s, [, n]) => s + n, 0);
    expect(total).toBe(MESSAGES);
    // The fuzzer reaches deep: header, OPEN and UPDATE errors, and RFC 7606's softer outcomes all occur.
    for (const outcome of [
      'error 1/1',
      'error 1/2',
      'error 1/3',
      'error 2/0',
      'error 3/1',
      'error 3/10',
      'ok: treat-as-withdraw',
      'ok: attribute discard',
      'ok: update',
      'ok: open',
    ]) {
      expect(counts.get(outcome) ?? 0, outcome).toBeGreaterThan(0);
    }
  });
});
