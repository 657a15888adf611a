/**
 * Messages <-> bytes. The annotated vectors are single messages cut from the plain capture
 * (test/fixtures/gossip/plain.json, memberlist 0.2.2), so they are Go's bytes.
 */
import fc from 'fast-check';
import { message } from './arbitraries';
import { describe, expect, it } from 'vitest';
import { CodecError, DecodeError, decodeMessage, decodeStreamMessage, encodeMessage, encodeStreamMessage } from '../../../src/gossip/codec';
import type { Drop } from '../../../src/gossip/codec';
import { DEFAULT_VSN, type GossipMessage, type PushNodeState } from '../../../src/gossip/messages';

const bytes = (h: string) => new Uint8Array(Buffer.from(h.replace(/\s+|\|/g, ''), 'hex'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const ip = Uint8Array.of(127, 0, 0, 1);

const GO_ALIVE = `04 86
  a4 41646472 a4 7f000001
  ab 496e6361726e6174696f6e 01
  a4 4d657461 c0
  a4 4e6f6465 a5 67616d6d61
  a4 506f7274 cd 9dc5
  a3 56736e a6 010502000000`;
const GO_PING = `00 85
  a4 4e6f6465 a4 62657461
  a5 5365714e6f 01
  aa 536f7572636541646472 a4 7f000001
  aa 536f757263654e6f6465 a5 616c706861
  aa 536f75726365506f7274 cd 802d`;
const GO_INDIRECT = `01 88
  a4 4e61636b c3
  a4 4e6f6465 a6 76696374696d
  a4 506f7274 cd 8563
  a5 5365714e6f 06
  aa 536f7572636541646472 a4 7f000001
  aa 536f757263654e6f6465 a5 616c706861
  aa 536f75726365506f7274 cd 802d
  a6 546172676574 a4 7f000001`;
const GO_ACK = '02 82 a7 5061796c6f6164 c0 a5 5365714e6f 01';
const GO_NACK = '0b 81 a5 5365714e6f 06';
const GO_SUSPECT = '03 83 a4 46726f6d a5 616c706861 ab 496e6361726e6174696f6e 01 a4 4e6f6465 a6 76696374696d';
const GO_DEAD = '05 83 a4 46726f6d a5 616c706861 ab 496e6361726e6174696f6e 01 a4 4e6f6465 a6 76696374696d';
const GO_USER = '08 7564702d757365722d30 00ff';
const GO_PUSH_PULL = `06 83 a4 4a6f696e c3 a5 4e6f646573 01 ac 5573657253746174654c656e 00
  87 a4 41646472 a4 7f000001 ab 496e6361726e6174696f6e 01 a4 4d657461 c0 a4 4e616d65 a5 616c706861
     a4 506f7274 cd 802d a5 5374617465 00 a3 56736e a6 010502000000`;

const GO_VECTORS: [string, string, GossipMessage][] = [
  ['alive', GO_ALIVE, { type: 'alive', incarnation: 1, node: 'gamma', addr: ip, port: 0x9dc5, vsn: DEFAULT_VSN }],
  ['ping', GO_PING, { type: 'ping', seqNo: 1, node: 'beta', sourceAddr: ip, sourceNode: 'alpha', sourcePort: 0x802d }],
  [
    'indirectPing',
    GO_INDIRECT,
    {
      type: 'indirectPing',
      seqNo: 6,
      target: ip,
      port: 0x8563,
      node: 'victim',
      nack: true,
      sourceAddr: ip,
      sourceNode: 'alpha',
      sourcePort: 0x802d,
    },
  ],
  ['ack', GO_ACK, { type: 'ack', seqNo: 1 }],
  ['nack', GO_NACK, { type: 'nack', seqNo: 6 }],
  ['suspect', GO_SUSPECT, { type: 'suspect', incarnation: 1, node: 'victim', from: 'alpha' }],
  ['dead', GO_DEAD, { type: 'dead', incarnation: 1, node: 'victim', from: 'alpha' }],
  ['user', GO_USER, { type: 'user', payload: bytes('7564702d757365722d3000ff') }],
  [
    'pushPull',
    GO_PUSH_PULL,
    {
      type: 'pushPull',
      join: true,
      nodes: [{ name: 'alpha', addr: ip, port: 0x802d, incarnation: 1, state: 'alive', vsn: DEFAULT_VSN }],
      userState: new Uint8Array(0),
    },
  ],
];

describe('Go vectors', () => {
  for (const [name, h, msg] of GO_VECTORS) {
    it(`${name}: decodes Go's bytes and encodes them back exactly`, () => {
      expect(decodeMessage(bytes(h))).toEqual(msg);
      expect(hex(encodeMessage(msg))).toBe(hex(bytes(h)));
    });
  }
});

// ------------------------------------------------------------------------------------------ round trips

describe('round trips', () => {
  it('decode(encode(m)) = m, in packet and stream form', () => {
    fc.assert(
      fc.property(message, (m) => {
        expect(decodeMessage(encodeMessage(m))).toEqual(m);
        expect(decodeStreamMessage(encodeStreamMessage(m))).toEqual(m);
      }),
      { numRuns: 2000 },
    );
  });

  it('encode(decode(b)) = b for anything mlb encodes (the bytes are canonical)', () => {
    fc.assert(
      fc.property(message, (m) => {
        const b = encodeMessage(m);
        expect(encodeMessage(decodeMessage(b) as GossipMessage)).toEqual(b);
      }),
      { numRuns: 1000 },
    );
  });

  it('user messages: raw over UDP, with a UserMsgLen header over TCP', () => {
    const m: GossipMessage = { type: 'user', payload: Uint8Array.of(1, 2, 3) };
    expect(hex(encodeMessage(m))).toBe('08010203');
    // 08 | 81 aa "UserMsgLen" 03 | 01 02 03
    expect(hex(encodeStreamMessage(m))).toBe('0881aa557365724d73674c656e03010203');
  });
});

// ------------------------------------------------------------------------------------------ receiving rules

function code(r: GossipMessage | DecodeError): string {
  expect(r).toBeInstanceOf(DecodeError);
  return (r as DecodeError).code;
}

/** An alive map with the given Vsn bytes (hex, or 'nil'). */
function aliveWithVsn(v: string): Uint8Array {
  const vsnValue = v === 'nil' ? 'c0' : (0xa0 | (v.length / 2)).toString(16) + v;
  return bytes(`04 83 a4 4e6f6465 a1 61 a4 506f7274 01 a3 56736e ${vsnValue}`);
}

describe('what a receiver refuses', () => {
  it('a Vsn that is not exactly 6 bytes (Go 0.2.2 would index past it and crash): badVsn, the message is dropped', () => {
    for (const v of ['', '01', '0105020000', '01050200000000', 'nil']) expect(code(decodeMessage(aliveWithVsn(v))), v).toBe('badVsn');
    expect(decodeMessage(aliveWithVsn('010502000000'))).toMatchObject({ type: 'alive', node: 'a', port: 1 });
  });

  it('an alive with pmin 0, pmax 0 or pmin > pmax: badProtocolRange (memberlist ignores it; nothing changes)', () => {
    for (const v of ['000502000000', '010002000000', '050202000000'])
      expect(code(decodeMessage(aliveWithVsn(v))), v).toBe('badProtocolRange');
  });

  it('encoders refuse a short Vsn', () => {
    const bad = { type: 'alive' as const, incarnation: 1, node: 'a', addr: ip, port: 1, vsn: Uint8Array.of(1, 5, 2) };
    expect(() => encodeMessage(bad)).toThrow(CodecError);
  });

  it('push/pull: a node with a wrong Vsn drops the whole message; an unknown state or bad range drops that node', () => {
    const good: PushNodeState = { name: 'a', addr: ip, port: 1, incarnation: 1, state: 'alive', vsn: DEFAULT_VSN };
    const pp = (nodes: PushNodeState[]) => encodeStreamMessage({ type: 'pushPull', join: false, nodes, userState: new Uint8Array(0) });
    const withBadState = pp([good, { ...good, name: 'b' }]);
    // Patch b's State (00) to 07: find the second "State" key.
    const at = hex(withBadState).lastIndexOf('a5537461746500') / 2 + 6;
    withBadState[at] = 7;
    const drops: Drop[] = [];
    expect(decodeStreamMessage(withBadState, drops)).toMatchObject({ nodes: [good] });
    expect(drops.map((d) => d.reason)).toEqual(['badNodeState']);
    const bRange = pp([
      good,
      { ...good, name: 'b', vsn: Uint8Array.of(3, 2, 2, 0, 0, 0) },
      { ...good, name: 'c', state: 'dead', vsn: Uint8Array.of(0, 0, 0, 0, 0, 0) },
    ]);
    const drops2: Drop[] = [];
    expect((decodeStreamMessage(bRange, drops2) as unknown as { nodes: PushNodeState[] }).nodes.map((n) => n.name)).toEqual(['a', 'c']);
    expect(drops2.map((d) => d.reason)).toEqual(['badProtocolRange']);
  });

  it('push/pull headers beyond the limits, negative node counts, truncated bodies', () => {
    // 06 | 83 Join c2, Nodes ce 00989680 (10,000,000), UserStateLen 00
    expect(code(decodeMessage(bytes('06 83 a4 4a6f696e c2 a5 4e6f646573 ce00989680 ac 5573657253746174654c656e 00')))).toBe(
      'pushPullTooLarge',
    );
    expect(code(decodeMessage(bytes('06 83 a4 4a6f696e c2 a5 4e6f646573 00 ac 5573657253746174654c656e ce7fffffff')))).toBe(
      'pushPullTooLarge',
    );
    expect(code(decodeMessage(bytes('06 81 a5 4e6f646573 ff')))).toBe('badMsgpack');
    expect(code(decodeMessage(bytes('06 81 a5 4e6f646573 02')))).toBe('badMsgpack');
    // UserStateLen -1: Go reads no user state.
    expect(decodeMessage(bytes('06 81 ac 5573657253746174654c656e ff'))).toMatchObject({
      type: 'pushPull',
      nodes: [],
      userState: new Uint8Array(0),
    });
  });

  it('wrappers and unknown types are not messages', () => {
    for (const t of ['07', '09', '0a', '0c', 'f4', '0e', 'ff']) expect(code(decodeMessage(bytes(`${t} 80`))), t).toBe('unknownType');
    expect(code(decodeMessage(new Uint8Array(0)))).toBe('emptyMessage');
  });

  it('out-of-range and mistyped fields are badMsgpack', () => {
    expect(code(decodeMessage(bytes('0b 81 a5 5365714e6f cf0000000100000000')))).toBe('badMsgpack'); // SeqNo > u32
    expect(code(decodeMessage(bytes('0b 81 a5 5365714e6f ff')))).toBe('badMsgpack'); // negative
    expect(code(decodeMessage(bytes('0b 81 a5 5365714e6f cb3ff8000000000000')))).toBe('badMsgpack'); // float
    expect(code(decodeMessage(bytes('00 81 a4 4e6f6465 01')))).toBe('badMsgpack'); // Node is an int
    expect(code(decodeMessage(bytes('00 81 01 01')))).toBe('badMsgpack'); // int key
    expect(code(decodeMessage(bytes('00 91 01')))).toBe('badMsgpack'); // array, not map
    expect(code(decodeMessage(bytes('00 82 a4 4e6f6465')))).toBe('badMsgpack'); // truncated
  });
});

describe('what a receiver accepts, like Go', () => {
  it('str8, bin and arrays of small ints for bytes; any int width; 0/1 for bools; nil; unknown and wrong-case keys', () => {
    const m = decodeMessage(
      bytes(`01 87
      a4 4e61636b 01
      a4 4e6f6465 d9 01 78
      a4 506f7274 cf 0000000000000050
      a5 5365714e6f d2 00000007
      a6 546172676574 94 7f 00 00 01
      a5 4578747261 82 a1 61 93 01 02 03 a1 62 c0
      a4 6e6f6465 a3 626164`),
    );
    expect(m).toEqual({ type: 'indirectPing', seqNo: 7, target: ip, port: 80, node: 'x', nack: true });
    expect(
      decodeMessage(
        bytes('04 85 a4 41646472 c4 04 7f000001 a4 4d657461 c5 0002 ff00 a4 4e6f6465 c0 a4 506f7274 c0 a3 56736e c6 00000006 010502000000'),
      ),
    ).toEqual({ type: 'alive', incarnation: 0, node: '', addr: ip, port: 0, meta: Uint8Array.of(0xff, 0), vsn: DEFAULT_VSN });
  });

  it('nil for the whole struct is the zero struct, as in Go', () => {
    expect(decodeMessage(bytes('02 c0'))).toEqual({ type: 'ack', seqNo: 0 });
  });

  it('bytes after the value are ignored (Go decodes from a reader)', () => {
    expect(decodeMessage(bytes(`${GO_NACK} 01 02 03`))).toEqual({ type: 'nack', seqNo: 6 });
  });

  it('decodes Meta as raw bytes and only names as UTF-8', () => {
    const meta = Uint8Array.of(0xff, 0xfe, 0x00, 0xc3);
    const m = decodeMessage(encodeMessage({ type: 'alive', incarnation: 3, node: 'nœud-ü', addr: ip, port: 7946, meta, vsn: DEFAULT_VSN }));
    expect(m).toMatchObject({ node: 'nœud-ü', meta });
  });

  it('an ack without payload writes nil; an empty payload writes an empty string', () => {
    expect(hex(encodeMessage({ type: 'ack', seqNo: 1 }))).toBe('0282a75061796c6f6164c0a55365714e6f01');
    expect(hex(encodeMessage({ type: 'ack', seqNo: 1, payload: new Uint8Array(0) }))).toBe('0282a75061796c6f6164a0a55365714e6f01');
  });
});
