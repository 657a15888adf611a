import type { BFDProfile, BGPAdvertisement, BGPPeer, Community, IPAddressPool, L2Advertisement, Node, Service } from './types';
import type { Diagnostic } from './diagnostic';

/**
 * Everything one configuration says, validated and frozen. Each list is sorted by namespace then name, so two
 * Snapshots of the same input are equal and every consumer iterates in the same order.
 */
export interface Snapshot {
  readonly pools: readonly IPAddressPool[];
  readonly l2Advertisements: readonly L2Advertisement[];
  readonly bgpAdvertisements: readonly BGPAdvertisement[];
  readonly bgpPeers: readonly BGPPeer[];
  readonly bfdProfiles: readonly BFDProfile[];
  readonly communities: readonly Community[];
  readonly services: readonly Service[];
  readonly nodes: readonly Node[];
  /** Problems that do not stop the configuration from running (a pool nobody advertises, ...). */
  readonly warnings: readonly Diagnostic[];
}

/** The lists of objects a Snapshot holds, one per kind, in the one order every consumer walks them. */
export const SNAPSHOT_LISTS = [
  'pools',
  'l2Advertisements',
  'bgpAdvertisements',
  'bgpPeers',
  'bfdProfiles',
  'communities',
  'services',
  'nodes',
] as const satisfies readonly (keyof Snapshot)[];
export type SnapshotList = (typeof SNAPSHOT_LISTS)[number];

/** "namespace/name", the key MetalLB uses for services in its messages. */
export function serviceKey(service: Service): string {
  return `${service.meta.namespace}/${service.meta.name}`;
}
