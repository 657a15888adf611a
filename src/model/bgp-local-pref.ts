/**
 * When two BGPAdvertisements of one pool would send one router two different LOCAL_PREFs for the same prefix
 * (MetalLB v0.16.1 internal/config/config.go BGPAdvertisementsHaveCompatibleLocalPref and isAggrLengthDifferent).
 * The configuration parser refuses such a pair when their nodes overlap; the election keeps the same test for
 * the pairs the parser cannot see (serviceSelectors, node labels only known at run time). Pure.
 */
import type { CIDR } from '../ip';
import type { BGPAdvertisement } from './types';

/** An unset localPref is Go's zero uint32, which MetalLB compares like any other value. */
export const DEFAULT_LOCAL_PREF = 0;

type LocalPrefFields = Pick<BGPAdvertisement, 'localPref' | 'aggregationLength' | 'aggregationLengthV6' | 'peers'>;

function poolFamilies(cidrs: readonly CIDR[]): { v4: boolean; v6: boolean } {
  let v4 = false;
  let v6 = false;
  for (const cidr of cidrs) {
    if (cidr.ip.family === 4) v4 = true;
    else v6 = true;
  }
  return { v4, v6 };
}

/**
 * isAggrLengthDifferent: two advertisements make different updates (different prefixes) when their aggregation
 * lengths differ for every family the pool holds; a pool without addresses never collides.
 */
function aggregationLengthsDiffer(a: LocalPrefFields, b: LocalPrefFields, poolCIDRs: readonly CIDR[]): boolean {
  const { v4, v6 } = poolFamilies(poolCIDRs);
  if (!v4 && !v6) return true;
  const v4Differs = a.aggregationLength !== b.aggregationLength;
  const v6Differs = a.aggregationLengthV6 !== b.aggregationLengthV6;
  if (v4Differs && !v6) return true;
  if (v6Differs && !v4) return true;
  return v4Differs && v6Differs;
}

/** The peers both advertisements send to: an empty list means every peer. Empty result: no shared peer. */
export function sharedPeers(a: LocalPrefFields, b: LocalPrefFields): 'every' | readonly string[] {
  if (a.peers.length === 0 && b.peers.length === 0) return 'every';
  if (a.peers.length === 0) return b.peers;
  if (b.peers.length === 0) return a.peers;
  return a.peers.filter((p) => b.peers.includes(p));
}

/**
 * BGPAdvertisementsHaveCompatibleLocalPref without its node test: different LOCAL_PREFs for the same prefixes
 * to at least one common peer. The caller decides whether the two select a common node.
 */
export function localPrefsCollide(a: LocalPrefFields, b: LocalPrefFields, poolCIDRs: readonly CIDR[]): boolean {
  if ((a.localPref ?? DEFAULT_LOCAL_PREF) === (b.localPref ?? DEFAULT_LOCAL_PREF)) return false;
  if (aggregationLengthsDiffer(a, b, poolCIDRs)) return false;
  const peers = sharedPeers(a, b);
  return peers === 'every' || peers.length > 0;
}
