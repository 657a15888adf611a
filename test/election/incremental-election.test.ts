// The daemon's election across recomputations (IncrementalElection) against the full election (electAll) on the
// same inputs, under random membership churn, tier changes, reloads and Node changes: same winners, same
// announcing nodes, same reasons for every node. And a membership change among thousands of services is applied
// to the kept index instead of electing everything again.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { IncrementalElection, electAll, type ElectionConfig, type ServiceElectionInput } from '../../src/election';
import type { Node, Service } from '../../src/model';
import { parseCIDR } from '../../src/ip';
import { EXCLUDE, bgpAd, input, ip, l2Ad, node, pool, sel, service } from './factories';

const NODE_NAMES = Array.from({ length: 8 }, (_, i) => `node-${i}`);

const POOLS = [pool('l2', ['10.0.0.0/24', '2001:db8::/120']), pool('bgp', ['10.5.0.0/24']), pool('mixed', ['10.7.0.0/24'])];
const L2_ADS = [
  l2Ad('l2', { ipAddressPools: ['l2'] }),
  l2Ad('mixed-even', { ipAddressPools: ['mixed'], nodeSelectors: [sel({ zone: 'even' })] }),
];
const BGP_ADS = [bgpAd('bgp', { ipAddressPools: ['bgp', 'mixed'], nodeSelectors: [sel({ zone: 'odd' })] })];

/** The daemon rebuilds its Node objects every time: same content, new objects. */
function nodesOf(excluded: ReadonlySet<string>): Node[] {
  return NODE_NAMES.map((n, i) => node(n, { zone: i % 2 ? 'odd' : 'even', ...(excluded.has(n) ? EXCLUDE : {}) }));
}

/** How a service's endpoints are derived each recomputation, as cluster-decision.ts derives them. */
type EndpointMode = 'everyLiveNode' | 'fixed' | 'healthChecked';
interface ServiceSpec {
  readonly pool: string;
  readonly octet: number;
  readonly dual: boolean;
  readonly local: boolean;
  readonly mode: EndpointMode;
  readonly nodes: readonly string[];
  readonly lacking: readonly string[];
}

const serviceArb: fc.Arbitrary<ServiceSpec> = fc.record({
  pool: fc.constantFrom('10.0.0', '10.5.0', '10.7.0', '172.16.0'),
  octet: fc.integer({ min: 1, max: 6 }),
  dual: fc.boolean(),
  local: fc.boolean(),
  mode: fc.constantFrom<EndpointMode>('everyLiveNode', 'fixed', 'healthChecked'),
  nodes: fc.subarray(NODE_NAMES),
  lacking: fc.oneof(fc.constant([]), fc.subarray(NODE_NAMES, { maxLength: 2 })),
});

