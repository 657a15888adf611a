/** fast-check: every message type survives encode -> decode unchanged, whole and through the stream reader. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BgpMessageReader, decodeMessage, encodeMessage, isEndOfRib } from '../../../../src/announce/bgp/codec';
import * as arb from './bgp-arbitraries';

const FOUR = { fourOctetAsn: true };
const TWO = { fourOctetAsn: false };
const RUNS = { numRuns: 400 };

function roundTrips(options: typeof FOUR) {
  return (message: Parameters<typeof encodeMessage>[0]) => {
    const bytes = encodeMessage(message, options);
    expect(bytes.length).toBeLessThanOrEqual(4096);
    expect(decodeMessage(bytes, options)).toEqual({ ok: true, message });
  };
}

describe('round trips (fast-check)', () => {
  it('OPEN', () => fc.assert(fc.property(arb.open(), roundTrips(FOUR)), RUNS));
  it('UPDATE with 4-octet AS_PATHs', () => fc.assert(fc.property(arb.update(true), roundTrips(FOUR)), RUNS));
  it('UPDATE with 2-octet AS_PATHs (a peer without the 4-octet ASN capability)', () =>
    fc.assert(fc.property(arb.update(false), roundTrips(TWO)), RUNS));
  it('NOTIFICATION, KEEPALIVE, ROUTE-REFRESH and everything mixed', () =>
    fc.assert(fc.property(arb.message(true), roundTrips(FOUR)), RUNS));

  it('a stream of random messages cut at random points reads back in order', () => {
    fc.assert(
      fc.property(
        fc.array(arb.message(true), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 20 }),
        (messages, cuts) => {
          const stream = Uint8Array.from(messages.flatMap((m) => [...encodeMessage(m, FOUR)]));
          const reader = new BgpMessageReader(FOUR);
          const out = [];
          let at = 0;
          for (let i = 0; at < stream.length; i++) {
            const size = cuts[i % cuts.length] as number;
            const r = reader.push(stream.subarray(at, at + size));
            expect(r.error).toBeUndefined();
            out.push(...r.messages);
            at += size;
          }
          expect(out).toEqual(messages);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('an UPDATE is an End-of-RIB exactly when it carries nothing but (at most) an empty MP_UNREACH_NLRI', () => {
    fc.assert(
      fc.property(arb.update(true), (u) => {
        const { mpUnreach, ...rest } = u.attributes;
        const empty =
          u.withdrawn.length === 0 && u.nlri.length === 0 && Object.keys(rest).length === 0 && (mpUnreach?.withdrawn.length ?? 0) === 0;
        expect(isEndOfRib(u)).toBe(empty);
      }),
      RUNS,
    );
  });
});
