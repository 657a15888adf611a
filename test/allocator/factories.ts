// Small builders for model objects, so allocator tests do not depend on the YAML parser.
import { AddressSet, type CIDR, type IP, parseCIDR, parseIP, parseIPRange, rangeToCIDRs } from '../../src/ip';
import type {
  IPAddressPool,
  IPFamilyName,
  IPFamilyPolicy,
  LabelSelector,
  Labels,
  Service,
  ServiceAllocation,
  ServicePort,
  ServiceProtocol,
} from '../../src/model';

export function ip(text: string): IP {
  const parsed = parseIP(text);
  if (!parsed) throw new Error(`bad IP in test: ${text}`);
  return parsed;
}

export function ips(...texts: string[]): IP[] {
  return texts.map(ip);
}

function cidrsOf(address: string): CIDR[] {
  if (address.includes('-')) {
    const r = parseIPRange(address);
    if (!r.ok) throw new Error(`bad range in test: ${address}`);
    return rangeToCIDRs(r.first, r.last);
  }
  const c = parseCIDR(address);
  if (!c) throw new Error(`bad CIDR in test: ${address}`);
  return [c];
}

export interface PoolOptions {
  autoAssign?: boolean;
  avoidBuggyIPs?: boolean;
  serviceAllocation?: Partial<ServiceAllocation>;
  labels?: Labels;
}

export function pool(name: string, addresses: string[], options: PoolOptions = {}): IPAddressPool {
  const cidrs = addresses.flatMap(cidrsOf);
  const sa = options.serviceAllocation;
  return {
    kind: 'IPAddressPool',
    meta: { name, namespace: 'metallb-system', labels: options.labels ?? {}, annotations: {} },
    addresses,
    cidrs,
    addressSet: AddressSet.fromCIDRs(cidrs),
    autoAssign: options.autoAssign ?? true,
    avoidBuggyIPs: options.avoidBuggyIPs ?? false,
    ...(sa && {
      serviceAllocation: {
        priority: sa.priority ?? 0,
        namespaces: sa.namespaces ?? [],
        namespaceSelectors: sa.namespaceSelectors ?? [],
        serviceSelectors: sa.serviceSelectors ?? [],
      },
    }),
  };
}

export function selector(matchLabels: Labels): LabelSelector {
  return { matchLabels, matchExpressions: [] };
}

export interface ServiceOptions {
  namespace?: string;
  type?: string;
  annotations?: Record<string, string>;
  labels?: Labels;
  /** "TCP/80" style, or numbers (TCP). */
  ports?: (string | number)[];
  selector?: Labels;
  loadBalancerIP?: string;
  loadBalancerClass?: string;
  externalTrafficPolicy?: 'Cluster' | 'Local';
  ipFamilyPolicy?: IPFamilyPolicy;
  ipFamilies?: IPFamilyName[];
  ingress?: string[];
  /** Shorthands for the metallb.io annotations. */
  requestIPs?: string;
  addressPool?: string;
  share?: string;
}

function port(p: string | number): ServicePort {
  if (typeof p === 'number') return { protocol: 'TCP', port: p };
  const [proto, num] = p.split('/');
  return { protocol: proto as ServiceProtocol, port: Number(num) };
}

/** A LoadBalancer service "namespace/name" (namespace defaults to "demo"). */
export function service(name: string, options: ServiceOptions = {}): Service {
  const annotations: Record<string, string> = { ...(options.annotations ?? {}) };
  if (options.requestIPs !== undefined) annotations['metallb.io/loadBalancerIPs'] = options.requestIPs;
  if (options.addressPool !== undefined) annotations['metallb.io/address-pool'] = options.addressPool;
  if (options.share !== undefined) annotations['metallb.io/allow-shared-ip'] = options.share;
  return {
    kind: 'Service',
    meta: { name, namespace: options.namespace ?? 'demo', labels: options.labels ?? {}, annotations },
    type: options.type ?? 'LoadBalancer',
    ports: (options.ports ?? [80]).map(port),
    selector: options.selector ?? { app: name },
    ...(options.loadBalancerIP !== undefined && { loadBalancerIP: options.loadBalancerIP }),
    ...(options.loadBalancerClass !== undefined && { loadBalancerClass: options.loadBalancerClass }),
    externalTrafficPolicy: options.externalTrafficPolicy ?? 'Cluster',
    ipFamilyPolicy: options.ipFamilyPolicy ?? 'SingleStack',
    ipFamilies: options.ipFamilies ?? ['IPv4'],
    ingressIPs: (options.ingress ?? []).map(ip),
  };
}

export const DUAL: Pick<ServiceOptions, 'ipFamilyPolicy' | 'ipFamilies'> = {
  ipFamilyPolicy: 'RequireDualStack',
  ipFamilies: ['IPv4', 'IPv6'],
};
export const PREFER_DUAL: Pick<ServiceOptions, 'ipFamilyPolicy' | 'ipFamilies'> = {
  ipFamilyPolicy: 'PreferDualStack',
  ipFamilies: ['IPv4', 'IPv6'],
};
export const V6: Pick<ServiceOptions, 'ipFamilyPolicy' | 'ipFamilies'> = {
  ipFamilyPolicy: 'SingleStack',
  ipFamilies: ['IPv6'],
};
