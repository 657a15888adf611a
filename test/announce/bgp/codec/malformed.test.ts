/**
 * Hand-made malformed messages, each with the NOTIFICATION RFC 4271 section 6 prescribes, or the RFC 7606
 * outcome (treat-as-withdraw, attribute discard) that replaces it.
 */
import { describe, expect, it } from 'vitest';
import { decodeMessage, notificationFor, encodeMessage, isEndOfRib, type DecodeResult } from '../../../../src/announce/bgp/codec';
import type { BgpUpdate } from '../../../../src/announce/bgp/bgp-messages';
import { formatCIDR } from '../../../../src/ip';
import { hex, MARKER, toHex } from './bgp-vectors';

const FOUR = { fourOctetAsn: true };

/** A whole message around a body: marker, computed length, type. */
function frame(type: number, body: string): Uint8Array {
  const b = hex(body);
  const length = 19 + b.length;
  return hex(`${MARKER} ${length.toString(16).padStart(4, '0')} ${type.toString(16).padStart(2, '0')} ${toHex(b)}`);
}

/** An UPDATE whose length fields are computed from the parts. */
function updateOf(attributes: string, nlri = '20 c0a81464', withdrawn = ''): Uint8Array {
  const w = hex(withdrawn);
  const a = hex(attributes);
  const u16 = (n: number) => n.toString(16).padStart(4, '0');
  return frame(2, `${u16(w.length)} ${toHex(w)} ${u16(a.length)} ${toHex(a)} ${nlri}`);
}

const ORIGIN = '40 01 01 00';
const AS_PATH = '40 02 06 02 01 0000fc00';
const NEXT_HOP = '40 03 04 c0a80a14';
const MANDATORY = `${ORIGIN} ${AS_PATH} ${NEXT_HOP}`;

