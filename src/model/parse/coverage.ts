/** Which pools an advertisement covers (internal/config/config.go setL2/BGPAdvertisementsToPools). */
import { selectorMatches } from '../label-selector';
import type { IPAddressPool, LabelSelector } from '../types';

export interface PoolReferences {
  readonly ipAddressPools: readonly string[];
  readonly ipAddressPoolSelectors: readonly LabelSelector[];
}

/** Both lists empty: every pool. Otherwise the named pools plus those any selector matches (unknown names drop). */
export function coveredPools<P extends IPAddressPool>(ad: PoolReferences, pools: readonly P[]): P[] {
  if (ad.ipAddressPools.length === 0 && ad.ipAddressPoolSelectors.length === 0) return [...pools];
  return pools.filter(
    (p) => ad.ipAddressPools.includes(p.meta.name) || ad.ipAddressPoolSelectors.some((s) => selectorMatches(s, p.meta.labels)),
  );
}
