/**
 * The address family of a Service, from its cluster IPs, as MetalLB reads it (internal/ipfamily ForService and
 * ForAddresses, v0.16.1): one cluster IP -> its family, two of different families -> dual, anything else an
 * error whose text MetalLB puts in its events. spec.ipFamilies only orders a dual service's families.
 */
import { type IP, parseIP } from '../ip';
import type { IPFamilyName } from '../model';
import { type MetalLBFamily, allocationErrors } from '../allocator';
import type { ApiService } from './api-objects';
import { goQuoteText } from './go-text';

/** ForAddresses accepts one address or one of each family. */
const MAX_FAMILY_ADDRESSES = 2;

export type FamilyRead =
  | { readonly ok: true; readonly family: MetalLBFamily; readonly families: readonly IPFamilyName[] }
  | { readonly ok: false; readonly error: string };

/** spec.clusterIPs, else [spec.clusterIP]; empty when the service has neither. */
export function clusterIPsOf(service: ApiService): readonly string[] {
  const ips = service.spec?.clusterIPs ?? [];
  if (ips.length > 0) return ips;
  const one = service.spec?.clusterIP ?? '';
  return one === '' ? [] : [one];
}

/** internal/ipfamily ForAddresses over address texts. */
export function familyOfTexts(texts: readonly string[]): FamilyRead {
  if (texts.length === 0 || texts.length > MAX_FAMILY_ADDRESSES) {
    return { ok: false, error: allocationErrors.requestedCount(texts).message };
  }
  const ips = texts.map((t) => parseIP(t));
  if (ips.some((ip) => ip === undefined)) {
    return { ok: false, error: `IPFamilyForAddresses: Invalid address ${goQuoteText(texts)}` };
  }
  const [a, b] = ips as IP[];
  if (b === undefined) return { ok: true, family: (a as IP).family === 4 ? 'ipv4' : 'ipv6', families: [nameOf(a as IP)] };
  if ((a as IP).family === b.family) return { ok: false, error: allocationErrors.requestedSameFamily(texts).message };
  return { ok: true, family: 'dual', families: [nameOf(a as IP), nameOf(b)] };
}

/** ForService, with a dual service's families ordered as spec.ipFamilies lists them (its primary first). */
export function serviceClusterFamily(service: ApiService): FamilyRead {
  const read = familyOfTexts(clusterIPsOf(service));
  if (!read.ok || read.family !== 'dual') return read;
  const written = (service.spec?.ipFamilies ?? []).filter((f): f is IPFamilyName => f === 'IPv4' || f === 'IPv6');
  const ordered = written.length === MAX_FAMILY_ADDRESSES && written[0] !== written[1] ? written : read.families;
  return { ...read, families: ordered };
}

function nameOf(ip: IP): IPFamilyName {
  return ip.family === 4 ? 'IPv4' : 'IPv6';
}
