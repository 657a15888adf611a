import { type IP, type IPFamily, compareIP } from './ip-address';
import { type CIDR, cidrFirst, cidrLast } from './cidr';

/** An inclusive run of addresses of one family. */
export interface IPInterval {
  readonly family: IPFamily;
  readonly first: bigint;
  readonly last: bigint;
}

/**
 * An immutable set of addresses held as sorted, merged intervals, so a /64 costs one entry. Used for pool
 * membership ("is this IP allowed?"), overlap checks and usage counting.
 */
export class AddressSet {
  private constructor(private readonly intervals: readonly IPInterval[]) {}

  static readonly empty = new AddressSet([]);

  static fromCIDRs(cidrs: Iterable<CIDR>): AddressSet {
    const intervals: IPInterval[] = [];
    for (const c of cidrs) {
      intervals.push({ family: c.ip.family, first: cidrFirst(c).value, last: cidrLast(c).value });
    }
    return new AddressSet(mergeIntervals(intervals));
  }

  static fromIPs(ips: Iterable<IP>): AddressSet {
    const intervals: IPInterval[] = [];
    for (const ip of ips) intervals.push({ family: ip.family, first: ip.value, last: ip.value });
    return new AddressSet(mergeIntervals(intervals));
  }

  union(other: AddressSet): AddressSet {
    return new AddressSet(mergeIntervals([...this.intervals, ...other.intervals]));
  }

  has(ip: IP): boolean {
    // Binary search: intervals are sorted by (family, first) and disjoint.
    let lo = 0;
    let hi = this.intervals.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const iv = this.intervals[mid] as IPInterval;
      const c = compareIP(ip, { family: iv.family, value: iv.first });
      if (c < 0) hi = mid - 1;
      else if (ip.family === iv.family && ip.value <= iv.last) return true;
      else lo = mid + 1;
    }
    return false;
  }

  overlaps(other: AddressSet): boolean {
    let i = 0;
    let j = 0;
    while (i < this.intervals.length && j < other.intervals.length) {
      const a = this.intervals[i] as IPInterval;
      const b = other.intervals[j] as IPInterval;
      if (a.family !== b.family) {
        if (a.family < b.family) i++;
        else j++;
        continue;
      }
      if (a.last < b.first) i++;
      else if (b.last < a.first) j++;
      else return true;
    }
    return false;
  }

  /** Number of addresses of a family in the set. */
  size(family: IPFamily): bigint {
    let n = 0n;
    for (const iv of this.intervals) if (iv.family === family) n += iv.last - iv.first + 1n;
    return n;
  }

  get isEmpty(): boolean {
    return this.intervals.length === 0;
  }

  toIntervals(): readonly IPInterval[] {
    return this.intervals;
  }
}

function mergeIntervals(input: IPInterval[]): IPInterval[] {
  const sorted = [...input].sort((a, b) =>
    a.family !== b.family ? a.family - b.family : a.first < b.first ? -1 : a.first > b.first ? 1 : 0,
  );
  const out: IPInterval[] = [];
  for (const iv of sorted) {
    const prev = out[out.length - 1];
    if (prev && prev.family === iv.family && iv.first <= prev.last + 1n) {
      if (iv.last > prev.last) out[out.length - 1] = { ...prev, last: iv.last };
    } else {
      out.push(iv);
    }
  }
  return out;
}
