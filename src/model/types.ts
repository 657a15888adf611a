/**
 * The object model: MetalLB's metallb.io objects plus the v1 Service and Node fields mlb reads, after
 * validation (defaults applied, addresses parsed). Field meanings follow MetalLB v0.16.1's api/ types and
 * its configuration documentation; every object is immutable once inside a Snapshot.
 */
import type { AddressSet, CIDR, IP } from '../ip';

/** Where an object or a field was written: 1-based line and column, as editors count. */
export interface SourcePosition {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

export type Labels = Readonly<Record<string, string>>;

export interface ObjectMeta {
  readonly name: string;
  /** Empty for cluster-scoped objects (Node); MetalLB objects default to "metallb-system". */
  readonly namespace: string;
  readonly labels: Labels;
  readonly annotations: Labels;
  /** Where the object starts (its "kind:" document), when it came from a file. */
  readonly position?: SourcePosition;
}

/** Kubernetes metav1.LabelSelector. An empty selector (no labels, no expressions) selects everything. */
export interface LabelSelector {
  readonly matchLabels: Labels;
  readonly matchExpressions: readonly LabelSelectorRequirement[];
}

export type SelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  readonly values: readonly string[];
}

// ---------------------------------------------------------------------------------------------- metallb.io

/** IPAddressPool (metallb.io/v1beta1). */
export interface IPAddressPool {
  readonly kind: 'IPAddressPool';
  readonly meta: ObjectMeta;
  /** spec.addresses as written, one entry per CIDR or range. */
  readonly addresses: readonly string[];
  /** The covering CIDRs in the order MetalLB allocates from: entries in order, ranges split in address order. */
  readonly cidrs: readonly CIDR[];
  /** The same addresses as a set, for membership tests. */
  readonly addressSet: AddressSet;
  /** Default true: hand out addresses to services that did not ask for one. */
  readonly autoAssign: boolean;
  /** Default false: skip IPv4 addresses ending in .0 or .255 whatever the prefix. */
  readonly avoidBuggyIPs: boolean;
  readonly serviceAllocation?: ServiceAllocation;
}

/** IPAddressPool.spec.serviceAllocation: pins a pool to some services, with a priority (lower wins). */
export interface ServiceAllocation {
  /** 0 (or unset) sorts after every positive priority, as in MetalLB. */
  readonly priority: number;
  readonly namespaces: readonly string[];
  readonly namespaceSelectors: readonly LabelSelector[];
  readonly serviceSelectors: readonly LabelSelector[];
}

/** L2Advertisement (metallb.io/v1beta1). */
export interface L2Advertisement {
  readonly kind: 'L2Advertisement';
  readonly meta: ObjectMeta;
  /** Pool names; with ipAddressPoolSelectors both empty the advertisement covers every pool. */
  readonly ipAddressPools: readonly string[];
  readonly ipAddressPoolSelectors: readonly LabelSelector[];
  /** Empty: every node. */
  readonly nodeSelectors: readonly LabelSelector[];
  /** Empty: every eligible interface. */
  readonly interfaces: readonly string[];
  /** Empty: every service. */
  readonly serviceSelectors: readonly LabelSelector[];
}

/** A BGP community after alias resolution. */
export type CommunityValue =
  | { readonly kind: 'standard'; readonly text: string; readonly value: number }
  | { readonly kind: 'large'; readonly text: string; readonly global: number; readonly local1: number; readonly local2: number };

/** BGPAdvertisement (metallb.io/v1beta1). */
export interface BGPAdvertisement {
  readonly kind: 'BGPAdvertisement';
  readonly meta: ObjectMeta;
  /** Default 32. */
  readonly aggregationLength: number;
  /** Default 128. */
  readonly aggregationLengthV6: number;
  /** Sent to iBGP peers only; undefined when not set. */
  readonly localPref?: number;
  /** As written (values or Community aliases). */
  readonly communities: readonly string[];
  /** Resolved through Community objects. */
  readonly communityValues: readonly CommunityValue[];
  readonly ipAddressPools: readonly string[];
  readonly ipAddressPoolSelectors: readonly LabelSelector[];
  readonly nodeSelectors: readonly LabelSelector[];
  /** BGPPeer names; empty: every peer. */
  readonly peers: readonly string[];
  readonly serviceSelectors: readonly LabelSelector[];
}

export type DynamicASN = 'internal' | 'external';

