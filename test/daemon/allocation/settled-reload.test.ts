// A reload that adds, removes or rewrites a few services of a settled allocation costs what it changed
// (settled-reload.ts), and gives exactly what the full allocator turn gives: same table, same results and events,
// same claims, on random configurations (requests, sharing, pools running out, dual stack, removals, rewrites that
// allocation reads or not, removed services another member still defines). A follower reuses its last answer
// while configuration and table are the same objects, with the same outcome.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IPAddressPool, Service } from '../../../src/model';
import { allocateFromTable, emptyAllocationTable, effectiveAllocation, type EffectiveAllocation } from '../../../src/daemon/allocation';
import { allocateReload, settledRun } from '../../../src/daemon/allocation/settled-reload';
import type { ReusableAllocation } from '../../../src/daemon/allocation/effective-allocation';
import { DUAL, PREFER_DUAL, pool, service } from '../../allocator/factories';

/** Small enough to run out now and then (a failed service stops the shortcut). */
const POOLS: IPAddressPool[] = [pool('small', ['192.0.2.10-192.0.2.19']), pool('v6', ['2001:db8::/125'])];
const SELF = 'node-1';
const T0 = 1_700_000_000_000;

const NAMES = Array.from({ length: 12 }, (_, i) => `s${i}`);
/** Mostly absent: most services of a real file are plain, and plain ones are what the shortcut takes. */
const sometimes = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

const serviceArb: fc.Arbitrary<Service> = fc
  .record({
    name: fc.constantFrom(...NAMES),
    request: sometimes(fc.constantFrom('192.0.2.10', '192.0.2.12', '198.51.100.1')),
    addressPool: sometimes(fc.constantFrom('small', 'v6', 'gone')),
    share: sometimes(fc.constant('k')),
    port: fc.constantFrom(80, 443),
    family: fc.constantFrom('single', 'single', 'single', 'single', 'dual', 'prefer'),
    ingress: sometimes(fc.constantFrom('192.0.2.11', '192.0.2.14')),
  })
  .map((s) =>
    service(s.name, {
      ...(s.request !== undefined && { requestIPs: s.request }),
      ...(s.addressPool !== undefined && { addressPool: s.addressPool }),
      ...(s.share !== undefined && { share: s.share }),
      ports: [s.port],
      ...(s.family === 'dual' ? DUAL : s.family === 'prefer' ? PREFER_DUAL : {}),
      ...(s.ingress !== undefined && { ingress: [s.ingress] }),
    }),
  );

/** Distinct names (the allocator refuses a service listed twice). */
const servicesArb = (max: number): fc.Arbitrary<Service[]> => fc.uniqueArray(serviceArb, { selector: (s) => s.meta.name, maxLength: max });

/** What the daemon reads of an allocator turn (the allocator's internal state aside). */
function view(e: EffectiveAllocation) {
  const { reusable: _reusable, results, ...rest } = e;
  return { ...rest, results: results && { results: results.results, usage: results.usage } };
}

