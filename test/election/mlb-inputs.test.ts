// mlb-only election inputs: health checks, drain and warm-up (file mode, every member mlb).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ElectionIndex, Reason, electAll, type ElectionConfig, type MlbNodeStates, type ServiceElectionInput } from '../../src/election';
import { bgpAd, input, l2Ad, node, peer, pool, service } from './factories';

const names = ['alpha', 'bravo', 'charlie', 'delta'];
const base: ElectionConfig = {
  nodes: names.map((n) => node(n)),
  pools: [pool('default', ['10.0.0.0/24'])],
  l2Advertisements: [l2Ad('all')],
  bgpAdvertisements: [],
  bgpPeers: [],
};
const live = new Set(names);
const web = service('demo/web', ['10.0.0.10']);
const checked = (serving: string[]): ServiceElectionInput => ({
  service: web,
  endpoints: { servingNodes: new Set(serving), healthChecked: true },
});
const states = (draining: string[] = [], warmingUp: string[] = []): MlbNodeStates => ({
  draining: new Set(draining),
  warmingUp: new Set(warmingUp),
});

function l2(config: ElectionConfig, inp: ServiceElectionInput, members = live) {
  const election = electAll(config, [inp], members);
  return { outcome: election.outcomes[0]!, explanation: election.explain()[0]! };
}

describe('health-checked services', () => {
  it('a node whose check fails is out, with healthCheckFailing, even under externalTrafficPolicy Cluster', () => {
    const everyone = l2(base, checked(names)).outcome.winner!;
    const { outcome, explanation } = l2(base, checked(names.filter((n) => n !== everyone)));
    expect(outcome.winner).not.toBe(everyone);
    expect(outcome.winner).not.toBeNull();
    expect(explanation.candidates.find((c) => c.node === everyone)).toMatchObject({ eligible: false, reason: Reason.healthCheckFailing });
  });

  it("failing everywhere announces nothing and names every node's failing check", () => {
    const { outcome, explanation } = l2(base, checked([]));
    expect(outcome.winner).toBeNull();
    expect(explanation.candidates.map((c) => c.reason)).toEqual(names.map(() => Reason.healthCheckFailing));
  });

  it('a dead node is notLiveMember, not a failing check', () => {
    const { explanation } = l2(base, checked(names), new Set(['alpha', 'bravo', 'charlie']));
    expect(explanation.candidates.find((c) => c.node === 'delta')?.reason).toBe(Reason.notLiveMember);
  });

  it('BGP: only passing nodes advertise', () => {
    const bgp: ElectionConfig = { ...base, l2Advertisements: [], bgpAdvertisements: [bgpAd('all')], bgpPeers: [peer('r')] };
    const { outcome, explanation } = l2(bgp, checked(['alpha', 'charlie']));
    expect(outcome.announcing).toEqual(['alpha', 'charlie']);
    expect(explanation.candidates.find((c) => c.node === 'bravo')?.reason).toBe(Reason.healthCheckFailing);
  });
});

describe('drain and warm-up tiers', () => {
  const all = input(web, names);

  it('a draining owner hands over to the next node in hash order', () => {
    const plain = l2(base, all).explanation;
    const [first, second] = plain.candidates.map((c) => c.node);
    const { outcome, explanation } = l2({ ...base, mlb: states([first!]) }, all);
    expect(outcome.winner).toBe(second);
    expect(explanation.candidates.find((c) => c.node === first)).toMatchObject({ eligible: false, reason: Reason.nodeDraining });
  });

  it('warming-up nodes defer to steady ones, and draining ones to warming-up ones', () => {
    const order = l2(base, all).explanation.candidates.map((c) => c.node);
    const mlb = states([order[2]!, order[3]!], [order[0]!, order[1]!]);
    expect(l2({ ...base, mlb }, all).outcome.winner).toBe(order[0]);
    const steady = states([order[3]!], [order[0]!, order[1]!]);
    expect(l2({ ...base, mlb: steady }, all).outcome.winner).toBe(order[2]);
  });

  it('the last node keeps the IP while draining: an answered IP beats none', () => {
    const { outcome } = l2({ ...base, mlb: states(names) }, all);
    expect(outcome.winner).toBe(l2(base, all).outcome.winner);
  });

  it('property: the winner is always from the best tier present, and in hash order within it', () => {
    fc.assert(
      fc.property(fc.subarray(names), fc.subarray(names), (draining, warming) => {
        const mlb = states(draining, warming);
        const order = l2(base, all).explanation.candidates.map((c) => c.node);
        const tier = (n: string) => (draining.includes(n) ? 2 : warming.includes(n) ? 1 : 0);
        const best = Math.min(...names.map(tier));
        expect(l2({ ...base, mlb }, all).outcome.winner).toBe(order.find((n) => tier(n) === best));
      }),
    );
  });

  it('without mlb inputs the incremental index still refuses to guess', () => {
    expect(() => new ElectionIndex({ ...base, mlb: states(['alpha']) })).toThrow(/electAll/);
  });
});

describe('nodes whose configuration lacks the service (file mode)', () => {
  const lacking = (nodes: string[], healthChecked = false): ServiceElectionInput => ({
    service: web,
    endpoints: { servingNodes: new Set(names), notConfiguredOn: new Set(nodes), ...(healthChecked ? { healthChecked } : {}) },
  });

  it('the owner-to-be whose file lacks the service is passed over, with serviceNotConfigured, and someone else holds it', () => {
    const everyone = l2(base, { service: web, endpoints: { servingNodes: live } }).outcome.winner!;
    for (const healthChecked of [false, true]) {
      const { outcome, explanation } = l2(base, lacking([everyone], healthChecked));
      expect(outcome.winner).not.toBeNull();
      expect(outcome.winner).not.toBe(everyone);
      expect(explanation.candidates.find((c) => c.node === everyone)).toMatchObject({
        eligible: false,
        reason: Reason.serviceNotConfigured,
      });
    }
  });

  it('the incremental index agrees with the full election', () => {
    const inp = lacking(['alpha', 'charlie']);
    expect(new ElectionIndex(base).elect([inp], live)).toEqual(electAll(base, [inp], live).outcomes);
  });
});
