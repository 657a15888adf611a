/**
 * Kubernetes objects as the API server returns them (plain JSON, every field optional as on the wire): only
 * the fields the controller reads or writes. Types only; the shapes are core/v1 and metallb.io/v1beta1 as
 * MetalLB v0.16.1 uses them.
 */

export interface ApiOwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

export interface ApiObjectMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly ApiOwnerReference[];
  readonly [other: string]: unknown;
}

export interface ApiServicePort {
  readonly name?: string;
  readonly protocol?: string;
  readonly port?: number;
  readonly [other: string]: unknown;
}

/** status.loadBalancer.ingress[]: ipMode is defaulted to VIP by API servers >= 1.30 (LoadBalancerIPMode). */
export interface ApiLoadBalancerIngress {
  readonly ip?: string;
  readonly hostname?: string;
  readonly ipMode?: string;
  readonly ports?: readonly unknown[];
}

export interface ApiLoadBalancerStatus {
  readonly ingress?: readonly ApiLoadBalancerIngress[];
}

export interface ApiServiceSpec {
  readonly type?: string;
  readonly loadBalancerClass?: string;
  readonly loadBalancerIP?: string;
  readonly clusterIP?: string;
  readonly clusterIPs?: readonly string[];
  readonly ipFamilies?: readonly string[];
  readonly ipFamilyPolicy?: string;
  readonly externalTrafficPolicy?: string;
  readonly ports?: readonly ApiServicePort[];
  readonly selector?: Readonly<Record<string, string>>;
  readonly [other: string]: unknown;
}

export interface ApiService {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ApiObjectMeta;
  readonly spec?: ApiServiceSpec;
  readonly status?: { readonly loadBalancer?: ApiLoadBalancerStatus; readonly [other: string]: unknown };
}

/** Any namespaced object the controller only needs the identity of (a Deployment, a Secret, a Pod). */
export interface ApiObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ApiObjectMeta;
  readonly [other: string]: unknown;
}

/** "namespace/name", MetalLB's service key. */
export function apiServiceKey(service: ApiService): string {
  return `${service.metadata.namespace ?? ''}/${service.metadata.name ?? ''}`;
}
