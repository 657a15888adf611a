/**
 * Per-node eligibility, in the order MetalLB checks it, returning a ReasonCode (0 = eligible).
 *
 * The work is split in two so the index can share it: the static part depends on the node and the
 * advertisements only (shared by every service with the same pool and matching advertisements); the dynamic
 * part adds the service's endpoints and the node's liveness.
 */
import type { BGPAdvertisement, IPAddressPool, L2Advertisement, Node } from '../model';
import { EXCLUDE_LB_LABEL, NETWORK_UNAVAILABLE_CONDITION } from '../model';
import { advertisementSelectsNode, findBGPConflict } from './advertisement-match';
import type { ElectionOptions, ServiceEndpoints } from './election-input';
import { ReasonCode, type ReasonCodeValue } from './reasons';

/** internal/k8s/nodes/nodes.go IsNetworkUnavailable: the condition's status is exactly "True". */
function isNetworkUnavailable(node: Node): boolean {
  return node.conditions.some((c) => c.type === NETWORK_UNAVAILABLE_CONDITION && c.status === 'True');
}

/**
 * internal/k8s/nodes/nodes.go IsNodeExcludedFromBalancers: the key's presence, whatever its value. kubeadm sets
 * it with an empty value on control planes, which `kubectl get -L` shows as blank (seen on a MetalLB v0.16
 * cluster: the control planes looked unlabelled yet never announced; `kubectl get -l <key>` finds them).
 */
function isExcludedFromBalancers(node: Node): boolean {
  return Object.prototype.hasOwnProperty.call(node.meta.labels, EXCLUDE_LB_LABEL);
}

/** Node-level filters shared by both protocols (after advertisement matching, as in MetalLB). */
function nodeFactsReason(node: Node, options: ElectionOptions | undefined): ReasonCodeValue {
  if (isNetworkUnavailable(node)) return ReasonCode.nodeNetworkUnavailable;
  if (options?.ignoreExcludeLB !== true && isExcludedFromBalancers(node)) return ReasonCode.nodeLabeledExcludeBalancers;
  return ReasonCode.eligible;
}

/**
 * L2, the parts independent of endpoints and liveness (speaker/layer2_controller.go adsMatchNodeL2 and
 * speakersForAds). `serviceAds` are the pool's L2Advertisements that match the service.
 */
export function l2StaticReason(
  node: Node | undefined,
  serviceAds: readonly L2Advertisement[],
  options: ElectionOptions | undefined,
): ReasonCodeValue {
  if (!node) return ReasonCode.unknownNode;
  if (!serviceAds.some((ad) => advertisementSelectsNode(ad, node))) return ReasonCode.noMatchingAdvertisement;
  return nodeFactsReason(node, options);
}

/**
 * BGP, the parts independent of endpoints and liveness (speaker/bgp_controller.go ShouldAnnounce, first half):
 * no advertisement of the pool selects the node -> notOwner; none that also matches the service ->
 * noMatchingAdvertisement; conflicting LOCAL_PREF -> conflictingAdvertisements; then the node facts.
 */
export function bgpStaticReason(
  node: Node | undefined,
  poolAds: readonly BGPAdvertisement[],
  serviceAds: readonly BGPAdvertisement[],
  pool: IPAddressPool,
  options: ElectionOptions | undefined,
): ReasonCodeValue {
  if (!node) return ReasonCode.unknownNode;
  if (!poolAds.some((ad) => advertisementSelectsNode(ad, node))) return ReasonCode.notOwner;
  const mine = serviceAds.filter((ad) => advertisementSelectsNode(ad, node));
  if (mine.length === 0) return ReasonCode.noMatchingAdvertisement;
  if (findBGPConflict(mine, pool)) return ReasonCode.conflictingAdvertisements;
  return nodeFactsReason(node, options);
}

/** The per-service facts the dynamic part reads (an ElectionUnit has them). */
export interface EndpointFacts {
  readonly anyEndpoint: boolean;
  readonly localPolicy: boolean;
  readonly endpoints: ServiceEndpoints;
}

/** ETP Local: a node without a serving endpoint of its own must not attract the traffic. */
function lacksLocalEndpoint(f: EndpointFacts, node: string): boolean {
  return f.localPolicy && !f.endpoints.servingNodes.has(node);
}

/**
 * L2 order: no endpoint anywhere first (MetalLB returns before looking at nodes), then the static filters, then
 * ETP Local, then liveness last, so a down node that would otherwise be a candidate says exactly that.
 * Allocation-free: the index calls this in its inner loops.
 */
export function finishL2Reason(staticCode: ReasonCodeValue, f: EndpointFacts, node: string, live: boolean): ReasonCodeValue {
  if (f.endpoints.healthChecked) return finishHealthChecked(staticCode, f, node, live);
  if (!f.anyEndpoint) return ReasonCode.noEndpoints;
  if (staticCode !== ReasonCode.eligible) return staticCode;
  if (f.endpoints.notConfiguredOn?.has(node)) return ReasonCode.serviceNotConfigured;
  if (lacksLocalEndpoint(f, node)) return ReasonCode.noLocalEndpoints;
  if (!live) return ReasonCode.notLiveMember;
  return ReasonCode.eligible;
}

/** BGP order: MetalLB checks endpoints after the node (noLocalEndpoints, then noEndpoints); liveness last. */
export function finishBGPReason(staticCode: ReasonCodeValue, f: EndpointFacts, node: string, live: boolean): ReasonCodeValue {
  if (f.endpoints.healthChecked) return finishHealthChecked(staticCode, f, node, live);
  if (staticCode !== ReasonCode.eligible) return staticCode;
  if (f.endpoints.notConfiguredOn?.has(node)) return ReasonCode.serviceNotConfigured;
  if (lacksLocalEndpoint(f, node)) return ReasonCode.noLocalEndpoints;
  if (!f.anyEndpoint) return ReasonCode.noEndpoints;
  if (!live) return ReasonCode.notLiveMember;
  return ReasonCode.eligible;
}

/**
 * mlb file mode, a service with a health check (both protocols): the node filters, then liveness (a dead node's
 * last report is stale, so "not live" is the truer reason), then the node's own check. Each node gets its own
 * reason even when every check fails, so "nobody announces" names every node's failing check.
 */
function finishHealthChecked(staticCode: ReasonCodeValue, f: EndpointFacts, node: string, live: boolean): ReasonCodeValue {
  if (staticCode !== ReasonCode.eligible) return staticCode;
  if (f.endpoints.notConfiguredOn?.has(node)) return ReasonCode.serviceNotConfigured;
  if (!live) return ReasonCode.notLiveMember;
  if (!f.endpoints.servingNodes.has(node)) return ReasonCode.healthCheckFailing;
  return ReasonCode.eligible;
}
