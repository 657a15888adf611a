/**
 * A Snapshot that crossed a thread boundary: structured clone (worker_threads' postMessage) keeps plain data,
 * bigints included, but drops class prototypes and the frozen flag. The one class instance in a Snapshot is each
 * pool's AddressSet, rebuilt here from the pool's CIDRs exactly as the parser built it; then the whole is frozen
 * again, so a Snapshot from another thread behaves like one parsed in this one.
 */
import { AddressSet } from '../../ip';
import type { Snapshot } from '../snapshot';
import type { IPAddressPool } from '../types';
import { deepFreeze } from './build-snapshot';

export function snapshotFromClone(clone: Snapshot): Snapshot {
  const pools: IPAddressPool[] = clone.pools.map((pool) => ({ ...pool, addressSet: AddressSet.fromCIDRs(pool.cidrs) }));
  return deepFreeze({ ...clone, pools });
}
