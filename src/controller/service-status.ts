/**
 * What the controller writes on a Service: status.loadBalancer and the metallb.io/ip-allocated-from-pool
 * annotation, nothing else (MetalLB v0.16.1 controller/service.go: the ingress carries the IP only, no ipMode
 * and no ports; clearServiceState empties status.loadBalancer and deletes the annotation). The write is the
 * whole Service to PUT on /status (the status strategy keeps metadata changes), skipped when nothing differs.
 */
import { type IP, formatIP } from '../ip';
import { ANNOTATION_PREFIX, ServiceAnnotation } from '../model';
import type { ApiLoadBalancerIngress, ApiLoadBalancerStatus, ApiService } from './api-objects';

const ALLOCATED_FROM_POOL_ANNOTATION = `${ANNOTATION_PREFIX}${ServiceAnnotation.ipAllocatedFromPool}`;
/**
 * The ipMode API servers >= 1.30 give every ingress entry with an IP that has none (LoadBalancerIPMode).
 * MetalLB writes none; comparing "absent" equal to it keeps an unchanged Service from being written again
 * after the server defaulted it.
 */
const DEFAULT_IP_MODE = 'VIP';

/** The state a Service should have: addresses from a pool, or none. */
export type DesiredAddresses =
  { readonly kind: 'assigned'; readonly ips: readonly IP[]; readonly pool: string } | { readonly kind: 'cleared' };

function desiredLoadBalancer(desired: DesiredAddresses): ApiLoadBalancerStatus {
  return desired.kind === 'assigned' ? { ingress: desired.ips.map((ip) => ({ ip: formatIP(ip) })) } : {};
}

function desiredAnnotations(service: ApiService, desired: DesiredAddresses): Record<string, string> {
  const annotations = { ...(service.metadata.annotations ?? {}) };
  if (desired.kind === 'assigned') annotations[ALLOCATED_FROM_POOL_ANNOTATION] = desired.pool;
  else delete annotations[ALLOCATED_FROM_POOL_ANNOTATION];
  return annotations;
}

/** The Service as it should be: the object read, with status.loadBalancer and the annotations replaced. */
export function serviceWithAddresses(service: ApiService, desired: DesiredAddresses): ApiService {
  return {
    ...service,
    metadata: { ...service.metadata, annotations: desiredAnnotations(service, desired) },
    status: { ...(service.status ?? {}), loadBalancer: desiredLoadBalancer(desired) },
  };
}

/** What differs between the Service read and the one wanted; empty: no write. */
export function serviceDifferences(current: ApiService, next: ApiService): string[] {
  const out: string[] = [];
  if (!sameIngress(current.status?.loadBalancer, next.status?.loadBalancer)) out.push('status.loadBalancer');
  if (!sameRecord(current.metadata.annotations ?? {}, next.metadata.annotations ?? {})) out.push('metadata.annotations');
  return out;
}

function normalIngress(entry: ApiLoadBalancerIngress): string {
  const hasIP = entry.ip !== undefined && entry.ip !== '';
  return JSON.stringify([entry.ip ?? '', entry.hostname ?? '', entry.ipMode ?? (hasIP ? DEFAULT_IP_MODE : ''), entry.ports ?? []]);
}

function sameIngress(a: ApiLoadBalancerStatus | undefined, b: ApiLoadBalancerStatus | undefined): boolean {
  const x = (a?.ingress ?? []).map(normalIngress);
  const y = (b?.ingress ?? []).map(normalIngress);
  return x.length === y.length && x.every((entry, i) => entry === y[i]);
}

function sameRecord(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}
