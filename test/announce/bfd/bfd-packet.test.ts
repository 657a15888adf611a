/**
 * The BFD Control packet codec (RFC 5880 section 4.1) and its stateless 6.8.6 checks: annotated vectors, one
 * vector per drop reason, fast-check round trips, and garbage that must never throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BfdError } from '../../../src/announce/bfd/bfd-error';
import { BFD_STATES, bfdDiagName, decodeBfdControl, encodeBfdControl, type BfdControlPacket } from '../../../src/announce/bfd/bfd-packet';

function hex(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
}

/**
 * Hand-assembled from the section 4.1 diagram: a session in Down sending its first packet (slow TX).
 *   20        version 1 (001), diag 0 (00000)
 *   40        state Down (01), no flags
 *   03        detect mult 3
 *   18        length 24
 *   0000a1b2  my discriminator
 *   00000000  your discriminator: not known yet
 *   000f4240  desired min TX 1,000,000 us (1 s while not Up, 6.8.3)
 *   000493e0  required min RX 300,000 us
 *   00000000  required min echo RX 0: no Echo
 */
const DOWN_HELLO = hex('20 40 03 18  0000a1b2  00000000  000f4240  000493e0  00000000');

/**
 *   21        version 1, diag 1 (Control Detection Time Expired)
 *   e8        state Up (11), P (1), F (0), C (1), A 0, D 0, M 0 -> 1110 1000
 *   05        detect mult 5
 *   18        length 24
 *   ...       discriminators 7 and 0x01020304, 50 ms / 100 ms / 50 ms (echo)
 */
const UP_POLL = hex('21 e8 05 18  00000007  01020304  0000c350  000186a0  0000c350');

const base: BfdControlPacket = {
  diag: 0,
  state: 'Down',
  poll: false,
  final: false,
  controlPlaneIndependent: false,
  demand: false,
  multipoint: false,
  detectMult: 3,
  myDiscriminator: 0xa1b2,
  yourDiscriminator: 0,
  desiredMinTxUs: 1_000_000,
  requiredMinRxUs: 300_000,
  requiredMinEchoRxUs: 0,
};

describe('vectors', () => {
  it('decodes and encodes the first packet of a Down session', () => {
    const d = decodeBfdControl(DOWN_HELLO);
    expect(d).toEqual({ ok: true, value: base });
    expect(Buffer.from(encodeBfdControl(base)).toString('hex')).toBe(Buffer.from(DOWN_HELLO).toString('hex'));
  });

  it('reads every flag and field of an Up packet with Poll', () => {
    const d = decodeBfdControl(UP_POLL);
    expect(d.ok && d.value).toEqual({
      diag: 1,
      state: 'Up',
      poll: true,
      final: false,
      controlPlaneIndependent: true,
      demand: false,
      multipoint: false,
      detectMult: 5,
      myDiscriminator: 7,
      yourDiscriminator: 0x01020304,
      desiredMinTxUs: 50_000,
      requiredMinRxUs: 100_000,
      requiredMinEchoRxUs: 50_000,
    });
    expect(bfdDiagName(1)).toBe('controlDetectionTimeExpired');
    expect(bfdDiagName(20)).toBe('diag20');
  });

  it('parses an authentication section (Simple Password, 4.2.1) without verifying it', () => {
    // A bit set (0x04), length 24 + 7; auth type 1, auth len 7, key id 1, password "abcd".
    const bytes = hex('20 44 03 1f  00000001  00000000  000f4240  000f4240  00000000  01 07 01 61626364');
    const d = decodeBfdControl(bytes);
    expect(d.ok && d.value.auth).toEqual({ type: 1, data: hex('01 61626364') });
    expect(d.ok && Buffer.from(encodeBfdControl(d.value)).equals(Buffer.from(bytes))).toBe(true);
  });

  it('ignores octets after Length (padding)', () => {
    const padded = new Uint8Array([...DOWN_HELLO, 0, 0, 0, 0]);
    expect(decodeBfdControl(padded)).toEqual({ ok: true, value: base });
  });
});

