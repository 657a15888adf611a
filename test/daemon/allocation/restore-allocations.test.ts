// What a node brings from allocations.json, and what a healed partition keeps: a running service never moves
// because a file (a restored backup, a node that was away) or the other side's clock carries bigger numbers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Service } from '../../../src/model';
import {
  type AllocationTable,
  allocateFromTable,
  emptyAllocationTable,
  liveAllocations,
  makeAllocationTable,
  mergeAllocationTables,
  restoreAllocations,
  sameAllocationTable,
} from '../../../src/daemon/allocation';
import { pool, service } from '../../allocator/factories';
import { entry, tableArb } from './arbitraries';

const POOL = pool('default', ['192.0.2.10-192.0.2.29']);
const T0 = 1_700_000_000_000;
const snap = (services: Service[]) => ({ pools: [POOL], services });
const addressesOf = (table: AllocationTable): Record<string, string[]> =>
  Object.fromEntries([...liveAllocations(table)].map(([k, ips]) => [k, [...ips]]));

const web = service('web');
const db = service('db');
const api = service('api');

/** The running cluster: web and db allocated by node-1 (table version 1). */
function runningCluster(): AllocationTable {
  return allocateFromTable(snap([web, db]), emptyAllocationTable(), 'node-1', T0).table;
}

/** A backup from another life of the cluster: other addresses, version 1000, and a service the cluster lacks. */
const FORGED = makeAllocationTable(1000, 'node-9', [
  ['demo/web', entry(['192.0.2.20'], 1000, 'node-9')],
  ['demo/db', entry(['192.0.2.21'], 999, 'node-9')],
  ['demo/api', entry(['192.0.2.22'], 998, 'node-9')],
]);

describe('restoreAllocations: a file joins the live table without overriding it', () => {
  it('a forged higher-version file moves no running service; the difference is reported with both sides', () => {
    const live = runningCluster();
    expect(addressesOf(live)).toEqual({ 'demo/db': ['192.0.2.10'], 'demo/web': ['192.0.2.11'] });
    // What merging the file like a peer's table does: every service moves to the file's addresses.
    expect(addressesOf(mergeAllocationTables(live, FORGED).table)).toMatchObject({ 'demo/db': ['192.0.2.21'], 'demo/web': ['192.0.2.20'] });

    const restored = restoreAllocations(live, FORGED);
    expect(addressesOf(restored.table)).toEqual({ 'demo/api': ['192.0.2.22'], 'demo/db': ['192.0.2.10'], 'demo/web': ['192.0.2.11'] });
    expect(restored.conflicts).toEqual([
      { service: 'demo/db', live: live.entries.get('demo/db'), disk: FORGED.entries.get('demo/db') },
      { service: 'demo/web', live: live.entries.get('demo/web'), disk: FORGED.entries.get('demo/web') },
    ]);
    expect(restored.filled).toEqual(['demo/api']);
    // The file's version does not pull the cluster's clock forward.
    expect(restored.table.version).toBe(live.version);
    expect(restored.table.allocator).toBe('node-1');

    // The allocator's next turn keeps everything and writes at the cluster's next version, not 1001.
    const next = allocateFromTable(snap([web, db, api]), restored.table, 'node-1', T0 + 1);
    expect(addressesOf(next.table)).toEqual(addressesOf(restored.table));
    expect(next.changed).toBe(false);
  });

  it('fills only gaps: a released service stays released, a restored entry yields to the first live write', () => {
    const live = allocateFromTable(snap([db]), runningCluster(), 'node-1', T0 + 1).table; // web released at version 2
    expect(live.entries.get('demo/web')).toMatchObject({ released: true });
    const restored = restoreAllocations(live, FORGED);
    expect(restored.table.entries.get('demo/web')).toMatchObject({ released: true, version: 2 });
    expect(restored.table.entries.get('demo/api')).toMatchObject({ ips: ['192.0.2.22'], restored: true, version: 998 });
    expect(restored.conflicts.map((c) => c.service)).toEqual(['demo/db']);

    // Another node's live write for demo/api (version 3 < 998) replaces the restored entry, from either side.
    const other = makeAllocationTable(3, 'node-2', [['demo/api', entry(['192.0.2.12'], 3, 'node-2')]]);
    for (const merged of [mergeAllocationTables(restored.table, other), mergeAllocationTables(other, restored.table)]) {
      expect(merged.table.entries.get('demo/api')).toMatchObject({ ips: ['192.0.2.12'], writer: 'node-2' });
      expect(merged.reason.conflicts).toEqual([
        { service: 'demo/api', kept: other.entries.get('demo/api'), dropped: restored.table.entries.get('demo/api') },
      ]);
    }
  });

  it('a restored entry whose address a live entry holds loses it: the live service never moves', () => {
    const live = runningCluster(); // web holds 192.0.2.11
    const stale = makeAllocationTable(50, 'node-3', [['demo/old', entry(['192.0.2.11'], 50, 'node-3')]]);
    const restored = restoreAllocations(live, stale).table;
    const old = service('old');
    const run = allocateFromTable(snap([web, db, old]), restored, 'node-1', T0 + 1);
    expect(addressesOf(run.table)).toEqual({ 'demo/db': ['192.0.2.10'], 'demo/old': ['192.0.2.12'], 'demo/web': ['192.0.2.11'] });
    expect(run.claims.claims.get('demo/old')).toMatchObject({ kind: 'taken', by: ['demo/web'], source: 'restored' });
  });

  it('never changes a service the live table holds, never raises its version, and the file alone is used whole', () => {
    fc.assert(
      fc.property(tableArb, tableArb, (live, disk) => {
        const { table } = restoreAllocations(live, disk);
        for (const [key, e] of live.entries) if (table.entries.get(key) !== e) return false;
        if (table.version !== live.version || table.allocator !== live.allocator) return false;
        const alone = restoreAllocations(emptyAllocationTable(), disk).table;
        return [...disk.entries].every(([key, e]) => JSON.stringify(alone.entries.get(key)?.ips) === JSON.stringify(e.ips));
      }),
      { numRuns: 300 },
    );
  });

  it('a live entry outranks a restored one whatever their versions, in any merge order', () => {
    fc.assert(
      fc.property(tableArb, tableArb, (a, b) => {
        const restoredB = restoreAllocations(emptyAllocationTable(), b).table;
        const m1 = mergeAllocationTables(a, restoredB).table;
        const m2 = mergeAllocationTables(restoredB, a).table;
        if (!sameAllocationTable(m1, m2)) return false;
        return [...a.entries].every(([key, e]) => e.restored || m1.entries.get(key) === e);
      }),
      { numRuns: 300 },
    );
  });
});

