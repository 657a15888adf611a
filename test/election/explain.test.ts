import { describe, expect, it } from 'vitest';
import { ElectionIndex, electAll, rankNodes, type ElectionConfig } from '../../src/election';
import { EXCLUDE, bgpAd, input, l2Ad, node, pool, service } from './factories';

const nodes = [node('n-c'), node('n-a'), node('n-b', EXCLUDE), node('n-d')];
const config: ElectionConfig = {
  nodes,
  pools: [pool('l2', ['10.0.0.0/24']), pool('bgp', ['10.5.0.0/24'])],
  l2Advertisements: [l2Ad('l2', { ipAddressPools: ['l2'] })],
  bgpAdvertisements: [bgpAd('bgp', { ipAddressPools: ['bgp'] })],
  bgpPeers: [],
};
const live = new Set(['n-a', 'n-b', 'n-c', 'zombie']);
const services = [input(service('shop/web', ['10.0.0.1']), ['n-a', 'n-c', 'n-d']), input(service('shop/api', ['10.5.0.3']), ['n-a'])];

describe('explain', () => {
  it('has exactly the contract fields, in order, with candidates eligible-first by hash then by name', () => {
    const [l2, bgp] = electAll(config, services, live).explain();
    const order = rankNodes(['n-a', 'n-c'], '10.0.0.1');
    // Every listed node's place in hash order, eligible or not (an optional field beyond the contract).
    const all = rankNodes(['n-a', 'n-b', 'n-c', 'n-d', 'zombie'], '10.0.0.1');
    const at = (n: string) => all.indexOf(n) + 1;
    expect(JSON.parse(JSON.stringify(l2))).toEqual({
      service: 'shop/web',
      ip: '10.0.0.1',
      protocol: 'layer2',
      winner: order[0],
      announcing: [order[0]],
      candidates: [
        { node: order[0], rank: 1, eligible: true, reason: 'owner', hashPosition: at(order[0]!) },
        { node: order[1], rank: 2, eligible: true, reason: 'notOwner', hashPosition: at(order[1]!) },
        { node: 'n-b', rank: null, eligible: false, reason: 'nodeLabeledExcludeBalancers', hashPosition: at('n-b') },
        { node: 'n-d', rank: null, eligible: false, reason: 'notLiveMember', hashPosition: at('n-d') },
        { node: 'zombie', rank: null, eligible: false, reason: 'unknownNode', hashPosition: at('zombie') },
      ],
    });
    expect(Object.keys(l2!)).toEqual(['service', 'ip', 'protocol', 'winner', 'announcing', 'candidates']);
    expect(Object.keys(bgp!)).toEqual(['service', 'ip', 'protocol', 'winner', 'announcing', 'candidates', 'announcements']);
    expect(bgp).toMatchObject({ protocol: 'bgp', winner: null, announcing: ['n-a', 'n-c'] });
    expect(bgp!.candidates.find((c) => c.node === 'n-a')!.reason).toBe('announcing');
  });

  it('the index explains exactly what the full election explains, and filters by service or IP', () => {
    const index = new ElectionIndex(config);
    index.elect(services, live);
    expect(index.explain()).toEqual(electAll(config, services, live).explain());
    expect(index.explain(['10.5.0.3']).map((e) => e.service)).toEqual(['shop/api']);
    expect(index.explain(['shop/web']).map((e) => e.ip)).toEqual(['10.0.0.1']);
  });
});
