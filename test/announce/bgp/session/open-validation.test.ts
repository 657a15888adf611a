/**
 * The peer's OPEN: each RFC 4271 6.2 error with its subcode and data, MetalLB's 4-octet ASN requirement, dynamic
 * ASNs, and what gets negotiated (hold = min, keepalive = hold / 3 or the configured one, families, capabilities).
 */
import { describe, expect, it } from 'vitest';
import { buildOpen } from '../../../../src/announce/bgp/session/open-message';
import { negotiateTimers, validateOpen } from '../../../../src/announce/bgp/session/open-validation';
import type { LocalSpeaker, PeerAsn } from '../../../../src/announce/bgp/session/session-config';
import { fsmConfig, LOCAL_ASN, LOCAL_ID, peerOpen, PEER_ASN } from './fsm-harness';

const local: LocalSpeaker = fsmConfig().local;
const fixed: PeerAsn = { asn: PEER_ASN };

function refusal(open = peerOpen(), expected: PeerAsn = fixed, speaker: LocalSpeaker = local): string {
  const verdict = validateOpen(open, speaker, expected);
  if (verdict.ok) return 'accepted';
  const n = verdict.notification;
  return `${verdict.reason} ${n.code}/${n.subcode}${n.data.length ? ` ${Buffer.from(n.data).toString('hex')}` : ''}`;
}

describe('OPEN validation: errors and their NOTIFICATION (RFC 4271 6.2)', () => {
  it.each([
    ['a valid OPEN', peerOpen(), 'accepted'],
    ['version 3: Unsupported Version Number, data = the version we speak', peerOpen({ version: 3 }), 'unsupportedVersion 2/1 0004'],
    ['another AS: Bad Peer AS', peerOpen({}, 64999), 'badPeerAs 2/2'],
    ['hold time 1: Unacceptable Hold Time', peerOpen({ holdTimeSeconds: 1 }), 'unacceptableHoldTime 2/6'],
    ['hold time 2: Unacceptable Hold Time', peerOpen({ holdTimeSeconds: 2 }), 'unacceptableHoldTime 2/6'],
    ['hold time 0: accepted (no keepalives)', peerOpen({ holdTimeSeconds: 0 }), 'accepted'],
    ['hold time 3: accepted', peerOpen({ holdTimeSeconds: 3 }), 'accepted'],
    ['BGP identifier 0.0.0.0: Bad BGP Identifier', peerOpen({ bgpIdentifier: '0.0.0.0' }), 'badBgpIdentifier 2/3'],
    ['an eBGP peer with our identifier: allowed (RFC 6286)', peerOpen({ bgpIdentifier: LOCAL_ID }), 'accepted'],
    [
      'no 4-octet ASN capability: Unsupported Capability, data = the capability we require (MetalLB needs it)',
      peerOpen({ capabilities: [{ code: 'multiprotocol', afi: 1, safi: 1 }] }),
      // capability 65, length 4, ASN 64500 = 0x0000fbf4
      'missingFourOctetAsn 2/7 41040000fbf4',
    ],
    [
      'IPv6 only while we speak IPv4 only: Unsupported Capability listing ours',
      peerOpen({
        capabilities: [
          { code: 'multiprotocol', afi: 2, safi: 1 },
          { code: 'fourOctetAsn', asn: PEER_ASN },
        ],
      }),
      'noCommonFamily 2/7 010400010001',
    ],
    ['ASN 0 in the capability: Bad Peer AS (RFC 7607)', peerOpen({ capabilities: [{ code: 'fourOctetAsn', asn: 0 }] }), 'badPeerAs 2/2'],
  ])('%s', (_name, open, expected) => {
    expect(refusal(open)).toBe(expected);
  });

  it('refuses an internal peer that uses our identifier', () => {
    const open = peerOpen({ bgpIdentifier: LOCAL_ID }, LOCAL_ASN);
    expect(refusal(open, { asn: LOCAL_ASN })).toBe('badBgpIdentifier 2/3');
  });

  it('reads a 4-octet ASN from the capability when My AS is AS_TRANS', () => {
    const open = peerOpen({}, 4_200_000_001);
    expect(open.myAs).toBe(23456);
    expect(refusal(open, { asn: 4_200_000_001 })).toBe('accepted');
    expect(refusal(open, { asn: 23456 })).toBe('badPeerAs 2/2');
  });

  it('accepts a 2-octet-only peer when the requirement is turned off', () => {
    const open = peerOpen({ capabilities: [{ code: 'multiprotocol', afi: 1, safi: 1 }] });
    const verdict = validateOpen(open, { ...local, requireFourOctetAsn: false }, fixed);
    expect(verdict).toMatchObject({ ok: true, negotiated: { peerAsn: PEER_ASN, fourOctetAsn: false } });
  });

  it('dynamicASN internal accepts only our own ASN, external only another one', () => {
    expect(refusal(peerOpen({}, LOCAL_ASN), { dynamicAsn: 'internal' })).toBe('accepted');
    expect(refusal(peerOpen({}, 65123), { dynamicAsn: 'internal' })).toBe('badPeerAs 2/2');
    expect(refusal(peerOpen({}, 65123), { dynamicAsn: 'external' })).toBe('accepted');
    expect(refusal(peerOpen({}, LOCAL_ASN), { dynamicAsn: 'external' })).toBe('badPeerAs 2/2');
  });
});

