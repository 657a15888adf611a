// fast-check generators for allocation tables: small key, address and writer sets, so random tables collide
// on services, addresses and stamps as often as partitions would make them.
import fc from 'fast-check';
import { type AllocationEntry, type AllocationTable, makeAllocationTable } from '../../../src/daemon/allocation';

export const KEYS = ['demo/a', 'demo/b', 'demo/c', 'other/d', 'other/e'];
export const IP_TEXTS = ['192.0.2.1', '192.0.2.2', '192.0.2.3', '2001:db8::1', '2001:db8::a:0:1'];
export const WRITERS = ['node-1', 'node-2', 'node-3'];

export const entryArb: fc.Arbitrary<AllocationEntry> = fc
  .record({
    ips: fc.subarray(IP_TEXTS, { minLength: 1, maxLength: 2 }),
    version: fc.integer({ min: 1, max: 6 }),
    writer: fc.constantFrom(...WRITERS),
    at: fc.integer({ min: 0, max: 3 }),
    released: fc.boolean(),
    // Restored from a file (restore-allocations.ts): a lower tier whose versions may run far ahead of the table's.
    restored: fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, { arbitrary: fc.constant(true), weight: 1 }),
  })
  .map(({ restored, ...e }): AllocationEntry => (restored ? { ...e, version: e.version * 100, restored: true } : e));

export const tableArb: fc.Arbitrary<AllocationTable> = fc
  .record({
    version: fc.integer({ min: 0, max: 6 }),
    allocator: fc.constantFrom('', ...WRITERS),
    entries: fc.dictionary(fc.constantFrom(...KEYS), entryArb, { maxKeys: KEYS.length }),
  })
  .map(({ version, allocator, entries }) => makeAllocationTable(version, allocator, Object.entries(entries)));

export function entry(ips: string[], version: number, writer: string, extra: Partial<AllocationEntry> = {}): AllocationEntry {
  return { ips, version, writer, at: 1_000, released: false, ...extra };
}
