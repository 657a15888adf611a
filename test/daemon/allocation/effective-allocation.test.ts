// What every node uses: the allocator's own run, or the table read through the same claim pass elsewhere;
// explicit addresses straight from the configuration everywhere, table or not.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIP } from '../../../src/ip';
import type { Service } from '../../../src/model';
import {
  type AllocationTable,
  allocateFromTable,
  chooseAllocator,
  effectiveAllocation,
  emptyAllocationTable,
  mergeAllocationTables,
} from '../../../src/daemon/allocation';
import { pool, service } from '../../allocator/factories';

const POOL = pool('default', ['192.0.2.10-192.0.2.19']);
const T0 = 1_700_000_000_000;
const NODES = ['node-1', 'node-2', 'node-3'];
const ALLOCATOR = chooseAllocator(NODES) as string;
const FOLLOWER = NODES.find((n) => n !== ALLOCATOR) as string;

const snap = (services: Service[]) => ({ pools: [POOL], services });
const textsOf = (ips: ReadonlyMap<string, readonly { family: 4 | 6; value: bigint }[]>): Record<string, string[]> =>
  Object.fromEntries([...ips].map(([k, v]) => [k, v.map(formatIP)]));

const web = service('web');
const db = service('db');
const vip = service('vip', { requestIPs: '192.0.2.15' });

describe('effectiveAllocation', () => {
  it('on the allocator: allocates, and hands back the table to publish', () => {
    const view = effectiveAllocation(snap([web, db, vip]), emptyAllocationTable(), NODES, ALLOCATOR, T0);
    expect(view.iAmAllocator).toBe(true);
    expect(view.allocator).toBe(ALLOCATOR);
    expect(view.changed).toBe(true);
    expect(view.table.allocator).toBe(ALLOCATOR);
    expect(textsOf(view.ips)).toEqual({ 'demo/db': ['192.0.2.10'], 'demo/vip': ['192.0.2.15'], 'demo/web': ['192.0.2.11'] });
    expect(view.services.get('demo/vip')?.code).toBe('requested');
    expect(view.services.get('demo/web')).toMatchObject({ code: 'allocated', pool: 'default' });
    expect(view.addresses.get('demo/web')).toMatchObject({ pool: 'default' });
    expect(view.reason.code).toBe('allocating');
    expect(view.results?.results.size).toBe(3);
  });

  it('elsewhere, before any table: explicit addresses work, the rest wait for the allocator', () => {
    const view = effectiveAllocation(snap([web, db, vip]), emptyAllocationTable(), NODES, FOLLOWER, T0);
    expect(view.iAmAllocator).toBe(false);
    expect(view.changed).toBe(false);
    expect(textsOf(view.ips)).toEqual({ 'demo/vip': ['192.0.2.15'] });
    expect(view.services.get('demo/web')?.code).toBe('waitingForAllocator');
    expect(view.services.get('demo/web')?.message).toContain(ALLOCATOR);
    expect(view.reason).toMatchObject({ code: 'following' });
  });

  it("elsewhere, with the allocator's table: the same addresses as the allocator", () => {
    const allocated = effectiveAllocation(snap([web, db, vip]), emptyAllocationTable(), NODES, ALLOCATOR, T0);
    const view = effectiveAllocation(snap([web, db, vip]), allocated.table, NODES, FOLLOWER, T0 + 1);
    expect(textsOf(view.ips)).toEqual(textsOf(allocated.ips));
    expect(view.services.get('demo/web')).toMatchObject({ code: 'fromTable', entry: { writer: ALLOCATOR, version: 1 } });
    expect(view.table).toBe(allocated.table);
  });

  it('elsewhere, an explicit address beats the table at once, before the allocator moves the other service', () => {
    const table = allocateFromTable(snap([web]), emptyAllocationTable(), ALLOCATOR, T0).table;
    const grab = service('grab', { requestIPs: '192.0.2.10' });
    const view = effectiveAllocation(snap([web, grab]), table, NODES, FOLLOWER, T0 + 1);
    expect(textsOf(view.ips)).toEqual({ 'demo/grab': ['192.0.2.10'] });
    expect(view.services.get('demo/web')).toMatchObject({ code: 'addressTaken' });
    expect(view.services.get('demo/web')?.message).toContain('demo/grab (an explicit request)');
  });

  it('elsewhere, after a healed partition: only the older entry is used until the allocator re-allocates', () => {
    const x = service('x');
    const y = service('y');
    // node-a's write is the older (same version, smaller name) although its service sorts later.
    const left = allocateFromTable(snap([y]), emptyAllocationTable(), 'node-a', T0).table;
    const right = allocateFromTable(snap([x]), emptyAllocationTable(), 'node-b', T0).table;
    const merged = mergeAllocationTables(right, left).table;
    const view = effectiveAllocation(snap([x, y]), merged, NODES, FOLLOWER, T0 + 1);
    expect(textsOf(view.ips)).toEqual({ 'demo/y': ['192.0.2.10'] });
    expect(view.services.get('demo/x')).toMatchObject({ code: 'addressTaken' });
    expect(view.services.get('demo/x')?.message).toContain('demo/y (an older allocation)');
    // The allocator agrees, and then everyone has both.
    const allocator = effectiveAllocation(snap([x, y]), merged, NODES, ALLOCATOR, T0 + 1);
    expect(textsOf(allocator.ips)).toEqual({ 'demo/x': ['192.0.2.11'], 'demo/y': ['192.0.2.10'] });
    expect(textsOf(effectiveAllocation(snap([x, y]), allocator.table, NODES, FOLLOWER, T0 + 2).ips)).toEqual(textsOf(allocator.ips));
  });

  it('reports failures and skipped services on every node', () => {
    const bad = service('bad', { requestIPs: 'not-an-ip' });
    const outside = service('outside', { requestIPs: '198.51.100.1' });
    const internal = service('internal', { type: 'ClusterIP' });
    for (const node of [ALLOCATOR, FOLLOWER]) {
      const view = effectiveAllocation(snap([bad, outside, internal]), emptyAllocationTable(), NODES, node, T0);
      expect(view.services.get('demo/bad')).toMatchObject({ code: 'failed', errorCode: 'invalidRequestedIPs' });
      expect(view.services.get('demo/outside')).toMatchObject({ code: 'failed', errorCode: 'notAllowedInConfig' });
      expect(view.services.get('demo/internal')).toMatchObject({ code: 'skipped' });
      expect(view.ips.size).toBe(0);
    }
  });

  it('without any pool, every node says so for every service', () => {
    for (const node of [ALLOCATOR, FOLLOWER]) {
      const view = effectiveAllocation({ pools: [], services: [web, vip] }, emptyAllocationTable(), NODES, node, T0);
      expect([...view.services.values()].map((s) => s.errorCode)).toEqual(['noPools', 'noPools']);
    }
  });

  it('on the allocator that may not write yet (the cluster not heard): it follows its table, allocating nothing', () => {
    const table = allocateFromTable(snap([web]), emptyAllocationTable(), ALLOCATOR, T0).table;
    const view = effectiveAllocation(snap([web, db, vip]), table, NODES, ALLOCATOR, T0 + 1, undefined, false);
    expect(view).toMatchObject({ allocator: ALLOCATOR, iAmAllocator: true, changed: false, reason: { code: 'following' } });
    expect(view.table).toBe(table);
    // web from the table, vip from the configuration; db, which a fresh run would give 192.0.2.10, waits.
    expect(textsOf(view.ips)).toEqual({ 'demo/vip': ['192.0.2.15'], 'demo/web': ['192.0.2.10'] });
    expect(view.services.get('demo/db')?.code).toBe('waitingForAllocator');
  });

  it('counts this node as live even when the member list misses it', () => {
    expect(effectiveAllocation(snap([web]), emptyAllocationTable(), [], 'lonely', T0)).toMatchObject({
      allocator: 'lonely',
      iAmAllocator: true,
    });
  });
});

