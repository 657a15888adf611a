/**
 * spec.ipFamilies for a Service that writes none. In a cluster the API server fills them in (the cluster's
 * primary family, or both under a dual-stack policy) before MetalLB ever reads the Service; on a plain host
 * nobody does, so mlb plays that role here, in the model, where the daemon and `mlb validate` both read it:
 * - the family of the addresses the Service requests (metallb.io/loadBalancerIPs or spec.loadBalancerIP), so
 *   a Service asking for an IPv6 address is an IPv6 Service and does not fail MetalLB's family check;
 * - one address of each family: both families, in the order requested, under PreferDualStack unless the
 *   Service chose a policy itself;
 * - nothing requested, or a request the allocator will refuse anyway: IPv4, a single-stack cluster's family.
 */
import { parseIP } from '../../ip';
import type { IPFamilyName, IPFamilyPolicy, Labels } from '../types';
import { ANNOTATION_PREFIX, LEGACY_ANNOTATION_PREFIX, ServiceAnnotation } from '../well-known';

/** A single-stack cluster's family: what the API server gives a Service that says nothing else. */
const CLUSTER_DEFAULT_FAMILY: IPFamilyName = 'IPv4';
/** The policy a Service requesting one address of each family clearly means. */
const TWO_FAMILY_POLICY: IPFamilyPolicy = 'PreferDualStack';
/** At most one address per family (MetalLB internal/ipfamily ForAddresses). */
const MAX_REQUESTED = 2;

/** The families of the addresses a Service requests, and the field that requests them. */
export interface RequestedFamilies {
  readonly families: readonly IPFamilyName[];
  /** "metallb.io/loadBalancerIPs" (or its legacy name) or "spec.loadBalancerIP". */
  readonly field: string;
}

export interface DefaultedFamilies {
  readonly families: readonly IPFamilyName[];
  /** Only when mlb chose the policy as well (two families requested, no policy written). */
  readonly policy?: IPFamilyPolicy;
  /** Undefined: the cluster default (nothing usable requested). */
  readonly from?: RequestedFamilies;
}

/**
 * The families a readable request asks for, in its order; undefined when there is no request or one the
 * allocator refuses (both fields, an unparsable entry, two addresses of one family, more than two).
 */
export function requestedFamilies(annotations: Labels, loadBalancerIP: string | undefined): RequestedFamilies | undefined {
  const name = [ANNOTATION_PREFIX, LEGACY_ANNOTATION_PREFIX]
    .map((prefix) => prefix + ServiceAnnotation.loadBalancerIPs)
    .find((key) => (annotations[key] ?? '') !== '');
  const spec = loadBalancerIP ?? '';
  if (name !== undefined && spec !== '') return undefined;
  const texts = name !== undefined ? (annotations[name] as string).split(',').map((t) => t.trim()) : spec !== '' ? [spec] : [];
  if (texts.length === 0 || texts.length > MAX_REQUESTED) return undefined;
  const families: IPFamilyName[] = [];
  for (const text of texts) {
    const ip = parseIP(text);
    if (ip === undefined) return undefined;
    const family: IPFamilyName = ip.family === 4 ? 'IPv4' : 'IPv6';
    if (families.includes(family)) return undefined;
    families.push(family);
  }
  return { families, field: name ?? 'spec.loadBalancerIP' };
}

/** The families (and maybe the policy) of a Service that writes no ipFamilies; `policy` is the written one. */
export function defaultFamilies(requested: RequestedFamilies | undefined, policy: IPFamilyPolicy | undefined): DefaultedFamilies {
  if (requested === undefined) return { families: [CLUSTER_DEFAULT_FAMILY] };
  const [first] = requested.families as [IPFamilyName, ...IPFamilyName[]];
  if (requested.families.length === 1) return { families: [first], from: requested };
  if (policy === undefined) return { families: requested.families, policy: TWO_FAMILY_POLICY, from: requested };
  // A written SingleStack keeps one family; the allocator then says the request does not fit it.
  return { families: policy === 'SingleStack' ? [first] : requested.families, from: requested };
}

/** The note `mlb validate` prints: what was chosen and why, short. */
export function defaultedFamiliesText(service: string, families: readonly IPFamilyName[], chosen: DefaultedFamilies): string {
  const policy = chosen.policy ? ` and ipFamilyPolicy to ${chosen.policy}` : '';
  const why = chosen.from ? `none written; from ${chosen.from.field}` : 'none written, no IP requested';
  return `service ${service}: ipFamilies defaulted to [${families.join(', ')}]${policy} (${why})`;
}
