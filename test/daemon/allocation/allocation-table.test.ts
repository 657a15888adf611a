// The table merge: a join (commutative, associative, idempotent), so nodes that saw the same tables agree
// whatever the order; nothing either side allocated is lost unless the same service was written twice.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AllocationTable,
  RELEASED_ENTRY_TTL_MS,
  compareEntries,
  emptyAllocationTable,
  expireReleasedEntries,
  makeAllocationTable,
  mergeAllocationTables,
  receiveAllocationTable,
  sameAllocationTable,
} from '../../../src/daemon/allocation';
import { entry, tableArb } from './arbitraries';

const merge = (a: AllocationTable, b: AllocationTable): AllocationTable => mergeAllocationTables(a, b).table;

describe('mergeAllocationTables properties', () => {
  it('is commutative', () => {
    fc.assert(
      fc.property(tableArb, tableArb, (a, b) => sameAllocationTable(merge(a, b), merge(b, a))),
      { numRuns: 500 },
    );
  });

  it('is associative', () => {
    fc.assert(
      fc.property(tableArb, tableArb, tableArb, (a, b, c) => sameAllocationTable(merge(merge(a, b), c), merge(a, merge(b, c)))),
      { numRuns: 500 },
    );
  });

  it('is idempotent and reports no change when merging what it already holds', () => {
    fc.assert(
      fc.property(tableArb, tableArb, (a, b) => {
        const ab = merge(a, b);
        return (
          sameAllocationTable(merge(a, a), a) &&
          !mergeAllocationTables(a, a).reason.changed &&
          !mergeAllocationTables(ab, b).reason.changed &&
          !mergeAllocationTables(ab, a).reason.changed
        );
      }),
      { numRuns: 300 },
    );
  });

  it('keeps every entry only one side has, and the higher of two entries for one service', () => {
    fc.assert(
      fc.property(tableArb, tableArb, (a, b) => {
        const m = merge(a, b);
        for (const key of new Set([...a.entries.keys(), ...b.entries.keys()])) {
          const ea = a.entries.get(key);
          const eb = b.entries.get(key);
          const got = m.entries.get(key);
          if (got === undefined) return false;
          if (ea === undefined || eb === undefined) {
            if (compareEntries(got, (ea ?? eb)!) !== 0) return false;
          } else if (compareEntries(got, compareEntries(ea, eb) >= 0 ? ea : eb) !== 0) {
            return false;
          }
        }
        return m.entries.size === new Set([...a.entries.keys(), ...b.entries.keys()]).size;
      }),
      { numRuns: 300 },
    );
  });

  it("never lowers the version, and the version covers every live entry (a restored one's is another life's)", () => {
    fc.assert(
      fc.property(tableArb, tableArb, (a, b) => {
        const m = merge(a, b);
        return m.version === Math.max(a.version, b.version) && [...m.entries.values()].every((e) => e.restored || e.version <= m.version);
      }),
    );
  });
});

