/**
 * Messages captured from GoBGP 3.10 and FRR 8.4 (test/fixtures/bgp, recorded by capture-bgp.ts there): the codec
 * reads what real routers send, re-encodes it to something that decodes the same, and reports the malformed
 * UPDATE both routers rejected with the same NOTIFICATION they sent (3/1).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BgpMessageReader, decodeMessage, encodeMessage, endOfRibFamily } from '../../../../src/announce/bgp/codec';
import { AS_TRANS, type BgpMessage, type BgpOpen, type BgpUpdate } from '../../../../src/announce/bgp/bgp-messages';
import { formatCIDR, formatIP } from '../../../../src/ip';
import { hex, MARKER, toHex } from './bgp-vectors';

const FOUR = { fourOctetAsn: true };
const FIXTURES = new URL('../../../fixtures/bgp/', import.meta.url);

function stream(name: string): Uint8Array[] {
  return readFileSync(new URL(`${name}-stream.hex`, FIXTURES), 'utf8')
    .trim()
    .split('\n')
    .map((line) => hex(line));
}

function decodeAll(frames: Uint8Array[]): BgpMessage[] {
  return frames.map((frame) => {
    const r = decodeMessage(frame, FOUR);
    if (!r.ok) throw new Error(`${toHex(frame)}: ${r.error.message}`);
    expect(r.treatAsWithdraw).toBeUndefined();
    return r.message;
  });
}

const asOpen = (m: BgpMessage | undefined): BgpOpen => {
  if (m?.type !== 'open') throw new Error('not an OPEN');
  return m;
};
const asUpdate = (m: BgpMessage | undefined): BgpUpdate => {
  if (m?.type !== 'update') throw new Error('not an UPDATE');
  return m;
};
const community = (a: number, b: number) => a * 65536 + b;

/** The UPDATE the capture sent both routers: Total Path Attribute Length 255 in a 23-octet message. */
const MALFORMED_SENT = hex(`${MARKER} 0017 02 0000 00ff`);

describe.each(['gobgp', 'frr'])('captured from %s', (name) => {
  const frames = stream(name);

  it('frames the whole stream the same whether it arrives at once or byte by byte', () => {
    const all = Uint8Array.from(frames.flatMap((f) => [...f]));
    const atOnce = new BgpMessageReader(FOUR).push(all);
    expect(atOnce.error).toBeUndefined();
    const reader = new BgpMessageReader(FOUR);
    const oneByOne = [...all].flatMap((b) => reader.push(Uint8Array.of(b)).messages);
    expect(oneByOne).toEqual(atOnce.messages);
    expect(atOnce.messages).toEqual(decodeAll(frames));
  });

  it('re-encodes every message to bytes that decode to the same message', () => {
    for (const message of decodeAll(frames)) {
      const again = decodeMessage(encodeMessage(message, FOUR), FOUR);
      expect(again).toEqual({ ok: true, message });
    }
  });

  it('answers the malformed UPDATE with the NOTIFICATION the router sent for it', () => {
    const last = decodeAll(frames).at(-1);
    expect(last?.type).toBe('notification');
    const ours = decodeMessage(MALFORMED_SENT, FOUR);
    expect(ours.ok).toBe(false);
    if (ours.ok || last?.type !== 'notification') return;
    expect([ours.error.notificationCode, ours.error.subcode]).toEqual([last.code, last.subcode]);
  });
});

