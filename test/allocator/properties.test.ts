// fast-check properties over small random configurations: sharing is never violated, addresses come only
// from pools allowed to give them, a re-run with the current allocation changes nothing, and the input order
// of services does not matter.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type IP, cidrContains, formatIP, ipEquals, parseIP } from '../../src/ip';
import type { IPAddressPool, Service } from '../../src/model';
import { serviceKey } from '../../src/model';
import {
  type AllocationResult,
  type ResolvedPool,
  addressesOf,
  allocateServices,
  backendKey,
  isBuggyIP,
  pinnedPools,
  poolAdmits,
  requestedIPs,
  requestedPool,
  resolvePool,
  servicePorts,
  sharingKeyOf,
} from '../../src/allocator';
import { type ServiceOptions, pool, selector, service } from './factories';

// ------------------------------------------------------------------------------------------ generators

/** Disjoint address blocks pools are cut from: small, so pools run full and addresses get shared. */
const V4_BLOCKS = ['10.0.0.0/30', '10.0.1.254-10.0.2.1', '10.0.3.0/31', '10.0.4.8/30'];
const V6_BLOCKS = ['fc00::/126', 'fc00:1::/127', 'fc00:2::/127'];
const NAMESPACES = ['ns1', 'ns2'];
const POOL_NAMES = ['p0', 'p1', 'p2', 'p3'];
/** Addresses a service may request or hold: inside the blocks, on their buggy edges, and outside all pools. */
const CANDIDATE_IPS = [
  '10.0.0.1',
  '10.0.0.2',
  '10.0.1.255',
  '10.0.2.0',
  '10.0.3.1',
  '10.0.4.9',
  '10.9.9.9',
  'fc00::1',
  'fc00:1::1',
  'fc00:9::1',
];

const poolsArb: fc.Arbitrary<IPAddressPool[]> = fc
  .record({
    // Each block goes to one of the pools or to none.
    v4: fc.array(fc.integer({ min: -1, max: 3 }), { minLength: V4_BLOCKS.length, maxLength: V4_BLOCKS.length }),
    v6: fc.array(fc.integer({ min: -1, max: 3 }), { minLength: V6_BLOCKS.length, maxLength: V6_BLOCKS.length }),
    options: fc.array(
      fc.record({
        autoAssign: fc.boolean(),
        avoidBuggyIPs: fc.boolean(),
        allocation: fc.option(
          fc.record({
            priority: fc.integer({ min: 0, max: 3 }),
            namespaces: fc.subarray(NAMESPACES),
            team: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
          }),
          { nil: undefined },
        ),
      }),
      { minLength: POOL_NAMES.length, maxLength: POOL_NAMES.length },
    ),
  })
  .map(({ v4, v6, options }) =>
    POOL_NAMES.flatMap((name, i) => {
      const addresses = [...V4_BLOCKS.filter((_, b) => v4[b] === i), ...V6_BLOCKS.filter((_, b) => v6[b] === i)];
      if (addresses.length === 0) return [];
      const o = options[i]!;
      return [
        pool(name, addresses, {
          autoAssign: o.autoAssign,
          avoidBuggyIPs: o.avoidBuggyIPs,
          ...(o.allocation && {
            serviceAllocation: {
              priority: o.allocation.priority,
              namespaces: o.allocation.namespaces,
              serviceSelectors: o.allocation.team ? [selector({ team: o.allocation.team })] : [],
            },
          }),
        }),
      ];
    }),
  );

