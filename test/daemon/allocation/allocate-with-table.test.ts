// The allocator's turn with a table: restarts, a new allocator and healed partitions keep every existing
// allocation; explicit addresses win; a removed service releases its address (and gets it back if it returns
// before anyone took it).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IPAddressPool, Service } from '../../../src/model';
import {
  type AllocationTable,
  allocateFromTable,
  emptyAllocationTable,
  liveAllocations,
  mergeAllocationTables,
  sameAllocationTable,
} from '../../../src/daemon/allocation';
import { pool, service } from '../../allocator/factories';

const POOL = pool('default', ['192.0.2.10-192.0.2.19']);
const T0 = 1_700_000_000_000;

function snap(services: Service[], pools: IPAddressPool[] = [POOL]) {
  return { pools, services };
}

function addressesOf(table: AllocationTable): Record<string, string[]> {
  return Object.fromEntries([...liveAllocations(table)].map(([k, ips]) => [k, [...ips]]));
}

const web = service('web');
const db = service('db');
const api = service('api');

describe('allocateFromTable', () => {
  it('allocates every service into a new table version, and a second run changes nothing', () => {
    const first = allocateFromTable(snap([web, db]), emptyAllocationTable(), 'node-1', T0);
    expect(first.changed).toBe(true);
    expect(first.table.version).toBe(1);
    expect(first.table.allocator).toBe('node-1');
    expect(addressesOf(first.table)).toEqual({ 'demo/db': ['192.0.2.10'], 'demo/web': ['192.0.2.11'] });
    expect(first.changes.map((c) => c.service)).toEqual(['demo/db', 'demo/web']);

    const again = allocateFromTable(snap([db, web]), first.table, 'node-1', T0 + 1000);
    expect(again.changed).toBe(false);
    expect(again.changes).toEqual([]);
    expect(again.table).toBe(first.table);
  });

  it('a restart (empty table merged with the persisted one) keeps every address, where allocating afresh would move them', () => {
    const before = allocateFromTable(snap([web, db]), emptyAllocationTable(), 'node-1', T0).table;
    const withApi = snap([api, web, db]);
    // Without the table, "demo/api" sorts first and takes the first address.
    expect(addressesOf(allocateFromTable(withApi, emptyAllocationTable(), 'node-1', T0).table)['demo/db']).toEqual(['192.0.2.11']);

    const restored = mergeAllocationTables(emptyAllocationTable(), before).table;
    const after = allocateFromTable(withApi, restored, 'node-1', T0 + 60_000);
    expect(addressesOf(after.table)).toEqual({ ...addressesOf(before), 'demo/api': ['192.0.2.12'] });
    expect(after.changes.map((c) => c.service)).toEqual(['demo/api']);
  });

  it('a new allocator keeps every address of the old one and adds the new service under its own name', () => {
    const old = allocateFromTable(snap([web, db]), emptyAllocationTable(), 'node-1', T0).table;
    const next = allocateFromTable(snap([api, web, db]), old, 'node-2', T0 + 5_000);
    expect(addressesOf(next.table)).toMatchObject(addressesOf(old));
    expect(next.table.version).toBe(old.version + 1);
    expect(next.table.allocator).toBe('node-2');
    expect(next.table.entries.get('demo/web')?.writer).toBe('node-1');
    expect(next.table.entries.get('demo/api')).toMatchObject({ writer: 'node-2', version: 2, at: T0 + 5_000 });
  });

  it('healed partitions: both sides gave one address away; the older entry keeps it, whatever the merge order', () => {
    const base = allocateFromTable(snap([web]), emptyAllocationTable(), 'node-1', T0).table;
    const x = service('x');
    const y = service('y');
    const left = allocateFromTable(snap([web, x]), base, 'node-1', T0 + 1).table;
    const right = allocateFromTable(snap([web, y]), base, 'node-2', T0 + 2).table;
    expect(liveAllocations(left).get('demo/x')).toEqual(liveAllocations(right).get('demo/y'));

    const lr = mergeAllocationTables(left, right);
    const rl = mergeAllocationTables(right, left);
    expect(sameAllocationTable(lr.table, rl.table)).toBe(true);
    expect(lr.reason.sharedAddresses).toEqual([{ ip: '192.0.2.11', services: ['demo/x', 'demo/y'] }]);

    const all = snap([web, x, y]);
    const outcomes = [allocateFromTable(all, lr.table, 'node-1', T0 + 10), allocateFromTable(all, rl.table, 'node-2', T0 + 10)].map((r) =>
      addressesOf(r.table),
    );
    // Same version, so the writer's name orders them: node-1's entry is the older.
    expect(outcomes[0]).toEqual({ 'demo/web': ['192.0.2.10'], 'demo/x': ['192.0.2.11'], 'demo/y': ['192.0.2.12'] });
    expect(outcomes[1]).toEqual(outcomes[0]);
  });

  it('the older entry wins an address even when its service sorts later', () => {
    const base = allocateFromTable(snap([service('zeta')]), emptyAllocationTable(), 'node-9', T0).table;
    // A younger table (higher version) gave the same address to "demo/alpha".
    const young = allocateFromTable(snap([service('alpha')]), { ...emptyAllocationTable(), version: 5 }, 'node-1', T0).table;
    const merged = mergeAllocationTables(base, young).table;
    const run = allocateFromTable(snap([service('alpha'), service('zeta')]), merged, 'node-1', T0 + 1);
    expect(addressesOf(run.table)).toEqual({ 'demo/alpha': ['192.0.2.11'], 'demo/zeta': ['192.0.2.10'] });
    const alpha = run.claims.claims.get('demo/alpha');
    expect(alpha).toMatchObject({ kind: 'taken', by: ['demo/zeta'], byRequest: false });
  });

  it('services that may share an address keep sharing it after a merge', () => {
    const a = service('a', { share: 'k', ports: [80] });
    const b = service('b', { share: 'k', ports: [443] });
    const left = allocateFromTable(snap([a]), emptyAllocationTable(), 'node-1', T0).table;
    const right = allocateFromTable(snap([b]), emptyAllocationTable(), 'node-2', T0).table;
    const merged = mergeAllocationTables(left, right).table;
    const run = allocateFromTable(snap([a, b]), merged, 'node-1', T0 + 1);
    expect(addressesOf(run.table)).toEqual({ 'demo/a': ['192.0.2.10'], 'demo/b': ['192.0.2.10'] });
    expect(run.changed).toBe(false);
  });

  it("an explicit address wins over a table entry, which moves with MetalLB's ClearAssignment event", () => {
    const table = allocateFromTable(snap([web]), emptyAllocationTable(), 'node-1', T0).table;
    const vip = service('vip', { requestIPs: '192.0.2.10' });
    const run = allocateFromTable(snap([web, vip]), table, 'node-1', T0 + 1);
    expect(addressesOf(run.table)).toEqual({ 'demo/vip': ['192.0.2.10'], 'demo/web': ['192.0.2.11'] });
    const result = run.results.results.get('demo/web');
    expect(result?.status === 'assigned' && result.events.map((e) => e.reason)).toEqual(['ClearAssignment', 'IPAllocated']);
    expect(run.claims.claims.get('demo/web')).toMatchObject({ kind: 'taken', by: ['demo/vip'], byRequest: true });
  });

  it('releases a removed service at once, and gives its address back if it returns before anyone took it', () => {
    const table = allocateFromTable(snap([web, db]), emptyAllocationTable(), 'node-1', T0).table;
    const removed = allocateFromTable(snap([db]), table, 'node-1', T0 + 1);
    expect(removed.changed).toBe(true);
    expect(removed.table.entries.get('demo/web')).toMatchObject({ released: true, ips: ['192.0.2.11'], version: 2, at: T0 + 1 });
    expect(addressesOf(removed.table)).toEqual({ 'demo/db': ['192.0.2.10'] });

    // "demo/api" sorts before "demo/db"... but only "demo/web" asks for an address again: it gets its old one back,
    // although allocating afresh would give it the first free address.
    const back = allocateFromTable(snap([db, web]), removed.table, 'node-1', T0 + 2).table;
    expect(liveAllocations(back).get('demo/web')).toEqual(['192.0.2.11']);

    // Taken meanwhile: the newcomer keeps it, the returning service is new.
    const taken = allocateFromTable(snap([db, api]), removed.table, 'node-1', T0 + 2).table;
    expect(liveAllocations(taken).get('demo/api')).toEqual(['192.0.2.11']);
    const returning = allocateFromTable(snap([db, api, web]), taken, 'node-1', T0 + 3).table;
    expect(addressesOf(returning)).toEqual({ 'demo/api': ['192.0.2.11'], 'demo/db': ['192.0.2.10'], 'demo/web': ['192.0.2.12'] });
  });

  it('releases a service that is no longer a LoadBalancer, or whose pool is gone', () => {
    const table = allocateFromTable(snap([web, db]), emptyAllocationTable(), 'node-1', T0).table;
    const run = allocateFromTable(snap([web, service('db', { type: 'ClusterIP' })]), table, 'node-1', T0 + 1);
    expect(run.table.entries.get('demo/db')?.released).toBe(true);
    const other = pool('other', ['198.51.100.0/30']);
    const moved = allocateFromTable(snap([web], [other]), table, 'node-1', T0 + 1);
    expect(addressesOf(moved.table)).toEqual({ 'demo/web': ['198.51.100.0'] });
  });
});

