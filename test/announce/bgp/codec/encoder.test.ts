/** What the encoder refuses (BgpEncodeError with a stable code) and what it normalizes. */
import { describe, expect, it } from 'vitest';
import { BgpEncodeError, decodeMessage, encodeMessage } from '../../../../src/announce/bgp/codec';
import type { BgpMessage, BgpUpdate } from '../../../../src/announce/bgp/bgp-messages';
import { makeCIDR } from '../../../../src/ip';
import { cidr, hex, ip, MARKER, toHex } from './bgp-vectors';

const FOUR = { fourOctetAsn: true };

function refusal(message: BgpMessage): string {
  try {
    encodeMessage(message, FOUR);
  } catch (e) {
    if (e instanceof BgpEncodeError) return e.code;
    throw e;
  }
  throw new Error('encoded without complaint');
}

const base: BgpUpdate = { type: 'update', withdrawn: [], nlri: [], attributes: {} };

describe('encodeMessage refusals', () => {
  it('an UPDATE over 4096 octets: tooLarge (the speaker must split it)', () => {
    // Header and length fields 23 octets, ORIGIN 4 + empty AS_PATH 3 + NEXT_HOP 7: (4096 - 37) / 5 = 811 /32s fit.
    const attributes = { origin: 'igp' as const, asPath: [], nextHop: ip('10.0.0.1') };
    const nlri = Array.from({ length: 812 }, (_, i) => makeCIDR({ family: 4, value: BigInt(0x0a000000 + i) }, 32));
    expect(refusal({ ...base, nlri, attributes })).toBe('tooLarge');
    expect(encodeMessage({ ...base, nlri: nlri.slice(0, 811), attributes }, FOUR).length).toBe(4092);
  });

  it('fields the wire cannot carry: invalidField', () => {
    expect(refusal({ ...base, nlri: [cidr('fd00::/64')] })).toBe('invalidField');
    expect(refusal({ ...base, attributes: { nextHop: ip('fd00::1') } })).toBe('invalidField');
    expect(refusal({ ...base, attributes: { mpReach: { afi: 3, safi: 1, nextHops: [ip('10.0.0.1')], nlri: [] } } })).toBe('invalidField');
    expect(refusal({ ...base, attributes: { mpReach: { afi: 2, safi: 1, nextHops: [], nlri: [] } } })).toBe('invalidField');
    expect(refusal({ ...base, attributes: { asPath: [{ type: 'sequence', asns: [] }] } })).toBe('invalidField');
    expect(refusal({ ...base, attributes: { asPath: [{ type: 'sequence', asns: [0] }] } })).toBe('invalidField');
    expect(refusal({ ...base, attributes: { med: -1 } })).toBe('invalidField');
    expect(refusal({ ...base, attributes: { communities: [1], other: [{ flags: 0xc0, type: 8, value: new Uint8Array(4) }] } })).toBe(
      'invalidField',
    );
    expect(refusal({ type: 'open', version: 4, myAs: 4200000001, holdTimeSeconds: 90, bgpIdentifier: '10.0.0.1', capabilities: [] })).toBe(
      'invalidField',
    );
    expect(refusal({ type: 'open', version: 4, myAs: 65000, holdTimeSeconds: 90, bgpIdentifier: 'fd00::1', capabilities: [] })).toBe(
      'invalidField',
    );
    expect(refusal({ type: 'notification', code: 256, subcode: 0, data: new Uint8Array(0) })).toBe('invalidField');
  });

  it('capabilities that cannot fit one optional parameter: invalidField', () => {
    const capabilities = Array.from({ length: 30 }, (_, i) => ({ code: 'unknown' as const, type: 100 + i, value: new Uint8Array(8) }));
    expect(refusal({ type: 'open', version: 4, myAs: 65000, holdTimeSeconds: 90, bgpIdentifier: '10.0.0.1', capabilities })).toBe(
      'invalidField',
    );
  });
});

describe('encodeMessage normalization', () => {
  it('writes only the network bits of a prefix', () => {
    const unmasked = { ip: ip('192.168.20.100'), prefix: 24 };
    const bytes = encodeMessage({ ...base, withdrawn: [unmasked] }, FOUR);
    expect(toHex(bytes)).toBe(toHex(hex(`${MARKER} 001b 02 0004 18 c0a814 0000`)));
  });

  it('writes raw attributes in type order and the decoder returns them in that order (a fuzz finding)', () => {
    const arrivedOutOfOrder = hex(`${MARKER} 001f 02 0000 0008  c0 6c 01 aa  c0 25 01 bb`);
    const r = decodeMessage(arrivedOutOfOrder, FOUR);
    if (!r.ok || r.message.type !== 'update') throw new Error('expected an UPDATE');
    expect(r.message.attributes.other?.map((o) => o.type)).toEqual([0x25, 0x6c]);
    expect(decodeMessage(encodeMessage(r.message, FOUR), FOUR)).toEqual(r);
  });

  it('keeps the Extended Length flag of a raw attribute that arrived with it, so it re-encodes byte for byte', () => {
    const withExtended = hex(`${MARKER} 001c 02 0000 0005  d0 63 0001 ab`);
    const r = decodeMessage(withExtended, FOUR);
    if (!r.ok) throw new Error(r.error.message);
    expect(toHex(encodeMessage(r.message, FOUR))).toBe(toHex(withExtended));
  });
});
