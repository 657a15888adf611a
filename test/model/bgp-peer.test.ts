import { describe, expect, it } from 'vitest';
import { formatIP } from '../../src/ip';
import { fixture, parseErrors, parseOk, peerYaml, where } from './parse-helpers';

const BASE = { myASN: 64512, peerASN: 64513, peerAddress: '192.168.10.1' };

describe('BGPPeer', () => {
  it("reads a tutorial lab's BGPPeer with MetalLB native defaults: port 179, hold 90 s, keepalive 30 s", () => {
    const peer = parseOk(fixture('valid', 'tutorial-bgp.yaml')).bgpPeers[0];
    expect(peer).toMatchObject({ myASN: 64512, peerASN: 64513, peerPort: 179, holdTimeMs: 90_000, keepaliveTimeMs: 30_000 });
    expect(formatIP(peer!.peerAddress!)).toBe('192.168.10.1');
    expect(peer?.dynamicASN).toBeUndefined();
    expect(peer?.ebgpMultiHop).toBe(false);
  });

  it('reads every v1beta2 field', () => {
    const [torA, torB] = parseOk(fixture('valid', 'full-featured.yaml')).bgpPeers;
    expect(torA).toMatchObject({
      myASN: 4200000001,
      peerASN: 64513,
      peerPort: 1179,
      holdTimeMs: 90_000,
      keepaliveTimeMs: 30_000,
      connectTimeMs: 5000,
      password: 's3cret',
      bfdProfile: 'fast',
      enableGracefulRestart: true,
      ebgpMultiHop: true,
      disableMP: true,
      dualStackAddressFamily: true,
    });
    expect(formatIP(torA!.sourceAddress!)).toBe('10.0.0.10');
    expect(formatIP(torA!.routerID!)).toBe('10.0.0.10');
    expect(torA?.nodeSelectors).toEqual([{ matchLabels: { rack: 'r1' }, matchExpressions: [] }]);
    expect(torB).toMatchObject({ dynamicASN: 'external', holdTimeMs: 30_000, keepaliveTimeMs: 10_000 });
    expect(torB?.peerASN).toBeUndefined();
  });

  it('derives keepalive from hold and hold from keepalive', () => {
    expect(parseOk(peerYaml({ ...BASE, holdTime: '9s' })).bgpPeers[0]).toMatchObject({ holdTimeMs: 9000, keepaliveTimeMs: 3000 });
    expect(parseOk(peerYaml({ ...BASE, holdTime: '0s' })).bgpPeers[0]).toMatchObject({ holdTimeMs: 0, keepaliveTimeMs: 0 });
    expect(parseOk(peerYaml({ ...BASE, keepaliveTime: '2s' })).bgpPeers[0]).toMatchObject({ holdTimeMs: 6000, keepaliveTimeMs: 2000 });
    // A derived hold time is held to the same 3 s rule: 500ms x 3 is 1.5 s.
    expect(parseErrors(peerYaml({ ...BASE, keepaliveTime: '500ms' }))[0]).toMatchObject({
      code: 'invalidHoldTime',
      message: 'invalid hold time "500ms x 3": must be 0 or >=3s',
    });
  });

  it('truncates the hold time to seconds before the 3 s rule, as MetalLB does', () => {
    expect(parseOk(peerYaml({ ...BASE, holdTime: '3500ms' })).bgpPeers[0]?.holdTimeMs).toBe(3500);
    expect(parseErrors(peerYaml({ ...BASE, holdTime: '2999ms' })).map((e) => e.message)).toEqual([
      'invalid hold time "2999ms": must be 0 or >=3s',
    ]);
  });

  it('reads v1beta1 peers and refuses the fields v1beta1 never had', () => {
    const peer = parseOk(peerYaml({ ...BASE, peerPort: 0 }, 'metallb.io/v1beta1')).bgpPeers[0];
    expect(peer?.peerPort).toBe(179);
    const errors = parseErrors(peerYaml({ ...BASE, vrf: 'red' }, 'metallb.io/v1beta1'));
    expect(errors.map((e) => e.message)).toEqual(['unknown field "vrf" in BGPPeer spec (only in metallb.io/v1beta2)']);
  });

  it('reports each independent problem of one peer at its own field', () => {
    const errors = parseErrors(
      peerYaml({
        myASN: 0,
        peerASN: 64513,
        peerAddress: 'router.lan',
        routerID: 'fd00::1',
        sourceAddress: '10.0.0.300',
        peerPort: 0,
      }),
    );
    expect(where(errors)).toEqual(['6:10 missingLocalASN', '8:16 invalidIP', '9:13 invalidIP', '10:18 invalidIP', '11:13 outOfRange']);
    expect(errors[2]?.message).toBe('invalid router ID "fd00::1": must be an IPv4 address');
  });

  it('accepts ebgpMultiHop for eBGP, and iBGP without it', () => {
    expect(parseOk(peerYaml({ ...BASE, ebgpMultiHop: true })).bgpPeers[0]?.ebgpMultiHop).toBe(true);
    expect(parseOk(peerYaml({ ...BASE, peerASN: 64512 })).bgpPeers[0]?.peerASN).toBe(64512);
  });

  it('refuses connect times outside whole seconds 1..65535', () => {
    expect(parseErrors(peerYaml({ ...BASE, connectTime: '1500ms' }))[0]?.message).toContain(
      'connect time should contain a whole number of seconds',
    );
    expect(parseErrors(peerYaml({ ...BASE, connectTime: '20h' }))[0]?.code).toBe('invalidConnectTime');
  });

  it('refuses line breaks that would end up in FRR configuration text', () => {
    expect(parseErrors(peerYaml({ ...BASE, password: 'a\nneighbor x' }))[0]?.message).toBe(
      'password for peer "metallb-system"/"r" contains invalid characters',
    );
  });

  it('allows peers to one router from different node groups', () => {
    const other = (name: string, rack: string): string =>
      `${peerYaml(BASE).replace('name: r', `name: ${name}`)}  nodeSelectors:\n    - matchLabels:\n        rack: ${rack}\n`;
    expect(parseOk(`${other('a', 'r1')}---\n${other('b', 'r2')}`).bgpPeers).toHaveLength(2);
  });
});