describe('mergeAllocationTables cases', () => {
  const base = makeAllocationTable(3, 'node-1', [['demo/web', entry(['192.0.2.1'], 3, 'node-1')]]);

  it('two partitions allocating different services: both allocations survive, no conflict', () => {
    const left = makeAllocationTable(4, 'node-1', [...base.entries, ['demo/x', entry(['192.0.2.2'], 4, 'node-1')]]);
    const right = makeAllocationTable(4, 'node-2', [...base.entries, ['demo/y', entry(['192.0.2.3'], 4, 'node-2')]]);
    const { table, reason } = mergeAllocationTables(left, right);
    expect([...table.entries].map(([k, e]) => [k, e.ips])).toEqual([
      ['demo/web', ['192.0.2.1']],
      ['demo/x', ['192.0.2.2']],
      ['demo/y', ['192.0.2.3']],
    ]);
    expect(table.version).toBe(4);
    expect(table.allocator).toBe('node-2');
    expect(reason.changed).toBe(true);
    expect(reason.conflicts).toEqual([]);
    expect(reason.sharedAddresses).toEqual([]);
  });

  it('one service given different addresses by two allocators: the higher stamp wins, reported as a conflict', () => {
    const left = makeAllocationTable(4, 'node-1', [['demo/x', entry(['192.0.2.2'], 4, 'node-1')]]);
    const right = makeAllocationTable(5, 'node-2', [['demo/x', entry(['192.0.2.3'], 5, 'node-2')]]);
    for (const [a, b] of [
      [left, right],
      [right, left],
    ] as const) {
      const { table, reason } = mergeAllocationTables(a, b);
      expect(table.entries.get('demo/x')?.ips).toEqual(['192.0.2.3']);
      expect(reason.conflicts).toEqual([{ service: 'demo/x', kept: right.entries.get('demo/x'), dropped: left.entries.get('demo/x') }]);
    }
    // Same version: the writer's name decides, the same way from either side.
    const tie = makeAllocationTable(4, 'node-2', [['demo/x', entry(['192.0.2.3'], 4, 'node-2')]]);
    expect(merge(left, tie).entries.get('demo/x')?.writer).toBe('node-2');
    expect(merge(tie, left).entries.get('demo/x')?.writer).toBe('node-2');
  });

  it('one address given to two services is kept on both entries and reported (the claim pass decides)', () => {
    const left = makeAllocationTable(4, 'node-1', [['demo/x', entry(['192.0.2.2'], 4, 'node-1')]]);
    const right = makeAllocationTable(4, 'node-2', [['demo/y', entry(['192.0.2.2'], 4, 'node-2')]]);
    const { table, reason } = mergeAllocationTables(left, right);
    expect(table.entries.size).toBe(2);
    expect(reason.sharedAddresses).toEqual([{ ip: '192.0.2.2', services: ['demo/x', 'demo/y'] }]);
  });

  it('a release beats the older live entry, so a stale table cannot bring a removed service back', () => {
    const released = makeAllocationTable(4, 'node-1', [['demo/web', entry(['192.0.2.1'], 4, 'node-1', { released: true })]]);
    expect(merge(base, released).entries.get('demo/web')?.released).toBe(true);
    expect(merge(released, base).entries.get('demo/web')?.released).toBe(true);
    expect(mergeAllocationTables(released, base).reason.changed).toBe(false);
  });

  it('merging an empty table (a fresh node) changes nothing', () => {
    expect(mergeAllocationTables(base, emptyAllocationTable()).reason.changed).toBe(false);
    expect(sameAllocationTable(merge(emptyAllocationTable(), base), base)).toBe(true);
  });
});

describe('released entries expire', () => {
  const removedAt = 50_000;
  const table = makeAllocationTable(4, 'node-1', [
    ['demo/gone', entry(['192.0.2.1'], 4, 'node-1', { released: true, at: removedAt })],
    ['demo/web', entry(['192.0.2.2'], 2, 'node-1', { at: 0 })],
  ]);

  it('after RELEASED_ENTRY_TTL_MS, without a new version; live entries never expire', () => {
    expect(expireReleasedEntries(table, removedAt + RELEASED_ENTRY_TTL_MS - 1)).toBe(table);
    const expired = expireReleasedEntries(table, removedAt + RELEASED_ENTRY_TTL_MS);
    expect([...expired.entries.keys()]).toEqual(['demo/web']);
    expect(expired.version).toBe(4);
  });

  it('a peer resending a tombstone this node dropped is not news', () => {
    const now = removedAt + RELEASED_ENTRY_TTL_MS;
    const local = expireReleasedEntries(table, now);
    const received = receiveAllocationTable(local, table, now);
    expect(received.changed).toBe(false);
    expect(sameAllocationTable(received.table, local)).toBe(true);
  });

  it('a newer table from a peer is news', () => {
    const newer = makeAllocationTable(5, 'node-2', [['demo/new', entry(['192.0.2.3'], 5, 'node-2')]]);
    const received = receiveAllocationTable(table, newer, removedAt);
    expect(received.changed).toBe(true);
    expect(received.table.entries.get('demo/new')?.ips).toEqual(['192.0.2.3']);
  });
});