type Step =
  | { readonly kind: 'join' | 'leave'; readonly node: string }
  | { readonly kind: 'tiers'; readonly draining: readonly string[]; readonly warmingUp: readonly string[] }
  | { readonly kind: 'exclude'; readonly node: string }
  | { readonly kind: 'reload'; readonly specs: ServiceSpec[] }
  | { readonly kind: 'add'; readonly spec: ServiceSpec }
  | { readonly kind: 'drop'; readonly at: number }
  | { readonly kind: 'same' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constantFrom('join' as const, 'leave' as const), node: fc.constantFrom(...NODE_NAMES) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('tiers' as const),
      draining: fc.oneof(fc.constant([]), fc.subarray(NODE_NAMES, { maxLength: 2 })),
      warmingUp: fc.oneof(fc.constant([]), fc.subarray(NODE_NAMES, { maxLength: 2 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('exclude' as const), node: fc.constantFrom(...NODE_NAMES) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('reload' as const), specs: fc.array(serviceArb, { minLength: 1, maxLength: 10 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('add' as const), spec: serviceArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'same' as const }) },
);

function serviceOf(s: ServiceSpec, name: string): Service {
  const ips = [`${s.pool}.${s.octet}`, ...(s.dual && s.pool === '10.0.0' ? [`2001:db8::${s.octet}`] : [])];
  return service(`ns/${name}`, ips, { externalTrafficPolicy: s.local ? 'Local' : 'Cluster' });
}

function servicesOf(specs: readonly ServiceSpec[]): Service[] {
  return specs.map((s, i) => serviceOf(s, `svc-${i}`));
}

function inputsOf(services: readonly Service[], specs: readonly ServiceSpec[], live: ReadonlySet<string>): ServiceElectionInput[] {
  return services.map((svc, i) => {
    const spec = specs[i] as ServiceSpec;
    const lacking = spec.lacking.length > 0 ? { notConfiguredOn: new Set(spec.lacking) } : {};
    if (spec.mode === 'fixed') return input(svc, [...spec.nodes]);
    if (spec.mode === 'healthChecked') {
      const passing = spec.nodes.filter((n) => live.has(n));
      return { ...input(svc, passing), endpoints: { servingNodes: new Set(passing), healthChecked: true, ...lacking } };
    }
    return { ...input(svc, [...live]), endpoints: { servingNodes: new Set(live), ...lacking } };
  });
}

describe('IncrementalElection', () => {
  it('always equals the full election: same winners, announcing nodes and reasons, under churn, tiers, reloads and Node changes', () => {
    fc.assert(
      fc.property(
        fc.array(serviceArb, { minLength: 1, maxLength: 10 }),
        fc.subarray(NODE_NAMES),
        fc.array(stepArb, { maxLength: 30 }),
        (firstSpecs, firstLive, steps) => {
          const elector = new IncrementalElection();
          let specs = firstSpecs;
          let services = servicesOf(specs);
          const live = new Set(firstLive);
          const excluded = new Set<string>();
          let tiers: ElectionConfig['mlb'] = { draining: new Set(), warmingUp: new Set() };
          const earlier: { explain: () => unknown; expected: unknown }[] = [];
          for (const step of [{ kind: 'same' } as Step, ...steps]) {
            if (step.kind === 'join') live.add(step.node);
            if (step.kind === 'leave') live.delete(step.node);
            if (step.kind === 'tiers') tiers = { draining: new Set(step.draining), warmingUp: new Set(step.warmingUp) };
            if (step.kind === 'exclude') excluded.has(step.node) ? excluded.delete(step.node) : excluded.add(step.node);
            if (step.kind === 'reload') {
              specs = step.specs;
              services = servicesOf(specs);
            }
            // An edit that keeps the other services' objects (snapshot-interning.ts): their units are reused.
            if (step.kind === 'add') {
              specs = [...specs, step.spec];
              services = [...services, serviceOf(step.spec, `added-${services.length}`)];
            }
            if (step.kind === 'drop' && services.length > 1) {
              const at = step.at % services.length;
              specs = specs.filter((_, i) => i !== at);
              services = services.filter((_, i) => i !== at);
            }
            const config: ElectionConfig = {
              nodes: nodesOf(excluded),
              pools: POOLS,
              l2Advertisements: L2_ADS,
              bgpAdvertisements: BGP_ADS,
              bgpPeers: [],
              mlb: tiers,
            };
            const inputs = inputsOf(services, specs, live);
            const full = electAll(config, inputs, new Set(live));
            const kept = elector.elect(config, inputs, new Set(live));
            expect(kept.outcomes).toEqual(full.outcomes);
            expect(kept.explain()).toEqual(full.explain());
            earlier.push({ explain: kept.explain, expected: full.explain() });
          }
          // An explanation asked for after later changes still describes the election it came with.
          for (const e of earlier.slice(-3)) expect(e.explain()).toEqual(e.expected);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('applies a membership change among 2,000 services to the kept index instead of electing every service again', () => {
    const names = Array.from({ length: 50 }, (_, i) => `n${i}`);
    const services = Array.from({ length: 2_000 }, (_, i) => service(`ns/s${i}`, [`10.0.${(i >> 8) & 255}.${i & 255}`]));
    const pools = [pool('big', ['10.0.0.0/16'])];
    const ads = [l2Ad('big', { ipAddressPools: ['big'] })];
    // The configuration's objects are the snapshot's (kept across recomputations); Nodes are rebuilt every time.
    const config = (): ElectionConfig => ({
      nodes: names.map((n) => node(n)),
      pools,
      l2Advertisements: ads,
      bgpAdvertisements: [],
      bgpPeers: [],
      mlb: { draining: new Set(), warmingUp: new Set() },
    });
    const elector = new IncrementalElection();
    const live = new Set(names);
    const elect = () => {
      const inputs = services.map((s) => ({ ...input(s, [...live]), endpoints: { servingNodes: new Set(live) } }));
      const kept = elector.elect(config(), inputs, new Set(live)).outcomes;
      expect(kept).toEqual(electAll(config(), inputs, new Set(live)).outcomes);
      return kept;
    };
    const before = elect();
    const victim = before[0]!.winner!;
    live.delete(victim);
    const after = elect();
    expect(after.filter((o) => o.winner === victim)).toEqual([]);
    live.add(victim);
    expect(elect()).toEqual(before);
    expect(elector.stats).toEqual({ full: 1, incremental: 2, membershipChanges: 2, unitsMade: 2_000 });
    // A reload that adds one service (the others' objects kept) makes that service's unit only.
    services.splice(700, 0, service('ns/added', ['10.0.200.1']));
    expect(elect()).toHaveLength(2_001);
    expect(elector.stats).toEqual({ full: 2, incremental: 2, membershipChanges: 2, unitsMade: 2_001 });
  });

  it('elects from scratch while a node drains (the index has no preference tiers), and picks the index up after, for Nodes with addresses', () => {
    const services = [service('ns/a', ['10.0.0.1']), service('ns/b', ['10.0.0.2'])];
    // Nodes documented with their addresses (IP values are bigints) and subnets, as a file's v1 Nodes are.
    const documented = NODE_NAMES.map((n, k) => ({
      ...node(n),
      addresses: [ip(`192.0.2.${k + 1}`)],
      subnets: [parseCIDR('192.0.2.0/24')!],
    }));
    const cfg = (draining: string[]): ElectionConfig => ({
      nodes: documented.map((n) => ({ ...n })),
      pools: POOLS,
      l2Advertisements: L2_ADS,
      bgpAdvertisements: [],
      bgpPeers: [],
      mlb: { draining: new Set(draining), warmingUp: new Set() },
    });
    const live = new Set(NODE_NAMES);
    const inputs = services.map((s) => input(s, NODE_NAMES));
    const elector = new IncrementalElection();
    const steady = elector.elect(cfg([]), inputs, live).outcomes;
    const owner = steady[0]!.winner!;
    const draining = elector.elect(cfg([owner]), inputs, live).outcomes;
    expect(draining[0]!.winner).not.toBe(owner);
    expect(draining).toEqual(electAll(cfg([owner]), inputs, live).outcomes);
    expect(elector.elect(cfg([]), inputs, live).outcomes).toEqual(steady);
    expect(elector.elect(cfg([]), inputs, live).outcomes).toEqual(steady);
    expect(elector.stats).toEqual({ full: 3, incremental: 1, membershipChanges: 0, unitsMade: 4 });
  });
});