/** BGPPeer (metallb.io/v1beta2; v1beta1 is read too). Durations are in milliseconds. */
export interface BGPPeer {
  readonly kind: 'BGPPeer';
  readonly meta: ObjectMeta;
  readonly myASN: number;
  /** Exactly one of peerASN and dynamicASN is set. */
  readonly peerASN?: number;
  readonly dynamicASN?: DynamicASN;
  /** Exactly one of peerAddress and interface is set. */
  readonly peerAddress?: IP;
  readonly interface?: string;
  readonly sourceAddress?: IP;
  /** Default 179. */
  readonly peerPort: number;
  /** Default 90 s (MetalLB's native speaker); 0 or >= 3 s. */
  readonly holdTimeMs: number;
  /** Default holdTime / 3. */
  readonly keepaliveTimeMs: number;
  readonly connectTimeMs?: number;
  readonly routerID?: IP;
  readonly nodeSelectors: readonly LabelSelector[];
  readonly password?: string;
  readonly passwordSecret?: { readonly name: string; readonly namespace: string };
  readonly bfdProfile?: string;
  readonly enableGracefulRestart: boolean;
  readonly ebgpMultiHop: boolean;
  readonly vrf?: string;
  /** FRR's "local-as" replacement ASN (v1beta2 localASN); undefined when not set. */
  readonly localASN?: number;
  readonly disableMP: boolean;
  readonly dualStackAddressFamily: boolean;
}

/** BFDProfile (metallb.io/v1beta1). Intervals in milliseconds. */
export interface BFDProfile {
  readonly kind: 'BFDProfile';
  readonly meta: ObjectMeta;
  /** Default 300. */
  readonly receiveInterval: number;
  /** Default 300. */
  readonly transmitInterval: number;
  /** Default 3. */
  readonly detectMultiplier: number;
  /** Default 50. */
  readonly echoInterval: number;
  readonly echoMode: boolean;
  readonly passiveMode: boolean;
  /** Default 254. */
  readonly minimumTtl: number;
}

/** Community (metallb.io/v1beta1): named aliases for community values. */
export interface Community {
  readonly kind: 'Community';
  readonly meta: ObjectMeta;
  readonly communities: readonly { readonly name: string; readonly value: string }[];
}

// ---------------------------------------------------------------------------------------------- core/v1

export type ServiceProtocol = 'TCP' | 'UDP' | 'SCTP';

export interface ServicePort {
  readonly name?: string;
  readonly protocol: ServiceProtocol;
  readonly port: number;
}

export type IPFamilyName = 'IPv4' | 'IPv6';
export type IPFamilyPolicy = 'SingleStack' | 'PreferDualStack' | 'RequireDualStack';
export type ExternalTrafficPolicy = 'Cluster' | 'Local';

/** A v1 Service, the fields of it that allocation and election read. */
export interface Service {
  readonly kind: 'Service';
  readonly meta: ObjectMeta;
  readonly type: string;
  readonly ports: readonly ServicePort[];
  readonly selector: Labels;
  /** spec.loadBalancerIP (deprecated in Kubernetes, still honoured by MetalLB). */
  readonly loadBalancerIP?: string;
  readonly loadBalancerClass?: string;
  /** Default Cluster. */
  readonly externalTrafficPolicy: ExternalTrafficPolicy;
  /** Default SingleStack. */
  readonly ipFamilyPolicy: IPFamilyPolicy;
  /** Written, else from the requested addresses, else [IPv4] (parse/service-families.ts). */
  readonly ipFamilies: readonly IPFamilyName[];
  /** status.loadBalancer.ingress[].ip: the current assignment, when the file (or the cluster) records one. */
  readonly ingressIPs: readonly IP[];
  /**
   * Where the fields that decide its address were written, by field path ("spec.loadBalancerIP",
   * "metadata.annotations.metallb.io/address-pool"), when it came from a file: a service that gets no address is
   * reported there. Like meta.position, not part of what the Service means.
   */
  readonly fieldPositions?: Readonly<Record<string, SourcePosition>>;
}

export interface NodeCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
}

/** A v1 Node: labels and conditions are election inputs. */
export interface Node {
  readonly kind: 'Node';
  readonly meta: ObjectMeta;
  readonly conditions: readonly NodeCondition[];
  /** status.addresses[].address that parse as IPs. */
  readonly addresses: readonly IP[];
  /** Subnets the node is attached to, from the mlb.io/subnets annotation (plain hosts publish theirs). */
  readonly subnets: readonly CIDR[];
}

export type MetalLBObject = IPAddressPool | L2Advertisement | BGPAdvertisement | BGPPeer | BFDProfile | Community;
export type AnyObject = MetalLBObject | Service | Node;
