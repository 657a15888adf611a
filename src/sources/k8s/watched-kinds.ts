/**
 * The resources the speaker's Kubernetes source watches, as MetalLB's speaker does (speaker/main.go and
 * internal/k8s: the namespaced metallb.io resources and the Secrets of its own namespace, Services,
 * EndpointSlices and Nodes of the whole cluster), with the API path each is listed and watched at and the kind
 * and apiVersion its objects are read as (items of a list carry neither, so they are filled in here). Pure.
 */

const METALLB_GROUP_VERSION = 'metallb.io/v1beta1';
/** MetalLB serves BGPPeer in v1beta2 (v1beta1 is converted by its webhook); mlb reads both. */
const METALLB_BGPPEER_VERSION = 'metallb.io/v1beta2';

export type WatchedKindName =
  | 'ipaddresspools'
  | 'l2advertisements'
  | 'bgpadvertisements'
  | 'bgppeers'
  | 'bfdprofiles'
  | 'communities'
  | 'services'
  | 'nodes'
  | 'endpointslices'
  | 'secrets';

export interface WatchedKind {
  /** The resource's plural name, as in its path. */
  readonly name: WatchedKindName;
  readonly kind: string;
  readonly apiVersion: string;
  /** True: only the objects of the MetalLB namespace (the metallb.io resources); false: the whole cluster. */
  readonly inMetalLBNamespace: boolean;
}

function metallb(name: WatchedKindName, kind: string, apiVersion = METALLB_GROUP_VERSION): WatchedKind {
  return { name, kind, apiVersion, inMetalLBNamespace: true };
}

export const WATCHED_KINDS: readonly WatchedKind[] = [
  metallb('ipaddresspools', 'IPAddressPool'),
  metallb('l2advertisements', 'L2Advertisement'),
  metallb('bgpadvertisements', 'BGPAdvertisement'),
  metallb('bgppeers', 'BGPPeer', METALLB_BGPPEER_VERSION),
  metallb('bfdprofiles', 'BFDProfile'),
  metallb('communities', 'Community'),
  { name: 'services', kind: 'Service', apiVersion: 'v1', inMetalLBNamespace: false },
  { name: 'nodes', kind: 'Node', apiVersion: 'v1', inMetalLBNamespace: false },
  { name: 'endpointslices', kind: 'EndpointSlice', apiVersion: 'discovery.k8s.io/v1', inMetalLBNamespace: false },
  // BGPPeer passwordSecret names a Secret of the MetalLB namespace (MetalLB's config reconciler reads them there).
  { name: 'secrets', kind: 'Secret', apiVersion: 'v1', inMetalLBNamespace: true },
];

/** The collection path of a kind: "/apis/metallb.io/v1beta1/namespaces/metallb-system/ipaddresspools", "/api/v1/nodes". */
export function kindPath(kind: WatchedKind, namespace: string): string {
  const base = kind.apiVersion === 'v1' ? '/api/v1' : `/apis/${kind.apiVersion}`;
  return kind.inMetalLBNamespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${kind.name}` : `${base}/${kind.name}`;
}
