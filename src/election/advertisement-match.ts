/**
 * Which advertisements apply to a service IP, and on which nodes (MetalLB internal/config/config.go
 * setL2AdvertisementsToPools / setBGPAdvertisementsToPools / selectedNodes, speaker l2AdsForService /
 * bgpAdsForService, checkBGPAdvConflicts).
 */
import type {
  BGPAdvertisement, IPAddressPool, L2Advertisement, LabelSelector, Labels, Node, Service,
} from '../model';
import { anySelectorMatches, selectorMatches } from '../model';
import type { IP } from '../ip';

interface PoolSelecting {
  readonly ipAddressPools: readonly string[];
  readonly ipAddressPoolSelectors: readonly LabelSelector[];
}

/**
 * An advertisement covers a pool when it names it, when a pool selector matches the pool's labels, or when it
 * names no pool at all (both lists empty = every pool). Unknown names are silently ignored, as in MetalLB.
 */
export function advertisementCoversPool(ad: PoolSelecting, pool: IPAddressPool): boolean {
  if (ad.ipAddressPools.length === 0 && ad.ipAddressPoolSelectors.length === 0) return true;
  if (ad.ipAddressPools.includes(pool.meta.name)) return true;
  return ad.ipAddressPoolSelectors.some((s) => selectorMatches(s, pool.meta.labels));
}

/** serviceSelectors: empty selects every service, otherwise any selector matching the service labels. */
export function advertisementSelectsService(ad: { readonly serviceSelectors: readonly LabelSelector[] }, labels: Labels): boolean {
  return anySelectorMatches(ad.serviceSelectors, labels);
}

/**
 * nodeSelectors: MetalLB resolves them into a set of Node names when it reads the configuration, so only nodes
 * with a Node object can be selected (empty selectors = every Node).
 */
export function advertisementSelectsNode(ad: { readonly nodeSelectors: readonly LabelSelector[] }, node: Node): boolean {
  return anySelectorMatches(ad.nodeSelectors, node.meta.labels);
}

/** L2Advertisements of the pool that match the service (node selection is applied per node). */
export function l2AdsForService(
  ads: readonly L2Advertisement[], pool: IPAddressPool, service: Service,
): L2Advertisement[] {
  return ads.filter((ad) => advertisementCoversPool(ad, pool) && advertisementSelectsService(ad, service.meta.labels));
}

/** BGPAdvertisements of the pool that match the service. */
export function bgpAdsForService(
  ads: readonly BGPAdvertisement[], pool: IPAddressPool, service: Service,
): BGPAdvertisement[] {
  return ads.filter((ad) => advertisementCoversPool(ad, pool) && advertisementSelectsService(ad, service.meta.labels));
}

/** MetalLB speaker/main.go poolFor: the pool holding every IP of the service (by name order for determinism). */
export function poolForIPs(pools: readonly IPAddressPool[], ips: readonly IP[]): IPAddressPool | undefined {
  if (ips.length === 0) return undefined;
  return pools.find((pool) => ips.every((ip) => pool.addressSet.has(ip)));
}

/** MetalLB's default LOCAL_PREF: an unset uint32 is 0. */
const DEFAULT_LOCAL_PREF = 0;

function poolFamilies(pool: IPAddressPool): { v4: boolean; v6: boolean } {
  let v4 = false;
  let v6 = false;
  for (const cidr of pool.cidrs) {
    if (cidr.ip.family === 4) v4 = true;
    else v6 = true;
  }
  return { v4, v6 };
}

/**
 * internal/config/config.go isAggrLengthDifferent: two advertisements make different updates when their
 * aggregation lengths differ for every family the pool holds.
 */
function aggregationLengthsDiffer(a: BGPAdvertisement, b: BGPAdvertisement, pool: IPAddressPool): boolean {
  const { v4, v6 } = poolFamilies(pool);
  if (!v4 && !v6) return true;
  const v4Differs = a.aggregationLength !== b.aggregationLength;
  const v6Differs = a.aggregationLengthV6 !== b.aggregationLengthV6;
  if (v4Differs && !v6) return true;
  if (v6Differs && !v4) return true;
  return v4Differs && v6Differs;
}

/**
 * internal/config/config.go BGPAdvertisementsHaveCompatibleLocalPref, as speaker/bgp_controller.go
 * checkBGPAdvConflicts uses it: both advertisements select the node, so their node sets always intersect and
 * only LOCAL_PREF, aggregation and peers can keep them apart.
 */
export function bgpAdvertisementsConflict(a: BGPAdvertisement, b: BGPAdvertisement, pool: IPAddressPool): boolean {
  if ((a.localPref ?? DEFAULT_LOCAL_PREF) === (b.localPref ?? DEFAULT_LOCAL_PREF)) return false;
  if (aggregationLengthsDiffer(a, b, pool)) return false;
  if (a.peers.length > 0 && b.peers.length > 0 && !a.peers.some((p) => b.peers.includes(p))) return false;
  return true;
}

/** The first conflicting pair among the advertisements that select one node, or undefined. */
export function findBGPConflict(
  ads: readonly BGPAdvertisement[], pool: IPAddressPool,
): readonly [BGPAdvertisement, BGPAdvertisement] | undefined {
  for (let i = 0; i < ads.length; i++) {
    for (let j = i + 1; j < ads.length; j++) {
      const a = ads[i] as BGPAdvertisement;
      const b = ads[j] as BGPAdvertisement;
      if (bgpAdvertisementsConflict(a, b, pool)) return [a, b];
    }
  }
  return undefined;
}
