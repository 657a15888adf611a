import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ElectionIndex,
  electAll,
  type ElectionConfig,
  type ElectionOutcome,
  type LiveMembers,
  type MembershipChange,
  type ServiceElectionInput,
} from '../../src/election';
import { EXCLUDE, NETWORK_UNAVAILABLE, bgpAd, input, l2Ad, node, pool, sel, service } from './factories';

const NODE_NAMES = Array.from({ length: 10 }, (_, i) => `node-${i}`);
const nodes = NODE_NAMES.map((n, i) =>
  node(n, { zone: i % 2 ? 'odd' : 'even', ...(i === 3 ? EXCLUDE : {}) }, i === 5 ? [NETWORK_UNAVAILABLE] : []),
);
const config: ElectionConfig = {
  nodes,
  pools: [pool('l2', ['10.0.0.0/24', '2001:db8::/120']), pool('bgp', ['10.5.0.0/24']), pool('mixed', ['10.7.0.0/24'])],
  l2Advertisements: [
    l2Ad('l2', { ipAddressPools: ['l2'] }),
    l2Ad('mixed-even', { ipAddressPools: ['mixed'], nodeSelectors: [sel({ zone: 'even' })] }),
  ],
  bgpAdvertisements: [bgpAd('bgp', { ipAddressPools: ['bgp', 'mixed'], nodeSelectors: [sel({ zone: 'odd' })] })],
  bgpPeers: [],
};

const serviceArb = fc.record({
  pool: fc.constantFrom('10.0.0', '10.5.0', '10.7.0', '172.16.0'),
  octet: fc.integer({ min: 1, max: 6 }), // few IPs, so services share them
  dual: fc.boolean(),
  local: fc.boolean(),
  serving: fc.subarray([...NODE_NAMES, 'ghost']),
});
const changeArb: fc.Arbitrary<MembershipChange> = fc.record({
  kind: fc.constantFrom('join' as const, 'leave' as const),
  node: fc.constantFrom(...NODE_NAMES, 'ghost', 'stranger'),
});

type ServiceSpec = { pool: string; octet: number; dual: boolean; local: boolean; serving: string[] };
function buildServices(specs: ServiceSpec[]): ServiceElectionInput[] {
  return specs.map((s, i) => {
    const ips = [`${s.pool}.${s.octet}`, ...(s.dual && s.pool === '10.0.0' ? [`2001:db8::${s.octet}`] : [])];
    return input(service(`ns/svc-${i}`, ips, { externalTrafficPolicy: s.local ? 'Local' : 'Cluster' }), s.serving);
  });
}

function applyToSet(live: LiveMembers, change: MembershipChange): Set<string> {
  const next = new Set(live ?? NODE_NAMES);
  if (change.kind === 'join') next.add(change.node);
  else next.delete(change.node);
  return next;
}

const key = (o: ElectionOutcome, ip: string) => `${o.service}|${ip}|${o.protocol}`;
function diff(before: readonly ElectionOutcome[], after: readonly ElectionOutcome[]): string[] {
  const out: string[] = [];
  after.forEach((a, i) => {
    const b = before[i]!;
    if (a.winner !== b.winner || a.announcing.join() !== b.announcing.join()) for (const ip of a.ips) out.push(key(a, ip));
  });
  return out.sort();
}

describe('ElectionIndex', () => {
  it('after any join/leave sequence equals a full recompute, and reports exactly the changed IPs', () => {
    fc.assert(
      fc.property(
        fc.array(serviceArb, { minLength: 1, maxLength: 12 }),
        fc.option(fc.subarray([...NODE_NAMES, 'ghost']), { nil: undefined }),
        fc.array(changeArb, { maxLength: 25 }),
        (specs, initial, changes) => {
          const services = buildServices(specs);
          let live: LiveMembers = initial && new Set(initial);
          const index = new ElectionIndex(config);
          let previous = index.elect(services, live);
          expect(previous).toEqual(electAll(config, services, live).outcomes);
          for (const change of changes) {
            const reported = index.applyMembership(change);
            live = applyToSet(live, change);
            const full = electAll(config, services, live);
            const now = index.outcomes();
            expect(now).toEqual(full.outcomes);
            expect(reported.map((c) => `${c.service}|${c.ip}|${c.protocol}`).sort()).toEqual(diff(previous, now));
            for (const c of reported) {
              expect(c.added.every((n) => !c.removed.includes(n))).toBe(true);
            }
            previous = now;
          }
          expect(index.explain()).toEqual(electAll(config, services, live).explain());
          expect(index.liveMembers()).toEqual(live);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a leave re-elects only the IPs the node won; a join only those where it ranks first', () => {
    const services = Array.from({ length: 40 }, (_, i) => input(service(`ns/s${i}`, [`10.0.0.${i + 1}`]), NODE_NAMES));
    const index = new ElectionIndex(config);
    const outcomes = index.elect(services, new Set(NODE_NAMES));
    const won = outcomes.filter((o) => o.winner === 'node-0').map((o) => o.ips[0]);
    const left = index.applyMembership({ kind: 'leave', node: 'node-0' });
    expect(left.map((c) => c.ip)).toEqual(won);
    expect(left.every((c) => c.previousWinner === 'node-0' && c.winner !== 'node-0' && c.removed[0] === 'node-0')).toBe(true);
    const joined = index.applyMembership({ kind: 'join', node: 'node-0' });
    expect(joined.map((c) => c.ip)).toEqual(won);
    expect(index.outcomes()).toEqual(outcomes);
    expect(index.applyMembership({ kind: 'join', node: 'node-0' })).toEqual([]);
    expect(index.applyMembership({ kind: 'join', node: 'not-a-node' })).toEqual([]);
  });
});