/**
 * UDP payloads captured from FRR 8.4.4 bfdd (Debian 12) in a two-namespace lab, `tcpdump -x`, while it brought a
 * session up with mlb (bfd / peer 10.213.9.2, receive- and transmit-interval 300). FRR's discriminator 0x143da796,
 * mlb's 0xa9d958fe. FRR keeps diag 1 from the session's last timeout until Up, slows both TX and RX to 1 s while
 * not Up, advertises Echo RX 50 ms, answers a Poll and polls itself in the same instant.
 */
const FRR = {
  down: hex('21 40 03 18  143da796  00000000  000f4240  000f4240  0000c350'),
  init: hex('21 80 03 18  143da796  a9d958fe  000f4240  000f4240  0000c350'),
  upPoll: hex('20 e0 03 18  143da796  a9d958fe  000493e0  000493e0  0000c350'),
  upFinal: hex('20 d0 03 18  143da796  a9d958fe  000493e0  000493e0  0000c350'),
};

describe('packets captured from FRR bfdd', () => {
  it('decode field by field, and re-encode to the same bytes', () => {
    const frr = { ...base, myDiscriminator: 0x143da796, requiredMinEchoRxUs: 50_000 };
    const expected = {
      down: { ...frr, diag: 1, state: 'Down', yourDiscriminator: 0, desiredMinTxUs: 1_000_000, requiredMinRxUs: 1_000_000 },
      init: { ...frr, diag: 1, state: 'Init', yourDiscriminator: 0xa9d958fe, desiredMinTxUs: 1_000_000, requiredMinRxUs: 1_000_000 },
      upPoll: { ...frr, state: 'Up', poll: true, yourDiscriminator: 0xa9d958fe, desiredMinTxUs: 300_000, requiredMinRxUs: 300_000 },
      upFinal: { ...frr, state: 'Up', final: true, yourDiscriminator: 0xa9d958fe, desiredMinTxUs: 300_000, requiredMinRxUs: 300_000 },
    };
    for (const [name, bytes] of Object.entries(FRR)) {
      const d = decodeBfdControl(bytes);
      expect(d.ok && d.value, name).toEqual(expected[name as keyof typeof FRR]);
      expect(d.ok && Buffer.from(encodeBfdControl(d.value)).equals(Buffer.from(bytes)), name).toBe(true);
    }
  });
});

describe('6.8.6 drops, one reason each', () => {
  const cases: [string, string, Uint8Array][] = [
    ['truncated', '23 octets', DOWN_HELLO.slice(0, 23)],
    ['badVersion', 'version 2', hex('40 40 03 18  0000a1b2  00000000  000f4240  000493e0  00000000')],
    ['badLength', 'Length 20 < 24', hex('20 40 03 14  0000a1b2  00000000  000f4240  000493e0  00000000')],
    ['badLength', 'Length 28 > payload 24', hex('20 40 03 1c  0000a1b2  00000000  000f4240  000493e0  00000000')],
    ['badLength', 'A bit with Length 24 (< 26)', hex('20 44 03 18  0000a1b2  00000000  000f4240  000493e0  00000000')],
    ['zeroDetectMult', 'detect mult 0', hex('20 40 00 18  0000a1b2  00000000  000f4240  000493e0  00000000')],
    ['multipoint', 'M bit', hex('20 41 03 18  0000a1b2  00000000  000f4240  000493e0  00000000')],
    ['zeroMyDiscriminator', 'my discriminator 0', hex('20 40 03 18  00000000  00000000  000f4240  000493e0  00000000')],
    ['zeroYourDiscriminator', 'Init with your discriminator 0', hex('20 80 03 18  0000a1b2  00000000  000f4240  000493e0  00000000')],
    ['zeroYourDiscriminator', 'Up with your discriminator 0', hex('20 c0 03 18  0000a1b2  00000000  000f4240  000493e0  00000000')],
    ['badAuthLength', 'Auth Len 5 in a 28-octet packet', hex('20 44 03 1c  0000a1b2  00000000  000f4240  000493e0  00000000  01 05 01 61')],
    ['badAuthLength', 'Auth Len 1', hex('20 44 03 1a  0000a1b2  00000000  000f4240  000493e0  00000000  01 01')],
  ];
  for (const [reason, what, bytes] of cases) {
    it(`${reason}: ${what}`, () => {
      const d = decodeBfdControl(bytes);
      expect(d.ok).toBe(false);
      expect(!d.ok && d.reason).toBe(reason);
    });
  }

  it('accepts your discriminator 0 in Down and AdminDown', () => {
    expect(decodeBfdControl(hex('20 00 03 18  0000a1b2  00000000  000f4240  000493e0  00000000')).ok).toBe(true);
    expect(decodeBfdControl(DOWN_HELLO).ok).toBe(true);
  });
});

