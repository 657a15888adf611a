/**
 * Which advertisements apply to a service IP, and on which nodes (MetalLB internal/config/config.go
 * setL2AdvertisementsToPools / setBGPAdvertisementsToPools / selectedNodes, speaker l2AdsForService /
 * bgpAdsForService, checkBGPAdvConflicts).
 */
import type { BGPAdvertisement, IPAddressPool, L2Advertisement, LabelSelector, Labels, Node, Service } from '../model';
import { anySelectorMatches, localPrefsCollide, selectorMatches } from '../model';
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
function advertisementSelectsService(ad: { readonly serviceSelectors: readonly LabelSelector[] }, labels: Labels): boolean {
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
export function l2AdsForService(ads: readonly L2Advertisement[], pool: IPAddressPool, service: Service): L2Advertisement[] {
  return ads.filter((ad) => advertisementCoversPool(ad, pool) && advertisementSelectsService(ad, service.meta.labels));
}

/** BGPAdvertisements of the pool that match the service. */
export function bgpAdsForService(ads: readonly BGPAdvertisement[], pool: IPAddressPool, service: Service): BGPAdvertisement[] {
  return ads.filter((ad) => advertisementCoversPool(ad, pool) && advertisementSelectsService(ad, service.meta.labels));
}

/** MetalLB speaker/main.go poolFor: the pool holding every IP of the service (by name order for determinism). */
export function poolForIPs(pools: readonly IPAddressPool[], ips: readonly IP[]): IPAddressPool | undefined {
  if (ips.length === 0) return undefined;
  return pools.find((pool) => ips.every((ip) => pool.addressSet.has(ip)));
}

/**
 * internal/config/config.go BGPAdvertisementsHaveCompatibleLocalPref, as speaker/bgp_controller.go
 * checkBGPAdvConflicts uses it: both advertisements select the node, so their node sets always intersect and
 * only LOCAL_PREF, aggregation and peers can keep them apart. The parser refuses such pairs without
 * serviceSelectors whose nodes it can see overlap, so this is reached only for pairs it cannot judge.
 */
function bgpAdvertisementsConflict(a: BGPAdvertisement, b: BGPAdvertisement, pool: IPAddressPool): boolean {
  return localPrefsCollide(a, b, pool.cidrs);
}

/** The first conflicting pair among the advertisements that select one node, or undefined. */
export function findBGPConflict(
  ads: readonly BGPAdvertisement[],
  pool: IPAddressPool,
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