describe('effectiveAllocation agreement', () => {
  const NAMES = ['a', 'b', 'c', 'd', 'e', 'f'];
  const serviceArb = fc.record({
    name: fc.constantFrom(...NAMES),
    // Mostly automatic: the interesting clashes are between table entries.
    request: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 4 },
      { arbitrary: fc.constantFrom('192.0.2.10', '192.0.2.12', '192.0.2.30'), weight: 1 },
    ),
    share: fc.oneof({ arbitrary: fc.constant(undefined), weight: 2 }, { arbitrary: fc.constantFrom('k1', 'k2'), weight: 1 }),
    port: fc.constantFrom(80, 443),
  });
  const servicesArb = fc.uniqueArray(serviceArb, { selector: (s) => s.name, maxLength: NAMES.length }).map((list) =>
    list.map((s) =>
      service(s.name, {
        ports: [s.port],
        ...(s.request !== undefined && { requestIPs: s.request }),
        ...(s.share !== undefined && { share: s.share }),
      }),
    ),
  );

  it("a follower with the allocator's table uses exactly the allocator's addresses, whatever came before", () => {
    fc.assert(
      fc.property(servicesArb, servicesArb, servicesArb, (earlierLeft, earlierRight, now) => {
        // Whatever history left in the table: two partitions' allocations, merged.
        const left = allocateFromTable(snap(earlierLeft), emptyAllocationTable(), 'node-a', T0).table;
        const right = allocateFromTable(snap(earlierRight), emptyAllocationTable(), 'node-b', T0).table;
        const history: AllocationTable = mergeAllocationTables(left, right).table;
        const allocator = effectiveAllocation(snap(now), history, NODES, ALLOCATOR, T0 + 1);
        const follower = effectiveAllocation(snap(now), allocator.table, NODES, FOLLOWER, T0 + 2);
        return JSON.stringify(textsOf(follower.ips)) === JSON.stringify(textsOf(allocator.ips));
      }),
      { numRuns: 300 },
    );
  });

  it("before the allocator's new table arrives, a follower uses no address the allocator gives to someone else", () => {
    fc.assert(
      fc.property(servicesArb, servicesArb, servicesArb, (earlierLeft, earlierRight, now) => {
        const left = allocateFromTable(snap(earlierLeft), emptyAllocationTable(), 'node-a', T0).table;
        const right = allocateFromTable(snap(earlierRight), emptyAllocationTable(), 'node-b', T0).table;
        const history = mergeAllocationTables(left, right).table;
        const follower = textsOf(effectiveAllocation(snap(now), history, NODES, FOLLOWER, T0 + 1).ips);
        const allocator = textsOf(effectiveAllocation(snap(now), history, NODES, ALLOCATOR, T0 + 1).ips);
        return Object.entries(follower).every(([key, ips]) => JSON.stringify(allocator[key]) === JSON.stringify(ips));
      }),
      { numRuns: 300 },
    );
  });
});