describe('GoBGP 3.10 specifics', () => {
  const frames = stream('gobgp');
  const [open, , v4, v6, withdraw4, withdraw6] = decodeAll(frames);

  it('OPEN: AS_TRANS with the real ASN in the 4-octet capability; unknown capabilities kept', () => {
    const o = asOpen(open);
    expect(o.myAs).toBe(AS_TRANS);
    expect(o.capabilities).toContainEqual({ code: 'fourOctetAsn', asn: 4200000001 });
    expect(o.capabilities).toContainEqual({ code: 'multiprotocol', afi: 2, safi: 1 });
    expect(o.capabilities.filter((c) => c.code === 'unknown').map((c) => c.code === 'unknown' && c.type)).toEqual([73, 5]);
  });

  it('IPv4 UPDATE with MED, community and large community, re-encoded byte for byte', () => {
    const u = asUpdate(v4);
    expect(u.nlri.map(formatCIDR)).toEqual(['192.168.10.200/32']);
    expect(u.attributes).toEqual({
      origin: 'igp',
      asPath: [{ type: 'sequence', asns: [4200000001] }],
      nextHop: { family: 4, value: 0x0ad50001n },
      med: 10,
      communities: [community(65000, 100)],
      largeCommunities: [[64512, 1, 2]],
    });
    expect(toHex(encodeMessage(u, FOUR))).toBe(toHex(frames[2] as Uint8Array));
  });

  it('IPv6 UPDATE in MP_REACH_NLRI, then both withdrawals', () => {
    const u = asUpdate(v6);
    expect(u.attributes.mpReach?.nextHops.map(formatIP)).toEqual(['fd00:213::1']);
    expect(u.attributes.mpReach?.nlri.map(formatCIDR)).toEqual(['fd00:213:9::1/128']);
    expect(u.attributes.origin).toBe('incomplete');
    expect(asUpdate(withdraw4).withdrawn.map(formatCIDR)).toEqual(['192.168.10.200/32']);
    expect(asUpdate(withdraw6).attributes.mpUnreach?.withdrawn.map(formatCIDR)).toEqual(['fd00:213:9::1/128']);
    expect(toHex(encodeMessage(asUpdate(withdraw6), FOUR))).toBe(toHex(frames[5] as Uint8Array));
  });
});

describe('FRR 8.4 specifics', () => {
  const frames = stream('frr');
  const [open, , eor4, eor6, v4, v6, withdraw4] = decodeAll(frames);

  it('OPEN with one optional parameter per capability, graceful restart flags and hold time 180', () => {
    const o = asOpen(open);
    expect([o.myAs, o.holdTimeSeconds, o.bgpIdentifier]).toEqual([65010, 180, '10.213.0.3']);
    expect(o.capabilities).toContainEqual({ code: 'gracefulRestart', restartFlags: 0xc, restartTimeSeconds: 120, families: [] });
    expect(o.capabilities).toContainEqual({ code: 'routeRefresh' });
  });

  it('End-of-RIB for IPv4 and IPv6, re-encoded byte for byte', () => {
    expect(endOfRibFamily(asUpdate(eor4))).toEqual({ afi: 1, safi: 1 });
    expect(endOfRibFamily(asUpdate(eor6))).toEqual({ afi: 2, safi: 1 });
    expect(toHex(encodeMessage(asUpdate(eor4), FOUR))).toBe(toHex(frames[2] as Uint8Array));
    expect(toHex(encodeMessage(asUpdate(eor6), FOUR))).toBe(toHex(frames[3] as Uint8Array));
  });

  it('IPv4 UPDATE (AS_PATH sent with the Extended Length flag) and an IPv6 one with an IPv4-mapped next hop', () => {
    const u = asUpdate(v4);
    expect(u.nlri.map(formatCIDR)).toEqual(['192.168.20.0/24']);
    expect(u.attributes.asPath).toEqual([{ type: 'sequence', asns: [65010] }]);
    expect(u.attributes.communities).toEqual([community(65000, 300)]);
    expect(u.attributes.largeCommunities).toEqual([[65010, 3, 4]]);
    const six = asUpdate(v6);
    expect(six.attributes.mpReach?.nlri.map(formatCIDR)).toEqual(['fd00:213:20::/64']);
    expect(six.attributes.mpReach?.nextHops.map(formatIP)).toEqual(['10.213.0.3']);
    expect(asUpdate(withdraw4).withdrawn.map(formatCIDR)).toEqual(['192.168.20.0/24']);
  });
});
