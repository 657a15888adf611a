/**
 * Names other programs rely on: Kubernetes' well-known labels and conditions, and the Service annotations
 * MetalLB reads (MetalLB v0.14 internal/k8s/annotations; the documented annotations of its usage guide). MetalLB v0.16 still reads the old metallb.universe.tf/ prefix,
 * so a configuration written for any MetalLB release keeps working.
 */
import type { Node, Service } from './types';

/** Nodes carrying this label key (any value, even empty) never announce (kubeadm sets it on control planes). */
export const EXCLUDE_LB_LABEL = 'node.kubernetes.io/exclude-from-external-load-balancers';
/** The node condition that takes a node out of the election while True. */
export const NETWORK_UNAVAILABLE_CONDITION = 'NetworkUnavailable';

export const ANNOTATION_PREFIX = 'metallb.io/';
export const LEGACY_ANNOTATION_PREFIX = 'metallb.universe.tf/';

/** The annotation suffixes MetalLB reads (after the prefix). */
export const ServiceAnnotation = {
  loadBalancerIPs: 'loadBalancerIPs',
  addressPool: 'address-pool',
  allowSharedIP: 'allow-shared-ip',
  ipAllocatedFromPool: 'ip-allocated-from-pool',
} as const;
export type ServiceAnnotationName = (typeof ServiceAnnotation)[keyof typeof ServiceAnnotation];

/** mlb's own annotations (beyond MetalLB). */
export const MLB_HEALTH_CHECK_ANNOTATION = 'mlb.io/health-check';
/** On a v1 Service, beside mlb.io/health-check: how often to probe (a Go duration, "1s", "500ms"). */
export const MLB_HEALTH_CHECK_INTERVAL_ANNOTATION = 'mlb.io/health-check-interval';
/** How long one probe may take before it counts as failed (a Go duration, at most the interval). */
export const MLB_HEALTH_CHECK_TIMEOUT_ANNOTATION = 'mlb.io/health-check-timeout';
/** Consecutive passes that make a failing check pass again. */
export const MLB_HEALTH_CHECK_RISE_ANNOTATION = 'mlb.io/health-check-rise';
/** Consecutive failures that make a passing check fail. */
export const MLB_HEALTH_CHECK_FALL_ANNOTATION = 'mlb.io/health-check-fall';
/** On a v1 Node: comma-separated CIDRs the node is attached to (plain hosts publish theirs). */
export const MLB_SUBNETS_ANNOTATION = 'mlb.io/subnets';

/** The value of a MetalLB annotation, preferring metallb.io/ over the legacy prefix, as MetalLB does. */
export function serviceAnnotation(service: Service, name: ServiceAnnotationName): string | undefined {
  const annotations = service.meta.annotations;
  return annotations[ANNOTATION_PREFIX + name] ?? annotations[LEGACY_ANNOTATION_PREFIX + name];
}

export const DEFAULT_METALLB_NAMESPACE = 'metallb-system';

/**
 * Labels the kubelet puts on every Node (Kubernetes' well-known labels, kubelet_node_status.go), so MetalLB's
 * documented nodeSelectors (`kubernetes.io/hostname: node-1`) select plain hosts too. mlb plays the kubelet
 * there: the hostname label carries the node name (mlb's identity for the host, as the kubelet's
 * --hostname-override makes it), and every mlb host runs Linux.
 */
const HOSTNAME_LABEL = 'kubernetes.io/hostname';
const OS_LABEL = 'kubernetes.io/os';
/** The only operating system mlb runs on (AF_PACKET, netlink). */
const PLAIN_HOST_OS = 'linux';

/** A node's labels with the kubelet's defaults under them: labels written by the user win. */
export function withKubeletLabels(nodeName: string, labels: Readonly<Record<string, string>>): Record<string, string> {
  return { [HOSTNAME_LABEL]: nodeName, [OS_LABEL]: PLAIN_HOST_OS, ...labels };
}

/** A Node known only by its name (a live member no Node document describes, or one named on the command line). */
export function nodeKnownByName(name: string): Node {
  return {
    kind: 'Node',
    meta: { name, namespace: '', labels: withKubeletLabels(name, {}), annotations: {} },
    conditions: [],
    addresses: [],
    subnets: [],
  };
}