describe("a release needs the service gone from every live member's configuration", () => {
  const definedBy = (defs: Record<string, string[]>) => (key: string) => defs[key] ?? [];

  it('the allocator whose own file lacks a service keeps its allocation while another live member defines it', () => {
    const table = allocateFromTable(snap([web, db]), emptyAllocationTable(), 'node-1', T0).table;
    const run = allocateFromTable(
      snap([]),
      table,
      'node-1',
      T0 + 1,
      definedBy({ 'demo/web': ['node-2', 'node-3'], 'demo/db': ['node-3'] }),
    );
    expect(run.changed).toBe(false);
    expect(addressesOf(run.table)).toEqual(addressesOf(table));
    expect(run.withheld.map((w) => [w.service, w.definedBy])).toEqual([
      ['demo/db', ['node-3']],
      ['demo/web', ['node-2', 'node-3']],
    ]);
    expect(run.withheld[1]?.message).toContain('node-2, node-3 still define it');
  });

  it('a withheld address is not given to a new service meanwhile', () => {
    const table = allocateFromTable(snap([web, db]), emptyAllocationTable(), 'node-1', T0).table;
    const run = allocateFromTable(snap([db, api]), table, 'node-1', T0 + 1, definedBy({ 'demo/web': ['node-2'] }));
    expect(addressesOf(run.table)).toEqual({ 'demo/api': ['192.0.2.12'], 'demo/db': ['192.0.2.10'], 'demo/web': ['192.0.2.11'] });
    expect(run.results.results.has('demo/web')).toBe(false);
  });

  it('releases once no live member defines it any more', () => {
    const table = allocateFromTable(snap([web, db]), emptyAllocationTable(), 'node-1', T0).table;
    const run = allocateFromTable(snap([db]), table, 'node-1', T0 + 1, definedBy({}));
    expect(run.table.entries.get('demo/web')?.released).toBe(true);
    expect(run.withheld).toEqual([]);
  });
});

