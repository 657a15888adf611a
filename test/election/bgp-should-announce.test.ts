import { describe, expect, it } from 'vitest';
import { Reason, bgpShouldAnnounce, electAll, type ElectionConfig } from '../../src/election';
import { EXCLUDE, NETWORK_UNAVAILABLE, bgpAd, input, node, peer, pool, sel, service, standard } from './factories';

const nodes = [
  node('n1', { rack: 'r1' }),
  node('n2', { rack: 'r2' }),
  node('n3', { rack: 'r1', ...EXCLUDE }),
  node('n4', {}, [NETWORK_UNAVAILABLE]),
];
const names = nodes.map((n) => n.meta.name);
const pools = [pool('v4', ['10.1.0.0/24']), pool('dual', ['10.2.0.0/24', '2001:db8:2::/64'])];
const config = (extra: Partial<ElectionConfig> = {}): ElectionConfig => ({
  nodes,
  pools,
  l2Advertisements: [],
  bgpAdvertisements: [bgpAd('default')],
  bgpPeers: [peer('tor1'), peer('tor2', [sel({ rack: 'r2' })])],
  ...extra,
});
const web = input(service('default/web', ['10.1.0.77']), names);

describe('BGP ShouldAnnounce', () => {
  it('every eligible node announces (ECMP); excluded and NetworkUnavailable nodes say why', () => {
    const cfg = config();
    expect(names.map((n) => bgpShouldAnnounce(cfg, web, n, undefined).reason)).toEqual([
      'announcing',
      'announcing',
      'nodeLabeledExcludeBalancers',
      'nodeNetworkUnavailable',
    ]);
    const [e] = electAll(cfg, [web], undefined).explain();
    expect(e!.winner).toBeNull();
    expect(e!.announcing).toEqual(['n1', 'n2']);
    expect(e!.candidates.filter((c) => c.eligible).map((c) => c.rank)).toEqual([1, 2]);
  });

  it('reasons in MetalLB order: notOwner, noMatchingAdvertisement, noLocalEndpoints, noEndpoints', () => {
    const onlyR2 = config({ bgpAdvertisements: [bgpAd('r2', { nodeSelectors: [sel({ rack: 'r2' })] })] });
    expect(bgpShouldAnnounce(onlyR2, web, 'n1', undefined).reason).toBe(Reason.notOwner);
    const bySvc = config({ bgpAdvertisements: [bgpAd('svc', { serviceSelectors: [sel({ app: 'x' })] })] });
    expect(bgpShouldAnnounce(bySvc, web, 'n1', undefined).reason).toBe(Reason.noMatchingAdvertisement);
    const local = input(service('default/l', ['10.1.0.5'], { externalTrafficPolicy: 'Local' }), ['n2']);
    expect(bgpShouldAnnounce(config(), local, 'n1', undefined).reason).toBe(Reason.noLocalEndpoints);
    expect(bgpShouldAnnounce(config(), local, 'n2', undefined).announce).toBe(true);
    expect(bgpShouldAnnounce(config(), input(service('default/e', ['10.1.0.6']), []), 'n1', undefined)).toMatchObject({
      announce: false,
      reason: 'noEndpoints',
      metallbReason: 'noEndpoints',
    });
    expect(bgpShouldAnnounce(config(), web, 'n1', new Set(['n2']))).toMatchObject({ reason: 'notLiveMember', metallbReason: 'notOwner' });
  });

  it('conflicting LOCAL_PREF for the same update -> conflictingAdvertisements; different peers or lengths do not conflict', () => {
    const conflict = config({ bgpAdvertisements: [bgpAd('a', { localPref: 100 }), bgpAd('b', { localPref: 200 })] });
    expect(bgpShouldAnnounce(conflict, web, 'n1', undefined).reason).toBe(Reason.conflictingAdvertisements);
    const peersApart = config({
      bgpAdvertisements: [bgpAd('a', { localPref: 100, peers: ['tor1'] }), bgpAd('b', { localPref: 200, peers: ['tor2'] })],
    });
    expect(bgpShouldAnnounce(peersApart, web, 'n1', undefined).announce).toBe(true);
    const lengthsApart = config({
      bgpAdvertisements: [bgpAd('a', { localPref: 100 }), bgpAd('b', { localPref: 200, aggregationLength: 24 })],
    });
    expect(bgpShouldAnnounce(lengthsApart, web, 'n1', undefined).announce).toBe(true);
    // A dual-stack pool needs both lengths to differ (config.go isAggrLengthDifferent).
    const dualWeb = input(service('default/d', ['10.2.0.9']), names);
    expect(bgpShouldAnnounce(lengthsApart, dualWeb, 'n1', undefined).reason).toBe(Reason.conflictingAdvertisements);
  });

  it('announces the masked prefix, sorted communities, localPref and the peers that get it', () => {
    const cfg = config({
      bgpAdvertisements: [
        bgpAd('agg', {
          aggregationLength: 24,
          aggregationLengthV6: 64,
          localPref: 150,
          communityValues: [standard('65000:200'), standard('65000:100'), standard('65000:100')],
        }),
        bgpAd('tor2-only', { peers: ['tor2'] }),
      ],
    });
    const dual = input(service('default/dual', ['10.2.0.9', '2001:db8:2::9']), names);
    const n2 = bgpShouldAnnounce(cfg, dual, 'n2', undefined);
    expect(n2.announcements).toEqual([
      {
        node: 'n2',
        advertisement: 'agg',
        prefix: '10.2.0.0/24',
        peers: ['tor1', 'tor2'],
        communities: ['65000:100', '65000:200'],
        localPref: 150,
      },
      { node: 'n2', advertisement: 'tor2-only', prefix: '10.2.0.9/32', peers: ['tor2'], communities: [], localPref: null },
      {
        node: 'n2',
        advertisement: 'agg',
        prefix: '2001:db8:2::/64',
        peers: ['tor1', 'tor2'],
        communities: ['65000:100', '65000:200'],
        localPref: 150,
      },
      { node: 'n2', advertisement: 'tor2-only', prefix: '2001:db8:2::9/128', peers: ['tor2'], communities: [], localPref: null },
    ]);
    // n1 has no session with tor2 (its nodeSelectors pick rack r2 only).
    expect(bgpShouldAnnounce(cfg, dual, 'n1', undefined).announcements.map((a) => a.peers)).toEqual([['tor1'], [], ['tor1'], []]);
    const [e4] = electAll(cfg, [dual], undefined).explain();
    expect(e4!.announcements!.map((a) => `${a.node} ${a.prefix}`)).toEqual([
      'n1 10.2.0.0/24',
      'n1 10.2.0.9/32',
      'n2 10.2.0.0/24',
      'n2 10.2.0.9/32',
    ]);
  });

  it('a pool with only L2 advertisements has no bgp explanation; with neither, a layer2 one', () => {
    const none = config({ bgpAdvertisements: [] });
    const e = electAll(none, [web], undefined).explain();
    expect(e.map((x) => x.protocol)).toEqual(['layer2']);
    expect(e[0]!.candidates.every((c) => c.reason === 'noMatchingAdvertisement')).toBe(true);
    expect(bgpShouldAnnounce(none, web, 'n1', undefined).reason).toBe('notOwner');
  });
});