describe('OPEN negotiation', () => {
  it.each([
    // [our hold, our keepalive, their hold] -> [hold, keepalive]
    [90, 0, 90, 90, 30],
    [90, 0, 180, 90, 30],
    [90, 0, 9, 9, 3],
    [90, 10, 90, 90, 10],
    [90, 60, 90, 90, 30],
    [0, 0, 90, 0, 0],
    [90, 0, 0, 0, 0],
    [10, 0, 90, 10, 3],
  ])('hold %is / keepalive %is against %is: hold %is, keepalive %is', (ourHold, ourKeepalive, theirHold, hold, keepalive) => {
    expect(negotiateTimers(ourHold, ourKeepalive, theirHold)).toEqual({ holdTimeS: hold, keepaliveS: keepalive });
  });

  it('keeps the families both sides offer, in our order; no multiprotocol capability means IPv4 (RFC 4760)', () => {
    const dual: LocalSpeaker = { ...local, families: ['ipv6', 'ipv4'] };
    const both = peerOpen({
      capabilities: [
        { code: 'multiprotocol', afi: 1, safi: 1 },
        { code: 'multiprotocol', afi: 2, safi: 1 },
        { code: 'fourOctetAsn', asn: PEER_ASN },
      ],
    });
    expect(validateOpen(both, dual, fixed)).toMatchObject({ ok: true, negotiated: { families: ['ipv6', 'ipv4'] } });
    const legacy = peerOpen({ capabilities: [{ code: 'fourOctetAsn', asn: PEER_ASN }] });
    expect(validateOpen(legacy, dual, fixed)).toMatchObject({ ok: true, negotiated: { families: ['ipv4'], routeRefresh: false } });
  });

  it('recognizes the pre-standard route refresh capability (128)', () => {
    const open = peerOpen({
      capabilities: [
        { code: 'fourOctetAsn', asn: PEER_ASN },
        { code: 'unknown', type: 128, value: new Uint8Array(0) },
      ],
    });
    expect(validateOpen(open, local, fixed)).toMatchObject({ ok: true, negotiated: { routeRefresh: true } });
  });

  it('negotiates graceful restart only when both sides advertise it', () => {
    const gr = { code: 'gracefulRestart' as const, restartFlags: 0, restartTimeSeconds: 90, families: [{ afi: 1, safi: 1, flags: 0 }] };
    const open = peerOpen({ capabilities: [...peerOpen().capabilities, gr] });
    const without = validateOpen(open, local, fixed);
    expect(without).toMatchObject({ ok: true });
    expect(without.ok && without.negotiated.gracefulRestart).toBeUndefined();
    const withGr = validateOpen(open, { ...local, gracefulRestart: { restartTimeS: 120 } }, fixed);
    expect(withGr).toMatchObject({
      ok: true,
      negotiated: { gracefulRestart: { restartTimeS: 90, restarting: false, forwardingPreserved: [] } },
    });
  });
});

describe('our OPEN', () => {
  it('offers each family, route refresh and the 4-octet ASN (AS_TRANS in My AS above 65535)', () => {
    const open = buildOpen({ ...local, asn: 4_200_000_000, families: ['ipv4', 'ipv6'], holdTimeS: 30 });
    expect(open).toEqual({
      type: 'open',
      version: 4,
      myAs: 23456,
      holdTimeSeconds: 30,
      bgpIdentifier: LOCAL_ID,
      capabilities: [
        { code: 'multiprotocol', afi: 1, safi: 1 },
        { code: 'multiprotocol', afi: 2, safi: 1 },
        { code: 'routeRefresh' },
        { code: 'fourOctetAsn', asn: 4_200_000_000 },
      ],
    });
  });

  it('adds graceful restart with the restart time, the R bit after a restart and the F bit per family', () => {
    const open = buildOpen({ ...local, gracefulRestart: { restartTimeS: 120, restarting: true } });
    expect(open.capabilities.at(-1)).toEqual({
      code: 'gracefulRestart',
      restartFlags: 0x8,
      restartTimeSeconds: 120,
      families: [{ afi: 1, safi: 1, flags: 0x80 }],
    });
  });
});