describe('allocateFromTable properties', () => {
  const NAMES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
  const SMALL = pool('small', ['192.0.2.10-192.0.2.15']);
  const servicesOf = (names: string[]) => names.map((n) => service(n));
  const namesArb = fc.subarray(NAMES);

  it('never changes an allocation of a service that stays, and a second run is a no-op', () => {
    fc.assert(
      fc.property(namesArb, namesArb, (first, second) => {
        const t1 = allocateFromTable(snap(servicesOf(first), [SMALL]), emptyAllocationTable(), 'node-1', T0).table;
        const run = allocateFromTable(snap(servicesOf(second), [SMALL]), t1, 'node-2', T0 + 1);
        const before = liveAllocations(t1);
        const after = liveAllocations(run.table);
        for (const name of second) {
          const key = `demo/${name}`;
          if (before.has(key) && JSON.stringify(after.get(key)) !== JSON.stringify(before.get(key))) return false;
        }
        const again = allocateFromTable(snap(servicesOf(second), [SMALL]), run.table, 'node-3', T0 + 2);
        return !again.changed && again.table === run.table;
      }),
      { numRuns: 200 },
    );
  });

  it('partitions merged in any order give one outcome; nobody loses an address nobody else was given', () => {
    const partitionArb = fc.record({
      base: fc.subarray(NAMES.slice(0, 3)),
      // Each later service appears in one partition, or none.
      placement: fc.array(fc.integer({ min: -1, max: 2 }), { minLength: 5, maxLength: 5 }),
      order: fc.constantFrom([0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]),
    });
    fc.assert(
      fc.property(partitionArb, ({ base, placement, order }) => {
        const baseTable = allocateFromTable(snap(servicesOf(base), [SMALL]), emptyAllocationTable(), 'node-0', T0).table;
        const sides = [0, 1, 2].map((p) => {
          const extra = NAMES.slice(3).filter((_, i) => placement[i] === p);
          return allocateFromTable(snap(servicesOf([...base, ...extra]), [SMALL]), baseTable, `node-${p + 1}`, T0 + 1).table;
        });
        const inOrder = order.map((i) => sides[i] as AllocationTable);
        const mergedA = inOrder.reduce((acc, t) => mergeAllocationTables(acc, t).table);
        const mergedB = [...inOrder].reverse().reduce((acc, t) => mergeAllocationTables(t, acc).table);
        if (!sameAllocationTable(mergedA, mergedB)) return false;

        const everyone = [...base, ...NAMES.slice(3).filter((_, i) => placement[i] !== -1)];
        const healed = allocateFromTable(snap(servicesOf(everyone), [SMALL]), mergedA, 'node-1', T0 + 2).table;
        const reference = allocateFromTable(
          snap(servicesOf(everyone), [SMALL]),
          sides.reduce((acc, t) => mergeAllocationTables(acc, t).table),
          'node-3',
          T0 + 2,
        ).table;
        const after = liveAllocations(healed);
        if (JSON.stringify(addressesOf(healed)) !== JSON.stringify(addressesOf(reference))) return false;

        // Base services keep their addresses; a partition's allocation survives unless another partition used the
        // same address; no address ends up with two services.
        for (const name of base) {
          if (JSON.stringify(after.get(`demo/${name}`)) !== JSON.stringify(liveAllocations(baseTable).get(`demo/${name}`))) return false;
        }
        const users = new Map<string, number>();
        for (const side of sides)
          for (const [key, ips] of liveAllocations(side))
            if (!liveAllocations(baseTable).has(key)) users.set(ips[0] as string, (users.get(ips[0] as string) ?? 0) + 1);
        for (const side of sides) {
          for (const [key, ips] of liveAllocations(side)) {
            if (users.get(ips[0] as string) === 1 && JSON.stringify(after.get(key)) !== JSON.stringify(ips)) return false;
          }
        }
        const firstIPs = [...after.values()].map((ips) => ips[0]);
        return new Set(firstIPs).size === firstIPs.length;
      }),
      { numRuns: 200 },
    );
  });
});
