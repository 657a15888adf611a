import type { IP, IPFamily } from '../ip';
import type { Service } from '../model';
import type { MetalLBFamily } from './allocation-errors';

/**
 * The address family a service needs. MetalLB reads it from spec.clusterIPs (internal/ipfamily ForService:
 * one cluster IP -> its family, two -> "dual"). mlb's model has no cluster IPs (a plain host has none), so it
 * reads spec.ipFamilies, which the API server keeps in step with clusterIPs:
 * - two families listed -> dual;
 * - RequireDualStack with one family listed -> dual as well: the API server would have added the other
 *   family (and refused the service otherwise), so a hand-written file means dual;
 * - otherwise the one listed family (default IPv4).
 */
export function serviceFamily(service: Service): MetalLBFamily {
  const families = new Set(service.ipFamilies);
  if (families.has('IPv4') && families.has('IPv6')) return 'dual';
  if (service.ipFamilyPolicy === 'RequireDualStack') return 'dual';
  return service.ipFamilies[0] === 'IPv6' ? 'ipv6' : 'ipv4';
}

/**
 * MetalLB findBestPoolForService: IPv4 is primary unless spec.ipFamilies starts with IPv6. Only matters for
 * PreferDualStack's fallback to one family.
 */
export function primaryFamily(service: Service): IPFamily {
  return service.ipFamilies[0] === 'IPv6' ? 6 : 4;
}

export function metallbFamilyOf(family: IPFamily): MetalLBFamily {
  return family === 4 ? 'ipv4' : 'ipv6';
}

/**
 * internal/ipfamily ForAddressesIPs: one address -> its family, two of different families -> dual, anything
 * else -> undefined (MetalLB's "unknown").
 */
function familyOfAddresses(ips: readonly IP[]): MetalLBFamily | undefined {
  if (ips.length === 1) return metallbFamilyOf((ips[0] as IP).family);
  if (ips.length === 2 && (ips[0] as IP).family !== (ips[1] as IP).family) return 'dual';
  return undefined;
}

/**
 * controller/service.go serviceFamilyChanged: do the held addresses no longer fit the service's family? A
 * PreferDualStack dual service may hold one family (its pool had only that one).
 */
export function heldFamilyChanged(held: readonly IP[], service: Service): boolean {
  const heldFamily = familyOfAddresses(held);
  if (heldFamily === undefined) return true;
  const wanted = serviceFamily(service);
  if (heldFamily === wanted) return false;
  return !(wanted === 'dual' && service.ipFamilyPolicy === 'PreferDualStack');
}
