import type { IP, IPFamily } from '../ip';
import { PersistentMap, compareBigints } from './persistent-map';

/**
 * The addresses that have at least one user, per family, as merged runs (start -> end, inclusive) in a
 * persistent map. "First free address at or after X" is then one floor lookup, so a full /16 or a busy /64 is
 * searched in O(log n) instead of address by address.
 *
 * MetalLB walks the CIDR with an ipaddr cursor and tests every address (getIPFromCIDR in
 * internal/allocator/allocator.go); the first address it accepts is the same one this finds, because an
 * address without users always passes its checkSharing.
 */
export class UsedAddresses {
  private constructor(
    private readonly v4: PersistentMap<bigint, bigint>,
    private readonly v6: PersistentMap<bigint, bigint>,
  ) {}

  static readonly empty = new UsedAddresses(
    PersistentMap.empty<bigint, bigint>(compareBigints),
    PersistentMap.empty<bigint, bigint>(compareBigints),
  );

  private runs(family: IPFamily): PersistentMap<bigint, bigint> {
    return family === 4 ? this.v4 : this.v6;
  }

  private withRuns(family: IPFamily, runs: PersistentMap<bigint, bigint>): UsedAddresses {
    return family === 4 ? new UsedAddresses(runs, this.v6) : new UsedAddresses(this.v4, runs);
  }

  has(ip: IP): boolean {
    const run = this.runs(ip.family).floor(ip.value);
    return run !== undefined && ip.value <= run[1];
  }

  /** Marks ip as used; merges it with the runs just before and after it. */
  add(ip: IP): UsedAddresses {
    if (this.has(ip)) return this;
    let runs = this.runs(ip.family);
    const v = ip.value;
    let start = v;
    let end = v;
    const before = runs.floor(v);
    if (before !== undefined && before[1] + 1n === v) {
      start = before[0];
      runs = runs.delete(before[0]);
    }
    const after = runs.ceiling(v + 1n);
    if (after !== undefined && after[0] === v + 1n) {
      end = after[1];
      runs = runs.delete(after[0]);
    }
    return this.withRuns(ip.family, runs.set(start, end));
  }

  /** Marks ip as free; splits the run holding it. */
  remove(ip: IP): UsedAddresses {
    let runs = this.runs(ip.family);
    const v = ip.value;
    const run = runs.floor(v);
    if (run === undefined || v > run[1]) return this;
    const [start, end] = run;
    runs = runs.delete(start);
    if (start < v) runs = runs.set(start, v - 1n);
    if (v < end) runs = runs.set(v + 1n, end);
    return this.withRuns(ip.family, runs);
  }

  /** The first address >= value that has no user (may lie past the end of the caller's range). */
  firstFreeAtOrAfter(family: IPFamily, value: bigint): bigint {
    const run = this.runs(family).floor(value);
    if (run !== undefined && value <= run[1]) return run[1] + 1n;
    return value;
  }
}