describe('a reload from a settled allocation', () => {
  it('allocates exactly as the full turn, step after step, whether or not the shortcut applies', () => {
    let shortcuts = 0;
    let followed = 0;
    let answersReused = 0;
    fc.assert(
      fc.property(
        servicesArb(8),
        fc.array(fc.tuple(servicesArb(3), fc.nat({ max: 5 }), fc.nat({ max: 7 })), { maxLength: 5 }),
        (first, steps) => {
          let services = first;
          // One object per configuration, as the daemon's interned snapshot: what the reuse is keyed on.
          let snapshot = { pools: POOLS, services };
          let table = emptyAllocationTable();
          let settled: ReusableAllocation | undefined;
          const followers = new Map<string, ReusableAllocation | undefined>();
          let now = T0;
          // Some removed services are still defined by another member's file: their entries are withheld, not released.
          let definedElsewhere = new Set<string>();
          const holders = (key: string) => (definedElsewhere.has(key) ? ['node-2'] : []);
          const turn = (): void => {
            if (settled?.kind === 'settled' && allocateReload(settled.run, snapshot, table, SELF, now, holders)) shortcuts++;
            const kept = effectiveAllocation(snapshot, table, [SELF], SELF, now, holders, true, settled);
            if (settled?.kind === 'settled' && settled.answered && kept.reusable === settled) answersReused++;
            const full = effectiveAllocation(snapshot, table, [SELF], SELF, now, holders);
            expect(view(kept)).toEqual(view(full));
            settled = kept.reusable;
            // The other nodes follow the table: reusing their last answer gives what the claim pass gives.
            for (const other of ['node-2', 'node-3']) {
              const before = followers.get(other);
              const reused = effectiveAllocation(snapshot, table, [SELF, other], other, now, undefined, true, before);
              if (before?.kind === 'following' && reused.reusable === before) followed++;
              expect(view(reused)).toEqual(view(effectiveAllocation(snapshot, table, [SELF, other], other, now)));
              followers.set(other, reused.reusable);
            }
            table = kept.table; // equal to full.table; the daemon keeps the object it was given
            now += 1_000;
          };
          turn();
          turn();
          for (const [more, change, which] of steps) {
            const names = new Set(services.map((s) => s.meta.name));
            const target = services[which % Math.max(1, services.length)];
            // Some steps also drop a service (now and then one another member still defines), or rewrite one in a
            // field allocation never reads (its selector) or in one it reads (its ports, which sharing compares).
            let kept = services;
            if (target && change <= 1) kept = services.filter((s) => s !== target);
            if (target && change === 2) kept = services.map((s) => (s === target ? { ...s, selector: { app: 'other' } } : s));
            if (target && change === 3)
              kept = services.map((s) => (s === target ? { ...s, ports: [...s.ports, { protocol: 'UDP' as const, port: 53 }] } : s));
            definedElsewhere = new Set(target && change === 1 ? [`demo/${target.meta.name}`] : []);
            services = [...kept, ...more.filter((s) => !names.has(s.meta.name))];
            snapshot = { pools: POOLS, services };
            turn();
            turn();
          }
        },
      ),
      { numRuns: 150 },
    );
    expect(shortcuts).toBeGreaterThan(0);
    expect(followed).toBeGreaterThan(0);
    expect(answersReused).toBeGreaterThan(0);
  });

  it('adds one service to 2,000 settled ones by allocating that one, with the full turn’s outcome', () => {
    const big = [pool('big', ['10.0.0.0/16'])];
    const services = Array.from({ length: 2_000 }, (_, i) => service(`svc-${i}`));
    const first = allocateFromTable({ pools: big, services }, emptyAllocationTable(), SELF, T0);
    const settled = settledRun({ pools: big, services }, emptyAllocationTable(), SELF, first);
    expect(settled).toBeDefined();
    const added = [...services.slice(0, 1_000), service('new-one'), ...services.slice(1_000)];
    const shortcut = allocateReload(settled!, { pools: big, services: added }, first.table, SELF, T0 + 1_000);
    const full = allocateFromTable({ pools: big, services: added }, first.table, SELF, T0 + 1_000);
    expect(shortcut).toBeDefined();
    expect(shortcut!.changes).toEqual(full.changes);
    expect(shortcut!.changes.map((c) => c.service)).toEqual(['demo/new-one']);
    expect(shortcut!.table).toEqual(full.table);
    expect(shortcut!.results.results).toEqual(full.results.results);
    expect(shortcut!.claims).toEqual(full.claims);
  });

  it('takes added services that request free addresses too, requesters before fresh ones as the full turn does', () => {
    // Like a file whose every service pins its address (metallb.io/loadBalancerIPs), with one pinned and one
    // automatic service added: the request wins the lowest free address although its key sorts last.
    const small = [pool('small', ['192.0.2.10-192.0.2.19'])];
    const pinned = [service('a', { requestIPs: '192.0.2.11' }), service('b', { requestIPs: '192.0.2.12' })];
    const first = allocateFromTable({ pools: small, services: pinned }, emptyAllocationTable(), SELF, T0);
    const settled = settledRun({ pools: small, services: pinned }, emptyAllocationTable(), SELF, first);
    expect(settled).toBeDefined();
    const added = [...pinned, service('aaa-fresh'), service('zzz-pinned', { requestIPs: '192.0.2.10' })];
    const shortcut = allocateReload(settled!, { pools: small, services: added }, first.table, SELF, T0 + 1_000);
    const full = allocateFromTable({ pools: small, services: added }, first.table, SELF, T0 + 1_000);
    expect(shortcut).toBeDefined();
    expect(shortcut!.table).toEqual(full.table);
    expect(shortcut!.table.entries.get('demo/zzz-pinned')?.ips).toEqual(['192.0.2.10']);
    expect(shortcut!.table.entries.get('demo/aaa-fresh')?.ips).toEqual(['192.0.2.13']);
    expect(shortcut!.results.results).toEqual(full.results.results);
    expect(shortcut!.claims).toEqual(full.claims);
    // The turn after, on its own output, is settled again and still the full turn's.
    const next = settledRun({ pools: small, services: added }, first.table, SELF, shortcut!);
    const again = allocateFromTable({ pools: small, services: added }, shortcut!.table, SELF, T0 + 2_000);
    expect(next?.allocation.claims).toEqual(again.claims);
    expect(next?.allocation.results.results).toEqual(again.results.results);
  });

  it('runs the full turn when an added service requests an address a settled one uses', () => {
    const small = [pool('small', ['192.0.2.10-192.0.2.19'])];
    const settledServices = [service('a', { requestIPs: '192.0.2.11' }), service('auto')];
    const first = allocateFromTable({ pools: small, services: settledServices }, emptyAllocationTable(), SELF, T0);
    const settled = settledRun({ pools: small, services: settledServices }, emptyAllocationTable(), SELF, first);
    const auto = first.table.entries.get('demo/auto')?.ips[0];
    const added = [...settledServices, service('thief', { requestIPs: auto })];
    expect(allocateReload(settled!, { pools: small, services: added }, first.table, SELF, T0 + 1_000)).toBeUndefined();
  });

  it('removes one of 2,000 settled services and rewrites another’s selector without the full turn, with its outcome', () => {
    const big = [pool('big', ['10.0.0.0/16'])];
    const services = Array.from({ length: 2_000 }, (_, i) => service(`svc-${i}`));
    const first = allocateFromTable({ pools: big, services }, emptyAllocationTable(), SELF, T0);
    const settled = settledRun({ pools: big, services }, emptyAllocationTable(), SELF, first);
    const edited = services.filter((_, i) => i !== 7).map((s, i) => (i === 100 ? { ...s, selector: { app: 'canary' } } : s));
    const shortcut = allocateReload(settled!, { pools: big, services: edited }, first.table, SELF, T0 + 1_000);
    const full = allocateFromTable({ pools: big, services: edited }, first.table, SELF, T0 + 1_000);
    expect(shortcut).toBeDefined();
    expect(shortcut!.changes).toEqual(full.changes);
    expect(shortcut!.changes.map((c) => [c.service, c.after.released])).toEqual([['demo/svc-7', true]]);
    expect(shortcut!.table).toEqual(full.table);
    expect(shortcut!.results.results).toEqual(full.results.results);
    expect(shortcut!.results.usage).toEqual(full.results.usage);
    expect(shortcut!.claims).toEqual(full.claims);
  });
});