const familyArb = fc.constantFrom<Pick<ServiceOptions, 'ipFamilyPolicy' | 'ipFamilies'>>(
  { ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'] },
  { ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv6'] },
  { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'] },
  { ipFamilyPolicy: 'PreferDualStack', ipFamilies: ['IPv6', 'IPv4'] },
);

const serviceArb = (name: string): fc.Arbitrary<Service> =>
  fc
    .record({
      namespace: fc.constantFrom(...NAMESPACES),
      team: fc.constantFrom('a', 'b'),
      ports: fc.subarray(['TCP/80', 'TCP/443', 'UDP/53'], { minLength: 1 }),
      share: fc.constantFrom(undefined, 'k1', 'k2'),
      local: fc.boolean(),
      app: fc.constantFrom('x', 'y'),
      family: familyArb,
      request: fc.oneof(
        { weight: 4, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: fc.subarray(CANDIDATE_IPS, { minLength: 1, maxLength: 2 }).map((l) => ({ ips: l.join(',') })) },
        { weight: 1, arbitrary: fc.constantFrom(...POOL_NAMES, 'nope').map((p) => ({ pool: p })) },
      ),
      ingress: fc.oneof(
        { weight: 3, arbitrary: fc.constant<string[]>([]) },
        { weight: 1, arbitrary: fc.subarray(CANDIDATE_IPS, { maxLength: 2 }) },
      ),
    })
    .map((o) =>
      service(name, {
        namespace: o.namespace,
        labels: { team: o.team },
        ports: o.ports,
        ...(o.share !== undefined && { share: o.share }),
        externalTrafficPolicy: o.local ? 'Local' : 'Cluster',
        selector: { app: o.app },
        ...o.family,
        ...(o.request && 'ips' in o.request && { requestIPs: o.request.ips }),
        ...(o.request && 'pool' in o.request && { addressPool: o.request.pool }),
        ingress: o.ingress,
      }),
    );

const servicesArb: fc.Arbitrary<Service[]> = fc
  .uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'), { maxLength: 12 })
  .chain((names) => fc.tuple(...names.map(serviceArb)));

const worldArb = fc.record({ pools: poolsArb, services: servicesArb });

// ------------------------------------------------------------------------------------------ helpers

function assigned(results: ReadonlyMap<string, AllocationResult>): Map<string, readonly IP[]> {
  const out = new Map<string, readonly IP[]>();
  for (const [k, r] of results) if (r.status === 'assigned') out.set(k, r.ips);
  return out;
}

function ipOf(text: string): IP {
  return parseIP(text)!;
}

function holds(p: ResolvedPool, ip: IP): boolean {
  if (p.pool.avoidBuggyIPs && isBuggyIP(ip)) return false;
  return p.pool.cidrs.some((c) => cidrContains(c, ip));
}

function identity(s: Service) {
  return { key: serviceKey(s), namespace: s.meta.namespace, labels: s.meta.labels };
}

/** MLB_PROPERTY_RUNS raises the count for a longer search (CI keeps the default). */
const RUNS = { numRuns: Number(process.env.MLB_PROPERTY_RUNS ?? 400) };

// ------------------------------------------------------------------------------------------ properties

describe('allocator properties', () => {
  it('(1) never gives one address to two services that may not share it', () => {
    fc.assert(
      fc.property(worldArb, ({ pools, services }) => {
        const { results } = allocateServices({ pools, services });
        const byKey = new Map(services.map((s) => [serviceKey(s), s]));
        const users = new Map<string, Service[]>();
        for (const [key, ips] of assigned(results)) {
          for (const a of ips) users.set(formatIP(a), [...(users.get(formatIP(a)) ?? []), byKey.get(key)!]);
        }
        for (const [address, list] of users) {
          for (let i = 0; i < list.length; i++) {
            for (let j = i + 1; j < list.length; j++) {
              const a = list[i]!;
              const b = list[j]!;
              const ka = sharingKeyOf(a);
              const kb = sharingKeyOf(b);
              expect(ka.sharing, `${address} shared without a key`).not.toBe('');
              expect(ka).toEqual(kb);
              expect(backendKey(a)).toBe(backendKey(b));
              for (const pa of servicePorts(a)) {
                expect(servicePorts(b), `${address}: port clash`).not.toContainEqual(pa);
              }
            }
          }
        }
      }),
      RUNS,
    );
  });

  it('(2) gives addresses only from a pool that holds and admits them, automatic ones only from pools allowed to', () => {
    fc.assert(
      fc.property(worldArb, fc.boolean(), ({ pools, services }, withHoldings) => {
        const input = withHoldings ? services : services.map((s) => ({ ...s, ingressIPs: [] }));
        const { results, usage } = allocateServices({ pools, services: input });
        const resolved = new Map(pools.map((p) => [p.meta.name, resolvePool(p, new Map())]));
        const byKey = new Map(input.map((s) => [serviceKey(s), s]));
        const distinct = new Map<string, Set<string>>();
        for (const [key, r] of results) {
          if (r.status !== 'assigned') continue;
          const s = byKey.get(key)!;
          const p = resolved.get(r.pool)!;
          expect(p, `unknown pool ${r.pool}`).toBeDefined();
          for (const a of r.ips) expect(holds(p, a), `${formatIP(a)} outside ${r.pool}`).toBe(true);
          expect(poolAdmits(p, identity(s))).toBe(true);
          const request = requestedIPs(s);
          switch (r.reason) {
            case 'kept':
              expect(r.ips.slice(0, s.ingressIPs.length)).toEqual(s.ingressIPs);
              break;
            case 'requested':
              expect(request.kind === 'ips' && request.ips).toEqual(r.ips);
              break;
            case 'poolRequested':
              expect(requestedPool(s)).toBe(r.pool);
              break;
            case 'pinnedPool':
              expect(pinnedPools([...resolved.values()], identity(s)).map((x) => x.name)).toContain(r.pool);
              break;
            case 'autoAssign':
              expect(p.pool.autoAssign && p.allocation === undefined).toBe(true);
              break;
          }
          if (!p.pool.autoAssign) expect(['kept', 'requested', 'poolRequested']).toContain(r.reason);
          if (r.reason === 'kept') expect(withHoldings).toBe(true);
          const set = distinct.get(r.pool) ?? new Set<string>();
          r.ips.forEach((a) => set.add(formatIP(a)));
          distinct.set(r.pool, set);
        }
        for (const u of usage) expect(u.inUse).toBe(distinct.get(u.pool)?.size ?? 0);
      }),
      RUNS,
    );
  });

  it('(3) is stable: re-running with the current allocation as `previous` changes nothing', () => {
    fc.assert(
      fc.property(worldArb, ({ pools, services }) => {
        const first = allocateServices({ pools, services });
        const second = allocateServices({ pools, services, previous: addressesOf(first.results) });
        const a = assigned(first.results);
        const b = assigned(second.results);
        expect([...b.keys()]).toEqual([...a.keys()]);
        for (const [key, ips] of a) {
          const again = b.get(key)!;
          expect(again.length).toBe(ips.length);
          again.forEach((x, i) => expect(ipEquals(x, ips[i]!)).toBe(true));
        }
        for (const r of second.results.values()) {
          if (r.status === 'assigned') {
            expect(r.reason).toBe('kept');
            expect(r.cleared).toBeUndefined();
            expect(r.added).toBeUndefined();
          }
        }
        expect(second.usage).toEqual(first.usage);
      }),
      RUNS,
    );
  });

  it('(4) does not depend on the order of the input services', () => {
    fc.assert(
      fc.property(
        worldArb.chain((w) =>
          fc.tuple(fc.constant(w), fc.shuffledSubarray(w.services, { minLength: w.services.length, maxLength: w.services.length })),
        ),
        ([{ pools, services }, shuffled]) => {
          const a = allocateServices({ pools, services });
          const b = allocateServices({ pools: [...pools].reverse(), services: shuffled });
          expect([...b.results.entries()]).toEqual([...a.results.entries()]);
          expect(b.usage).toEqual(a.usage);
        },
      ),
      RUNS,
    );
  });

  it('(5) never moves a valid holder to make room for a service whose holding became invalid', () => {
    const movers = fc
      .uniqueArray(fc.constantFrom('m1', 'm2', 'm3'), { maxLength: 3 })
      .chain((names) =>
        fc.tuple(
          ...names.map((n) => serviceArb(n).map((s) => ({ ...s, meta: { ...s.meta, annotations: {} }, ingressIPs: [ipOf('10.9.9.9')] }))),
        ),
      );
    fc.assert(
      fc.property(worldArb, movers, ({ pools, services }, lost) => {
        const first = allocateServices({ pools, services });
        const held = addressesOf(first.results);
        const holders = services.map((s) => ({ ...s, ingressIPs: [...(held.get(serviceKey(s)) ?? [])] }));
        const second = allocateServices({ pools, services: [...lost, ...holders] });
        for (const [key, ips] of assigned(first.results)) {
          const r = second.results.get(key);
          expect(r?.status === 'assigned' && r.ips.map(formatIP), key).toEqual(ips.map(formatIP));
        }
      }),
      RUNS,
    );
  });
});
