/**
 * What the election reads. Everything is plain data: the daemon builds it from a model Snapshot, endpoint
 * information (Kubernetes EndpointSlices or mlb's health checks) and the gossip layer's live members.
 */
import type { BGPAdvertisement, BGPPeer, IPAddressPool, L2Advertisement, Node, Service } from '../model';
import type { IP } from '../ip';

export type ElectionProtocol = 'layer2' | 'bgp';

export interface ElectionOptions {
  /**
   * MetalLB's speaker --ignore-exclude-lb: do not drop nodes labelled
   * node.kubernetes.io/exclude-from-external-load-balancers. Default false.
   */
  readonly ignoreExcludeLB?: boolean;
}

/** The configuration side of the election: objects that change on a reload, not on a membership change. */
export interface ElectionConfig {
  /** Node objects (in Kubernetes from the API, on plain hosts from gossip meta). Only these can announce. */
  readonly nodes: readonly Node[];
  readonly pools: readonly IPAddressPool[];
  readonly l2Advertisements: readonly L2Advertisement[];
  readonly bgpAdvertisements: readonly BGPAdvertisement[];
  readonly bgpPeers: readonly BGPPeer[];
  readonly options?: ElectionOptions;
  /**
   * mlb-only inputs, set by the daemon only while every live member speaks mlb (docs/architecture.md,
   * "Compatibility first"); absent, the election is exactly MetalLB's.
   */
  readonly mlb?: MlbNodeStates;
}

/**
 * Nodes that should hand their IPs to others. They are not excluded outright: a draining or warming-up node is
 * still elected when no steadier node is eligible, because an IP held by a node that wants to leave is better
 * than an IP nobody answers (preference tiers, see deferral.ts).
 */
export interface MlbNodeStates {
  readonly draining: ReadonlySet<string>;
  readonly warmingUp: ReadonlySet<string>;
}

/**
 * Where a service can be served. MetalLB counts an endpoint when it is ready or serving (EndpointSlice
 * conditions: epslices.EndpointCanServe); mlb on plain hosts counts a node whose health check passes.
 */
export interface ServiceEndpoints {
  /** Nodes with at least one serving endpoint of the service. */
  readonly servingNodes: ReadonlySet<string>;
  /**
   * Serving endpoints without a node name exist: they count for "any endpoint anywhere" (L2 step 1, BGP
   * noEndpoints) but never as a local endpoint.
   */
  readonly servingWithoutNode?: boolean;
  /**
   * mlb (file mode): the service has a health check. On a plain host nothing forwards traffic between nodes, so
   * only a node whose own check passes may hold the IP, whatever the externalTrafficPolicy; servingNodes are the
   * nodes whose latest report passes.
   */
  readonly healthChecked?: boolean;
  /**
   * mlb (file mode): live nodes whose own configuration lacks the service (and retains no earlier definition):
   * they could not announce it, so they are not candidates (reason serviceNotConfigured).
   */
  readonly notConfiguredOn?: ReadonlySet<string>;
}

/** One service to elect for. */
export interface ServiceElectionInput {
  readonly service: Service;
  /** Default service.ingressIPs. Order matters: the first IP is the one hashed (dual stack shares one winner). */
  readonly ips?: readonly IP[];
  readonly endpoints: ServiceEndpoints;
  /**
   * The pool the IPs came from. Undefined: the pool containing all of them (MetalLB speaker/main.go poolFor);
   * null: none (every node says ipNotAllowed).
   */
  readonly pool?: IPAddressPool | null;
}

/**
 * Live memberlist members by node name. Undefined means memberlist is disabled: MetalLB then treats every
 * Node as having a live speaker (internal/speakerlist UsableSpeakers, Disabled).
 */
export type LiveMembers = ReadonlySet<string> | undefined;

export type MembershipChange = { readonly kind: 'join'; readonly node: string } | { readonly kind: 'leave'; readonly node: string };

export function hasAnyServingEndpoint(endpoints: ServiceEndpoints): boolean {
  return endpoints.servingNodes.size > 0 || endpoints.servingWithoutNode === true;
}