describe('encoding refuses what cannot be on the wire', () => {
  const bad: [string, Partial<BfdControlPacket>][] = [
    ['diag 32', { diag: 32 }],
    ['detect mult 256', { detectMult: 256 }],
    ['a negative discriminator', { myDiscriminator: -1 }],
    ['an interval above 2^32 - 1', { desiredMinTxUs: 2 ** 32 }],
    ['a fractional interval', { requiredMinRxUs: 1.5 }],
    ['P and F together (6.5)', { poll: true, final: true }],
    ['an unknown state', { state: 'Sleeping' as never }],
    ['an auth section beyond 255 octets', { auth: { type: 2, data: new Uint8Array(240) } }],
  ];
  for (const [what, fields] of bad) {
    it(what, () => {
      let caught: unknown;
      try {
        encodeBfdControl({ ...base, ...fields });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(BfdError);
      expect((caught as BfdError).code).toBe('invalidField');
    });
  }
});

const uint32 = fc.integer({ min: 0, max: 0xffff_ffff });
const packetArb: fc.Arbitrary<BfdControlPacket> = fc
  .record({
    diag: fc.integer({ min: 0, max: 31 }),
    state: fc.constantFrom(...BFD_STATES),
    pf: fc.constantFrom([false, false], [true, false], [false, true]),
    controlPlaneIndependent: fc.boolean(),
    demand: fc.boolean(),
    detectMult: fc.integer({ min: 1, max: 255 }),
    myDiscriminator: fc.integer({ min: 1, max: 0xffff_ffff }),
    yourDiscriminator: uint32,
    desiredMinTxUs: uint32,
    requiredMinRxUs: uint32,
    requiredMinEchoRxUs: uint32,
    auth: fc.option(fc.record({ type: fc.integer({ min: 0, max: 255 }), data: fc.uint8Array({ maxLength: 229 }) }), { nil: undefined }),
  })
  .map(({ pf, auth, ...rest }) => {
    const packet: BfdControlPacket = { ...rest, poll: pf[0]!, final: pf[1]!, multipoint: false };
    // Your Discriminator 0 is only valid in Down and AdminDown (6.8.6).
    const valid =
      packet.yourDiscriminator === 0 && (packet.state === 'Init' || packet.state === 'Up') ? { ...packet, yourDiscriminator: 1 } : packet;
    return auth ? { ...valid, auth } : valid;
  });

describe('properties', () => {
  it('decode(encode(p)) is p for every valid packet', () => {
    fc.assert(
      fc.property(packetArb, (p) => {
        expect(decodeBfdControl(encodeBfdControl(p))).toEqual({ ok: true, value: p });
      }),
      { numRuns: 2_000 },
    );
  });

  it('never throws on arbitrary bytes; anything accepted re-encodes to exactly its first Length octets', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const d = decodeBfdControl(bytes);
        // A received packet with both P and F is read (6.8.6 does not discard it) but can never be sent.
        if (d.ok && !(d.value.poll && d.value.final)) {
          expect(Buffer.from(encodeBfdControl(d.value)).equals(Buffer.from(bytes.subarray(0, bytes[3])))).toBe(true);
        }
      }),
      { numRuns: 5_000 },
    );
  });

  it('never throws on valid packets with bytes flipped, cut or appended', () => {
    fc.assert(
      fc.property(
        packetArb,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
        fc.nat(300),
        fc.uint8Array({ maxLength: 8 }),
        (p, flips, cut, tail) => {
          const bytes = encodeBfdControl(p);
          for (const [at, value] of flips) bytes[at % bytes.length] = value;
          const mangled = new Uint8Array([...bytes.subarray(0, cut), ...tail]);
          const d = decodeBfdControl(mangled);
          expect(typeof d.ok).toBe('boolean');
        },
      ),
      { numRuns: 5_000 },
    );
  });
});