function failure(result: DecodeResult): [number, number, string] {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.message)}`);
  return [result.error.notificationCode, result.error.subcode, toHex(result.error.data)];
}

function withdrawn(result: DecodeResult): BgpUpdate & { treatAsWithdraw: { reason: string } } {
  if (!result.ok) throw new Error(`expected treat-as-withdraw, got ${result.error.message}`);
  if (result.message.type !== 'update' || !result.treatAsWithdraw) throw new Error('expected treat-as-withdraw');
  expect(result.message.treatAsWithdraw).toEqual(result.treatAsWithdraw);
  return result.message as BgpUpdate & { treatAsWithdraw: { reason: string } };
}

function accepted(result: DecodeResult): BgpUpdate {
  if (!result.ok) throw new Error(result.error.message);
  if (result.message.type !== 'update') throw new Error('not an UPDATE');
  expect(result.treatAsWithdraw).toBeUndefined();
  return result.message;
}

const decode = (bytes: Uint8Array) => decodeMessage(bytes, FOUR);

describe('message header errors (RFC 4271 6.1)', () => {
  it('a marker that is not all ones: 1/1 Connection Not Synchronized', () => {
    expect(failure(decode(hex(`fffffffffffffffffffffffffffffffe 0013 04`)))).toEqual([1, 1, '']);
  });

  it('a length outside 19..4096: 1/2 Bad Message Length with the length as data', () => {
    expect(failure(decode(hex(`${MARKER} 0012 04`)))).toEqual([1, 2, '0012']);
    const long = new Uint8Array(4097).fill(0);
    long.set(hex(`${MARKER} 1001 02`));
    expect(failure(decode(long))).toEqual([1, 2, '1001']);
  });

  it('a length below the type minimum, or a KEEPALIVE that is not 19 octets: 1/2', () => {
    expect(failure(decode(frame(1, '04 fde8 005a 0ad50002')))).toEqual([1, 2, '001c']); // OPEN 28 < 29
    expect(failure(decode(frame(2, '0000 00')))).toEqual([1, 2, '0016']); // UPDATE 22 < 23
    expect(failure(decode(frame(3, '06')))).toEqual([1, 2, '0014']); // NOTIFICATION 20 < 21
    expect(failure(decode(frame(4, '00')))).toEqual([1, 2, '0014']); // KEEPALIVE 20
    expect(failure(decode(frame(5, '0001 00')))).toEqual([1, 2, '0016']); // ROUTE-REFRESH 22 < 23
  });

  it('a length field that disagrees with the message handed over: 1/2', () => {
    expect(failure(decode(hex(`${MARKER} 0017 04 00000000`)))).toEqual([1, 2, '0017']);
  });

  it('an unknown type: 1/3 Bad Message Type with the type as data', () => {
    expect(failure(decode(hex(`${MARKER} 0013 06`)))).toEqual([1, 3, '06']);
    expect(failure(decode(hex(`${MARKER} 0013 00`)))).toEqual([1, 3, '00']);
  });

  it('fewer than 19 octets: 1/2', () => {
    expect(failure(decode(hex(`${MARKER} 00`)))).toEqual([1, 2, '0011']);
  });
});

describe('OPEN errors (RFC 4271 6.2, RFC 6286, RFC 7607, RFC 5492)', () => {
  const open = (fields: string, params = '00') => frame(1, `${fields} ${params}`);
  const GOOD = '04 fde8 005a 0ad50002';

  it('version 3: 2/1 with the supported version (4) as data', () => {
    expect(failure(decode(open('03 fde8 005a 0ad50002')))).toEqual([2, 1, '0004']);
  });
  it('My AS 0: 2/2 Bad Peer AS (RFC 7607)', () => {
    expect(failure(decode(open('04 0000 005a 0ad50002')))).toEqual([2, 2, '']);
  });
  it('BGP Identifier 0.0.0.0: 2/3 (RFC 6286)', () => {
    expect(failure(decode(open('04 fde8 005a 00000000')))).toEqual([2, 3, '']);
  });
  it('hold time 1 or 2: 2/6; 0 and 3 are fine', () => {
    expect(failure(decode(open('04 fde8 0001 0ad50002')))).toEqual([2, 6, '']);
    expect(failure(decode(open('04 fde8 0002 0ad50002')))).toEqual([2, 6, '']);
    expect(decode(open('04 fde8 0000 0ad50002')).ok).toBe(true);
    expect(decode(open('04 fde8 0003 0ad50002')).ok).toBe(true);
  });
  it('an optional parameter other than Capabilities: 2/4', () => {
    expect(failure(decode(open(GOOD, '04 01 02 0000')))).toEqual([2, 4, '']);
  });
  it('lying parameter or capability lengths, or a malformed capability mlb speaks: 2/0 Unspecific', () => {
    expect(failure(decode(open(GOOD, '08 02 06 0104000100')))).toEqual([2, 0, '']); // Opt Parm Len 8, 7 follow
    expect(failure(decode(open(GOOD, '04 02 04 0204 00')))).toEqual([2, 0, '']); // parameter 4 octets, 3 there
    expect(failure(decode(open(GOOD, '04 02 02 0105')))).toEqual([2, 0, '']); // capability claims 5
    expect(failure(decode(open(GOOD, '05 02 03 010100')))).toEqual([2, 0, '']); // multiprotocol of 1 octet
    expect(failure(decode(open(GOOD, '07 02 05 4003 007800')))).toEqual([2, 0, '']); // graceful restart of 3 octets
  });
  it('a 4-octet ASN capability carrying AS 0: 2/2 (RFC 7607)', () => {
    expect(failure(decode(open(GOOD, '08 02 06 4104 00000000')))).toEqual([2, 2, '']);
  });
  it('ignores capabilities it does not know, and reads FRR-style one-parameter-per-capability OPENs', () => {
    const r = decode(open(GOOD, '0a  02 02 8000  02 04 4602 abcd'));
    expect(r.ok && r.message.type === 'open' && r.message.capabilities).toEqual([
      { code: 'unknown', type: 128, value: new Uint8Array(0) },
      { code: 'unknown', type: 70, value: hex('abcd') },
    ]);
  });
  it('reads the RFC 9072 extended optional parameters encoding', () => {
    const r = decode(open(GOOD, 'ff ff 0009  02 0006  01 04 0002 00 01'));
    expect(r.ok && r.message.type === 'open' && r.message.capabilities).toEqual([{ code: 'multiprotocol', afi: 2, safi: 1 }]);
  });
});

describe('UPDATE errors that still reset the session (RFC 4271 6.3 as kept by RFC 7606)', () => {
  it('Withdrawn Routes Length or Total Path Attribute Length past the message: 3/1 Malformed Attribute List', () => {
    expect(failure(decode(frame(2, '0010 0000')))).toEqual([3, 1, '']);
    expect(failure(decode(frame(2, '0000 0010 400101')))).toEqual([3, 1, '']);
  });

  it('syntactically incorrect withdrawn routes or NLRI: 3/10 Invalid Network Field (RFC 7606 5.3)', () => {
    expect(failure(decode(updateOf('', '', '21 c0a81464 00')))).toEqual([3, 10, '']); // /33
    expect(failure(decode(updateOf(MANDATORY, '20 c0a814')))).toEqual([3, 10, '']); // /32 with 3 octets
    expect(failure(decode(updateOf(MANDATORY, '19 c0a81464 00 ff')))).toEqual([3, 10, '']); // trailing /0 then junk
  });

  it('an unrecognized well-known attribute: 3/2 with the attribute as data', () => {
    expect(failure(decode(updateOf(`${MANDATORY} 40 28 02 abcd`)))).toEqual([3, 2, '402802abcd']);
  });

  it('MP_REACH_NLRI or MP_UNREACH_NLRI twice: 3/1 (RFC 7606 3 item g)', () => {
    const unreach = '80 0f 03 0002 01';
    expect(failure(decode(updateOf(`${unreach} ${unreach}`, '')))).toEqual([3, 1, '']);
  });

  it('an MP_REACH_NLRI whose next hop length does not fit the family, or whose NLRI cannot be read: 3/9 with the attribute (RFC 7606 7.11)', () => {
    const badNextHop = '80 0e 0b 0002 01 05 0102030405 00 00';
    expect(failure(decode(updateOf(`${badNextHop} ${ORIGIN} ${AS_PATH}`, '')))).toEqual([3, 9, '800e0b0002010501020304050000']);
    const badPrefix = '80 0f 05 0002 01 81 00'; // /129
    expect(failure(decode(updateOf(badPrefix, '')))).toEqual([3, 9, '800f050002018100']);
  });

  it('an MP_UNREACH_NLRI that runs past the attribute field: 3/9 (its prefixes cannot be withdrawn)', () => {
    expect(failure(decode(updateOf('80 0f 09 0002 01', '')))).toEqual([3, 9, '800f09000201']);
  });

  it('the strongest action wins (RFC 7606 3 item f): a bad ORIGIN and a bad MP_REACH_NLRI reset the session', () => {
    expect(failure(decode(updateOf(`40 01 01 07 80 0e 05 0002 01 00 00`, '')))).toEqual([3, 9, '800e050002010000']);
  });
});

describe('RFC 7606 treat-as-withdraw: the prefixes are withdrawn, the session stays up', () => {
  const cases: [string, string][] = [
    ['ORIGIN value 3 (7.1)', `40 01 01 03 ${AS_PATH} ${NEXT_HOP}`],
    ['ORIGIN of 2 octets (7.1)', `40 01 02 0000 ${AS_PATH} ${NEXT_HOP}`],
    ['ORIGIN flagged optional (3 item c: Optional/Transitive bits in conflict)', `c0 01 01 00 ${AS_PATH} ${NEXT_HOP}`],
    ['AS_PATH flagged non-transitive (3 item c)', `${ORIGIN} 00 02 06 02 01 0000fc00 ${NEXT_HOP}`],
    ['AS_PATH segment type 5 (7.2)', `${ORIGIN} 40 02 06 05 01 0000fc00 ${NEXT_HOP}`],
    ['AS_PATH confederation segment from a non-member (7.2, RFC 5065)', `${ORIGIN} 40 02 06 03 01 0000fc00 ${NEXT_HOP}`],
    ['AS_PATH segment of length zero (7.2)', `${ORIGIN} 40 02 02 02 00 ${NEXT_HOP}`],
    ['AS_PATH segment overrunning the attribute (7.2)', `${ORIGIN} 40 02 06 02 02 0000fc00 ${NEXT_HOP}`],
    ['AS_PATH with octets after the last segment (7.2)', `${ORIGIN} 40 02 07 02 01 0000fc00 00 ${NEXT_HOP}`],
    ['AS_PATH holding AS 0 (RFC 7607)', `${ORIGIN} 40 02 06 02 01 00000000 ${NEXT_HOP}`],
    ['NEXT_HOP of 5 octets (7.3)', `${ORIGIN} ${AS_PATH} 40 03 05 c0a80a1400`],
    ['NEXT_HOP 0.0.0.0 (7.3: not a host address)', `${ORIGIN} ${AS_PATH} 40 03 04 00000000`],
    ['NEXT_HOP 224.0.0.5 (7.3: multicast)', `${ORIGIN} ${AS_PATH} 40 03 04 e0000005`],
    ['MULTI_EXIT_DISC of 3 octets (7.4)', `${MANDATORY} 80 04 03 000001`],
    ['MULTI_EXIT_DISC flagged well-known (3 item c)', `${MANDATORY} 40 04 04 00000001`],
    ['LOCAL_PREF of 2 octets (7.5)', `${MANDATORY} 40 05 02 0064`],
    ['COMMUNITIES of 5 octets (7.8)', `${MANDATORY} c0 08 05 fde8006401`],
    ['COMMUNITIES of 0 octets (7.8)', `${MANDATORY} c0 08 00`],
    ['COMMUNITIES flagged non-transitive (3 item c)', `${MANDATORY} 80 08 04 fde80064`],
    ['LARGE_COMMUNITY of 11 octets (RFC 8092 6)', `${MANDATORY} c0 20 0b 0000fc00 00000001 000000`],
    ['ORIGINATOR_ID of 3 octets (7.9)', `${MANDATORY} 80 09 03 0a0000`],
    ['CLUSTER_LIST of 6 octets (7.10)', `${MANDATORY} 80 0a 06 0a0000010a00`],
    ['EXTENDED_COMMUNITIES of 7 octets (7.14)', `${MANDATORY} c0 10 07 00020000fde800`],
    ['a missing ORIGIN (3 item d)', `${AS_PATH} ${NEXT_HOP}`],
    ['a missing NEXT_HOP with IPv4 NLRI (3 item d)', `${ORIGIN} ${AS_PATH}`],
    ['an attribute overrunning the attribute field (4)', `${MANDATORY} c0 08 08 fde80064`],
    ['two stray octets after the last attribute (4)', `${MANDATORY} c0 08`],
  ];
  it.each(cases)('%s', (_name, attributes) => {
    const u = withdrawn(decode(updateOf(attributes, '20 c0a81464 18 0ad509')));
    // Every prefix is still there to be withdrawn.
    expect(u.nlri.map(formatCIDR)).toEqual(['192.168.20.100/32', '10.213.9.0/24']);
    expect(u.treatAsWithdraw.reason.length).toBeGreaterThan(0);
    expect(isEndOfRib(u)).toBe(false);
  });

  it('an IPv6 UPDATE with a bad ORIGIN keeps its MP_REACH_NLRI prefixes for withdrawal, even with MP_REACH flags in conflict', () => {
    const mp = '0002 01 10 fd000213000000000000000000000002 00 80 fd000213000900000000000000000001';
    const u = withdrawn(decode(updateOf(`c0 0e 26 ${mp} 40 01 01 09 ${AS_PATH}`, '')));
    expect(u.attributes.mpReach?.nlri.map(formatCIDR)).toEqual(['fd00:213:9::1/128']);
  });

  it('an UPDATE that only withdraws needs no attributes, and an MP-only one needs no NEXT_HOP', () => {
    expect(accepted(decode(updateOf('', '', '20 c0a81464'))).withdrawn.map(formatCIDR)).toEqual(['192.168.20.100/32']);
    const mp = '80 0e 26 0002 01 10 fd000213000000000000000000000002 00 80 fd000213000900000000000000000001';
    expect(accepted(decode(updateOf(`${mp} ${ORIGIN} ${AS_PATH}`, ''))).attributes.mpReach?.nlri).toHaveLength(1);
  });
});

describe('RFC 7606 attribute discard: the attribute goes, the UPDATE stands', () => {
  const cases: [string, string, number][] = [
    ['ATOMIC_AGGREGATE of 1 octet (7.6)', `${MANDATORY} 40 06 01 00`, 6],
    ['AGGREGATOR of 7 octets in a 4-octet session (7.7)', `${MANDATORY} c0 07 07 0000fc000a0000`, 7],
    ['a second COMMUNITIES (3 item g)', `${MANDATORY} c0 08 04 fde80064 c0 08 04 fde80065`, 8],
    ['AS4_PATH from a 4-octet speaker (RFC 6793)', `${MANDATORY} c0 11 06 02 01 0000fc00`, 17],
  ];
  it.each(cases)('%s', (_name, attributes, type) => {
    const u = accepted(decode(updateOf(attributes)));
    expect(u.discardedAttributes?.map((d) => d.type)).toEqual([type]);
    expect(u.nlri.map(formatCIDR)).toEqual(['192.168.20.100/32']);
    expect(u.attributes.origin).toBe('igp');
    expect(u.attributes.other?.some((o) => o.type === type) ?? false).toBe(false);
  });

  it('keeps the first of repeated COMMUNITIES', () => {
    const u = accepted(decode(updateOf(`${MANDATORY} c0 08 04 fde80064 c0 08 04 fde80065`)));
    expect(u.attributes.communities).toEqual([0xfde80064]);
  });

  it('an UPDATE emptied by discards is not taken for an End-of-RIB', () => {
    expect(isEndOfRib(accepted(decode(updateOf('40 06 01 00', ''))))).toBe(false);
  });
});

describe('ROUTE-REFRESH (RFC 2918, RFC 7313)', () => {
  it('a BoRR/EoRR that is not 4 octets: 7/1 with the whole message as data', () => {
    const bytes = frame(5, '0001 01 01 00');
    expect(failure(decode(bytes))).toEqual([7, 1, toHex(bytes)]);
  });
  it('a plain request with trailing ORF octets is read; other subtypes are passed on to be ignored', () => {
    expect(decode(frame(5, '0001 00 01 ff00')).ok).toBe(true);
    const r = decode(frame(5, '0002 07 01'));
    expect(r.ok && r.message).toEqual({ type: 'routeRefresh', afi: 2, safi: 1, subtype: 7 });
  });
});

describe('notificationFor', () => {
  it('turns the error into the NOTIFICATION that encodes and decodes back', () => {
    const r = decode(updateOf(`${MANDATORY} 40 28 02 abcd`));
    if (r.ok) throw new Error('expected an error');
    const n = notificationFor(r.error);
    expect(n).toEqual({ type: 'notification', code: 3, subcode: 2, data: hex('402802abcd') });
    expect(decode(encodeMessage(n, FOUR))).toEqual({ ok: true, message: n });
  });

  it('cuts data that could not fit a NOTIFICATION (RFC 7313 asks for a whole 4096-octet message)', () => {
    const body = new Uint8Array(4096 - 19);
    body.set(hex('0001 01 01'));
    const r = decode(frame(5, toHex(body)));
    if (r.ok) throw new Error('expected an error');
    expect(r.error.data.length).toBe(4096);
    expect(encodeMessage(notificationFor(r.error), FOUR).length).toBe(4096);
  });
});
