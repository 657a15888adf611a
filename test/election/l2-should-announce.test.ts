import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import {
  ElectionContext,
  Reason,
  electAll,
  l2ShouldAnnounce,
  type ElectionConfig,
  type LiveMembers,
  type ServiceElectionInput,
} from '../../src/election';
import { formatIP } from '../../src/ip';
import type { L2Advertisement, Node } from '../../src/model';
import { EXCLUDE, NETWORK_UNAVAILABLE, input, l2Ad, node, pool, sel, service } from './factories';

const nodes = ['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((n) => node(n, { zone: n < 'c' ? 'a' : 'b' }));
const pools = [pool('default', ['10.0.0.0/24', '2001:db8::/120']), pool('other', ['10.9.0.0/24'], { tier: 'gold' })];
const config = (extra: Partial<ElectionConfig> = {}): ElectionConfig => ({
  nodes,
  pools,
  l2Advertisements: [l2Ad('all')],
  bgpAdvertisements: [],
  bgpPeers: [],
  ...extra,
});
const allNames = nodes.map((n) => n.meta.name);

/** An oracle written from MetalLB's ShouldAnnounce shape, for one node at a time (hash in the comparator). */
function metallbL2(cfg: ElectionConfig, inp: ServiceElectionInput, me: string, live: LiveMembers): string {
  const ips = inp.ips ?? inp.service.ingressIPs;
  const byName = new Map(cfg.nodes.map((n) => [n.meta.name, n]));
  const eps = inp.endpoints;
  if (eps.servingNodes.size === 0 && !eps.servingWithoutNode) return 'notOwner';
  const thePool = cfg.pools.find((p) => ips.every((i) => p.addressSet.has(i)))!;
  const matches = (sels: readonly { matchLabels: Record<string, string> }[], labels: Record<string, string>) =>
    sels.length === 0 || sels.some((s) => Object.entries(s.matchLabels).every(([k, v]) => labels[k] === v));
  const ads = cfg.l2Advertisements.filter(
    (ad) =>
      ((ad.ipAddressPools.length === 0 && ad.ipAddressPoolSelectors.length === 0) ||
        ad.ipAddressPools.includes(thePool.meta.name) ||
        ad.ipAddressPoolSelectors.some((s) => matches([s], thePool.meta.labels))) &&
      matches(ad.serviceSelectors, inp.service.meta.labels),
  );
  const adNodes = (ad: L2Advertisement) =>
    new Set(cfg.nodes.filter((n) => matches(ad.nodeSelectors, n.meta.labels)).map((n) => n.meta.name));
  const selected = (name: string) => ads.some((ad) => adNodes(ad).has(name));
  if (!selected(me)) return 'noMatchingAdvertisement';
  const speakers = live ? [...live] : [...byName.keys()];
  let available = speakers.filter((s) => {
    const n: Node | undefined = byName.get(s);
    if (n?.conditions.some((c) => c.type === 'NetworkUnavailable' && c.status === 'True')) return false;
    if (!cfg.options?.ignoreExcludeLB && n && 'node.kubernetes.io/exclude-from-external-load-balancers' in n.meta.labels) return false;
    return selected(s);
  });
  if (inp.service.externalTrafficPolicy === 'Local') available = available.filter((s) => eps.servingNodes.has(s));
  if (available.length === 0) return 'notOwner';
  const ipString = formatIP(ips[0]!);
  available.sort((a, b) =>
    Buffer.compare(createHash('sha256').update(`${a}#${ipString}`).digest(), createHash('sha256').update(`${b}#${ipString}`).digest()),
  );
  return available[0] === me ? '' : 'notOwner';
}

const owners = (cfg: ElectionConfig, inp: ServiceElectionInput, live: LiveMembers, names = allNames) =>
  names.filter((n) => l2ShouldAnnounce(cfg, inp, n, live).announce);

describe('L2 ShouldAnnounce', () => {
  const svc = service('default/web', ['10.0.0.10']);
  const everywhere = input(svc, allNames);

  it('elects exactly the first node in hash order', () => {
    const election = electAll(config(), [everywhere], undefined);
    const [outcome] = election.outcomes;
    expect(owners(config(), everywhere, undefined)).toEqual([outcome!.winner]);
    const [explanation] = election.explain();
    expect(explanation!.candidates[0]).toEqual({ node: outcome!.winner, rank: 1, eligible: true, reason: 'owner', hashPosition: 1 });
    expect(explanation!.candidates.slice(1).every((c) => c.reason === 'notOwner')).toBe(true);
  });

  it('says noEndpoints (MetalLB: notOwner) when no endpoint serves anywhere', () => {
    const none = input(svc, []);
    const r = l2ShouldAnnounce(config(), none, 'alpha', undefined);
    expect(r).toEqual({ announce: false, reason: Reason.noEndpoints, metallbReason: 'notOwner' });
    // An endpoint without a node name still counts as "an endpoint somewhere".
    const nodeless = { ...none, endpoints: { servingNodes: new Set<string>(), servingWithoutNode: true } };
    expect(owners(config(), nodeless, undefined)).toHaveLength(1);
  });

  it('keeps only nodes an advertisement selects (nodeSelectors)', () => {
    const cfg = config({ l2Advertisements: [l2Ad('zone-b', { nodeSelectors: [sel({ zone: 'b' })] })] });
    expect(l2ShouldAnnounce(cfg, everywhere, 'alpha', undefined)).toEqual({
      announce: false,
      reason: 'noMatchingAdvertisement',
      metallbReason: 'noMatchingAdvertisement',
    });
    expect(['charlie', 'delta', 'echo']).toContain(owners(cfg, everywhere, undefined)[0]);
  });

  it('drops NetworkUnavailable nodes and labelled nodes (key only), unless ignoreExcludeLB', () => {
    const cfg0 = config();
    const winner = owners(cfg0, everywhere, undefined)[0]!;
    const marked = (labels: Record<string, string>, conditions = [] as (typeof NETWORK_UNAVAILABLE)[]) =>
      config({ nodes: nodes.map((n) => (n.meta.name === winner ? node(winner, labels, conditions) : n)) });
    const down = marked({}, [NETWORK_UNAVAILABLE]);
    expect(l2ShouldAnnounce(down, everywhere, winner, undefined)).toEqual({
      announce: false,
      reason: 'nodeNetworkUnavailable',
      metallbReason: 'notOwner',
    });
    const excluded = marked(EXCLUDE);
    expect(l2ShouldAnnounce(excluded, everywhere, winner, undefined).reason).toBe('nodeLabeledExcludeBalancers');
    expect(owners(excluded, everywhere, undefined)).toHaveLength(1);
    const ignoring = { ...excluded, options: { ignoreExcludeLB: true } };
    expect(owners(ignoring, everywhere, undefined)).toEqual([winner]);
  });

  it('the exclusion trap: nodeSelectors choosing only labelled nodes leave nobody announcing, and say why', () => {
    const cp = nodes.map((n) => (n.meta.name < 'c' ? node(n.meta.name, { ...EXCLUDE, role: 'cp' }) : n));
    const cfg = config({ nodes: cp, l2Advertisements: [l2Ad('cp', { nodeSelectors: [sel({ role: 'cp' })] })] });
    const [e] = electAll(cfg, [everywhere], undefined).explain();
    expect(e!.winner).toBeNull();
    expect(Object.fromEntries(e!.candidates.map((c) => [c.node, c.reason]))).toEqual({
      alpha: 'nodeLabeledExcludeBalancers',
      bravo: 'nodeLabeledExcludeBalancers',
      charlie: 'noMatchingAdvertisement',
      delta: 'noMatchingAdvertisement',
      echo: 'noMatchingAdvertisement',
    });
  });

  it('externalTrafficPolicy Local keeps only nodes with a local serving endpoint', () => {
    const local = input(service('default/local', ['10.0.0.11'], { externalTrafficPolicy: 'Local' }), ['delta']);
    expect(owners(config(), local, undefined)).toEqual(['delta']);
    expect(l2ShouldAnnounce(config(), local, 'alpha', undefined).reason).toBe('noLocalEndpoints');
  });

  it('only live members are candidates; dead ones say notLiveMember, unknown ones unknownNode', () => {
    const live = new Set(['bravo', 'echo', 'ghost']);
    expect(['bravo', 'echo']).toContain(owners(config(), everywhere, live)[0]);
    expect(l2ShouldAnnounce(config(), everywhere, 'alpha', live).reason).toBe('notLiveMember');
    expect(l2ShouldAnnounce(config(), everywhere, 'ghost', live)).toEqual({
      announce: false,
      reason: 'unknownNode',
      metallbReason: 'noMatchingAdvertisement',
    });
  });

  it('dual stack: one winner for both IPs, ranked by the first', () => {
    const dual = input(service('default/dual', ['2001:DB8::0:5', '10.0.0.5']), allNames);
    const firstOnly = input(service('default/v6', ['2001:db8::5']), allNames);
    const e = electAll(config(), [dual, firstOnly], undefined).explain();
    expect(e.map((x) => x.ip)).toEqual(['2001:db8::5', '10.0.0.5', '2001:db8::5']);
    expect(new Set(e.map((x) => x.winner)).size).toBe(1);
  });

  it('serviceSelectors, ipAddressPools and ipAddressPoolSelectors pick the advertisements', () => {
    const gold = input(service('default/gold', ['10.9.0.1'], { labels: { app: 'gold' } }), allNames);
    const bySelector = config({
      l2Advertisements: [l2Ad('gold', { ipAddressPoolSelectors: [sel({ tier: 'gold' })], nodeSelectors: [sel({ zone: 'a' })] })],
    });
    expect(['alpha', 'bravo']).toContain(owners(bySelector, gold, undefined)[0]);
    expect(owners(bySelector, everywhere, undefined)).toEqual([]);
    const byName = config({ l2Advertisements: [l2Ad('named', { ipAddressPools: ['other', 'typo'] })] });
    expect(owners(byName, gold, undefined)).toHaveLength(1);
    const bySvc = config({ l2Advertisements: [l2Ad('svc', { serviceSelectors: [sel({ app: 'other' })] })] });
    expect(l2ShouldAnnounce(bySvc, gold, 'alpha', undefined).reason).toBe('noMatchingAdvertisement');
  });

  it('IPs in no pool: ipNotAllowed everywhere; no IP: noIPAllocated', () => {
    const stray = input(service('default/stray', ['172.16.0.1']), allNames);
    const [e] = electAll(config(), [stray], undefined).explain();
    expect(e!.candidates.every((c) => c.reason === 'ipNotAllowed')).toBe(true);
    expect(l2ShouldAnnounce(config(), input(service('default/none', []), allNames), 'alpha', undefined).reason).toBe('noIPAllocated');
  });

  it('agrees with a MetalLB-shaped oracle for random inputs (node view and metallbReason)', () => {
    const labels = fc.record({ zone: fc.constantFrom('a', 'b') }, { requiredKeys: [] });
    const arb = fc.record({
      nodeSpecs: fc.uniqueArray(
        fc.record({
          name: fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
          labels,
          exclude: fc.boolean(),
          unavailable: fc.boolean(),
        }),
        { selector: (n) => n.name, minLength: 1, maxLength: 12 },
      ),
      zoneSel: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
      lastOctet: fc.integer({ min: 1, max: 254 }),
      local: fc.boolean(),
      ignore: fc.boolean(),
      servingMask: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
      liveMask: fc.option(fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(arb, (a) => {
        const ns = a.nodeSpecs.map((s) =>
          node(s.name, { ...s.labels, ...(s.exclude ? EXCLUDE : {}) }, s.unavailable ? [NETWORK_UNAVAILABLE] : []),
        );
        const cfg = config({
          nodes: ns,
          options: { ignoreExcludeLB: a.ignore },
          l2Advertisements: [l2Ad('x', { nodeSelectors: a.zoneSel ? [sel({ zone: a.zoneSel })] : [] })],
        });
        const names = ns.map((n) => n.meta.name);
        const inp = input(
          service('ns/s', [`10.0.0.${a.lastOctet}`], { externalTrafficPolicy: a.local ? 'Local' : 'Cluster' }),
          names.filter((_, i) => a.servingMask[i]),
        );
        const live = a.liveMask && new Set(names.filter((_, i) => a.liveMask![i]));
        const ctx = new ElectionContext(cfg);
        for (const n of names) {
          if (live && !live.has(n)) continue; // MetalLB has no opinion for a node whose speaker is down
          expect(l2ShouldAnnounce(ctx, inp, n, live).metallbReason).toBe(metallbL2(cfg, inp, n, live));
        }
      }),
      { numRuns: 400 },
    );
  });
});
