import { type IP, compareIP, formatIP, ipEquals, parseIP } from '../ip';
import type { Service } from '../model';
import { ServiceAnnotation, serviceAnnotation } from '../model';
import { type AllocationError, type MetalLBFamily, allocationErrors } from './allocation-errors';
import { metallbFamilyOf } from './service-family';

/** At most one address per family (MetalLB's loadBalancerIPs annotation: one IP, or one of each family for dual stack), so at most two. */
const MAX_REQUESTED_IPS = 2;

export type RequestedIPs =
  | { readonly kind: 'none' }
  | { readonly kind: 'ips'; readonly ips: readonly IP[]; readonly family: MetalLBFamily; readonly source: RequestSource }
  | { readonly kind: 'invalid'; readonly error: AllocationError };

export type RequestSource = 'annotation' | 'spec.loadBalancerIP';

/**
 * controller/service.go getDesiredLbIPs: the addresses a service asks for.
 * - metallb.io/loadBalancerIPs (legacy metallb.universe.tf/ read too): comma list, each entry trimmed and
 *   parsed; one bad entry makes the whole request invalid (the message quotes the whole annotation);
 *   more than two, or two of one family, is invalid (internal/ipfamily ForAddresses);
 * - spec.loadBalancerIP: one address, not trimmed (Go parses it as written);
 * - both set: invalid, whatever their values.
 * An empty annotation counts as unset, as in MetalLB.
 */
export function requestedIPs(service: Service): RequestedIPs {
  const annotation = serviceAnnotation(service, ServiceAnnotation.loadBalancerIPs) ?? '';
  const spec = service.loadBalancerIP ?? '';
  if (annotation === '' && spec === '') return { kind: 'none' };
  if (annotation !== '' && spec !== '') return { kind: 'invalid', error: allocationErrors.bothRequestFields() };

  if (annotation !== '') {
    const ips: IP[] = [];
    for (const part of annotation.split(',')) {
      const ip = parseIP(part.trim());
      if (ip === undefined) return { kind: 'invalid', error: allocationErrors.invalidAnnotationIPs(annotation) };
      ips.push(ip);
    }
    const texts = ips.map(formatIP);
    if (ips.length > MAX_REQUESTED_IPS) return { kind: 'invalid', error: allocationErrors.requestedCount(texts) };
    if (ips.length === MAX_REQUESTED_IPS && (ips[0] as IP).family === (ips[1] as IP).family) {
      return { kind: 'invalid', error: allocationErrors.requestedSameFamily(texts) };
    }
    const family: MetalLBFamily = ips.length === 1 ? metallbFamilyOf((ips[0] as IP).family) : 'dual';
    return { kind: 'ips', ips, family, source: 'annotation' };
  }

  const ip = parseIP(spec);
  if (ip === undefined) return { kind: 'invalid', error: allocationErrors.invalidSpecIP(spec) };
  return { kind: 'ips', ips: [ip], family: metallbFamilyOf(ip.family), source: 'spec.loadBalancerIP' };
}

/** The address-pool annotation, or undefined when absent or empty (MetalLB treats "" as unset). */
export function requestedPool(service: Service): string | undefined {
  const pool = serviceAnnotation(service, ServiceAnnotation.addressPool);
  return pool === undefined || pool === '' ? undefined : pool;
}

/** controller/service.go isEqualIPs: the same addresses in any order. */
export function sameAddresses(a: readonly IP[], b: readonly IP[]): boolean {
  if (a.length !== b.length) return false;
  const sa = [...a].sort(compareIP);
  const sb = [...b].sort(compareIP);
  return sa.every((ip, i) => ipEquals(ip, sb[i] as IP));
}