describe('a healed partition keeps what both sides kept', () => {
  // Before: node-1 allocated web, db and api. Then node-3 is cut off and allocates alone; node-1 and node-2 go on.
  const base = allocateFromTable(snap([web, db, api]), emptyAllocationTable(), 'node-1', T0).table;
  const fresh = service('fresh');

  /** The majority side: one allocator turn (fresh is added). */
  const majority = allocateFromTable(snap([web, db, api, fresh]), base, 'node-1', T0 + 10).table;

  /** The minority churns: services come and go, so its clock runs ahead of the majority's; then fresh is added. */
  function churningMinority(start: AllocationTable): AllocationTable {
    let table = start;
    for (let i = 0; i < 6; i++) {
      const extra = i % 2 === 0 ? [service(`tmp${i}`)] : [];
      table = allocateFromTable(snap([web, db, api, ...extra]), table, 'node-3', T0 + 20 + i).table;
    }
    // tmp9 takes the next free address first, so fresh gets another one than on the majority side.
    table = allocateFromTable(snap([web, db, api, service('tmp9')]), table, 'node-3', T0 + 30).table;
    return allocateFromTable(snap([web, db, api, service('tmp9'), fresh]), table, 'node-3', T0 + 40).table;
  }

  function expectHealed(minority: AllocationTable): void {
    expect(minority.version).toBeGreaterThan(majority.version);
    const lr = mergeAllocationTables(majority, minority);
    const rl = mergeAllocationTables(minority, majority);
    expect(sameAllocationTable(lr.table, rl.table)).toBe(true);
    const healed = addressesOf(lr.table);
    for (const key of ['demo/api', 'demo/db', 'demo/web']) expect(healed[key]).toEqual(liveAllocations(base).get(key));
    // fresh was given one address on each side: one wins, the same from either side, and both sides are reported.
    const [conflict] = lr.reason.conflicts.filter((c) => c.service === 'demo/fresh');
    expect(conflict && [conflict.kept.ips, conflict.dropped.ips].sort()).toEqual(
      [majority.entries.get('demo/fresh')?.ips, minority.entries.get('demo/fresh')?.ips].sort(),
    );
    expect(rl.reason.conflicts.find((c) => c.service === 'demo/fresh')).toEqual(conflict);
    // The allocator's turn after the heal moves none of the services both sides kept.
    const after = addressesOf(allocateFromTable(snap([web, db, api, fresh]), lr.table, 'node-1', T0 + 100).table);
    for (const key of ['demo/api', 'demo/db', 'demo/web']) expect(after[key]).toEqual(liveAllocations(base).get(key));
  }

  it('the minority that kept running, with the higher version, moves nothing both sides kept', () => {
    const minority = churningMinority(base);
    expect(minority.entries.get('demo/web')).toBe(base.entries.get('demo/web'));
    expectHealed(minority);
  });

  it('the minority node restarted alone from a stale, higher-version file moves nothing the majority kept', () => {
    // Its file is from another life: the services at other addresses, versions in the hundreds.
    const stale = makeAllocationTable(400, 'node-3', [
      ['demo/web', entry(['192.0.2.25'], 400, 'node-3')],
      ['demo/db', entry(['192.0.2.26'], 399, 'node-3')],
      ['demo/api', entry(['192.0.2.27'], 398, 'node-3')],
    ]);
    // Before: the file became the node's table and its numbers won the heal.
    const before = mergeAllocationTables(majority, churningMinority(stale)).table;
    expect(addressesOf(before)['demo/web']).toEqual(['192.0.2.25']);

    // Alone, it restores the file into its empty table and allocates from it.
    const minority = churningMinority(restoreAllocations(emptyAllocationTable(), stale).table);
    expect(addressesOf(minority)['demo/web']).toEqual(['192.0.2.25']);
    expectHealed(minority);
    const healed = mergeAllocationTables(majority, minority);
    expect(healed.reason.conflicts.find((c) => c.service === 'demo/web')).toMatchObject({
      kept: { ips: liveAllocations(base).get('demo/web'), writer: 'node-1' },
      dropped: { ips: ['192.0.2.25'], writer: 'node-3', restored: true },
    });
  });
});
