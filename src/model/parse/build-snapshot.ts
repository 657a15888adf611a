/** Turns checked objects into the frozen, sorted Snapshot every consumer iterates the same way. */
import type { Diagnostic } from '../diagnostic';
import type { Snapshot } from '../snapshot';
import type { AnyObject } from '../types';
import type { ParsedObjects } from './parsed-objects';
import type { BGPAdvertisement } from '../types';

function byNamespaceThenName(a: AnyObject, b: AnyObject): number {
  const ns = a.meta.namespace < b.meta.namespace ? -1 : a.meta.namespace > b.meta.namespace ? 1 : 0;
  return ns !== 0 ? ns : a.meta.name < b.meta.name ? -1 : a.meta.name > b.meta.name ? 1 : 0;
}

function sorted<T extends AnyObject>(objects: readonly T[]): readonly T[] {
  return deepFreeze([...objects].sort(byNamespaceThenName));
}

/** Freezes plain data all the way down (AddressSet instances included: nothing in them mutates). */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value as object)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}

export function buildSnapshot(
  parsed: ParsedObjects,
  bgpAdvertisements: readonly BGPAdvertisement[],
  warnings: readonly Diagnostic[],
): Snapshot {
  return deepFreeze({
    pools: sorted(parsed.pools.map((p) => p.object)),
    l2Advertisements: sorted(parsed.l2Advertisements.map((p) => p.object)),
    bgpAdvertisements: sorted(bgpAdvertisements),
    bgpPeers: sorted(parsed.bgpPeers.map((p) => p.object)),
    bfdProfiles: sorted(parsed.bfdProfiles.map((p) => p.object)),
    communities: sorted(parsed.communities.map((p) => p.object)),
    services: sorted(parsed.services.map((p) => p.object)),
    nodes: sorted(parsed.nodes.map((p) => p.object)),
    warnings: [...warnings],
  });
}
