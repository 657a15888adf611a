// Small factories for election tests: model objects with MetalLB's defaults, built without the model parser.
import { AddressSet, parseCIDR, parseIP, type CIDR, type IP } from '../../src/ip';
import type {
  BGPAdvertisement,
  BGPPeer,
  CommunityValue,
  IPAddressPool,
  L2Advertisement,
  LabelSelector,
  Labels,
  Node,
  NodeCondition,
  Service,
} from '../../src/model';
import type { ServiceElectionInput } from '../../src/election';

const meta = (name: string, labels: Labels = {}, namespace = '') => ({ name, namespace, labels, annotations: {} });

export function ip(text: string): IP {
  const parsed = parseIP(text);
  if (!parsed) throw new Error(`bad IP ${text}`);
  return parsed;
}

export function sel(matchLabels: Labels): LabelSelector {
  return { matchLabels, matchExpressions: [] };
}

export function node(name: string, labels: Labels = {}, conditions: NodeCondition[] = []): Node {
  return { kind: 'Node', meta: meta(name, labels), conditions, addresses: [], subnets: [] };
}

export function pool(name: string, addresses: string[], labels: Labels = {}): IPAddressPool {
  const cidrs = addresses.map((a) => {
    const c = parseCIDR(a);
    if (!c) throw new Error(`bad CIDR ${a}`);
    return c;
  }) as CIDR[];
  return {
    kind: 'IPAddressPool',
    meta: meta(name, labels, 'metallb-system'),
    addresses,
    cidrs,
    addressSet: AddressSet.fromCIDRs(cidrs),
    autoAssign: true,
    avoidBuggyIPs: false,
  };
}

export function l2Ad(name: string, spec: Partial<Omit<L2Advertisement, 'kind' | 'meta'>> = {}): L2Advertisement {
  return {
    kind: 'L2Advertisement',
    meta: meta(name, {}, 'metallb-system'),
    ipAddressPools: [],
    ipAddressPoolSelectors: [],
    nodeSelectors: [],
    interfaces: [],
    serviceSelectors: [],
    ...spec,
  };
}

export function standard(text: string): CommunityValue {
  const [hi, lo] = text.split(':').map(Number) as [number, number];
  return { kind: 'standard', text, value: hi * 65536 + lo };
}

export function bgpAd(name: string, spec: Partial<Omit<BGPAdvertisement, 'kind' | 'meta'>> = {}): BGPAdvertisement {
  return {
    kind: 'BGPAdvertisement',
    meta: meta(name, {}, 'metallb-system'),
    aggregationLength: 32,
    aggregationLengthV6: 128,
    communities: [],
    communityValues: [],
    ipAddressPools: [],
    ipAddressPoolSelectors: [],
    nodeSelectors: [],
    peers: [],
    serviceSelectors: [],
    ...spec,
  };
}

export function peer(name: string, nodeSelectors: LabelSelector[] = []): BGPPeer {
  return {
    kind: 'BGPPeer',
    meta: meta(name, {}, 'metallb-system'),
    myASN: 64512,
    peerASN: 64512,
    peerAddress: ip('192.0.2.1'),
    peerPort: 179,
    holdTimeMs: 90_000,
    keepaliveTimeMs: 30_000,
    nodeSelectors,
    enableGracefulRestart: false,
    ebgpMultiHop: false,
    disableMP: false,
    dualStackAddressFamily: false,
  };
}

export function service(key: string, ips: string[], spec: Partial<Omit<Service, 'kind' | 'meta'>> & { labels?: Labels } = {}): Service {
  const [namespace, name] = key.split('/') as [string, string];
  const { labels, ...rest } = spec;
  return {
    kind: 'Service',
    meta: meta(name, labels ?? {}, namespace),
    type: 'LoadBalancer',
    ports: [],
    selector: {},
    externalTrafficPolicy: 'Cluster',
    ipFamilyPolicy: 'SingleStack',
    ipFamilies: ['IPv4'],
    ingressIPs: ips.map(ip),
    ...rest,
  };
}

/** A service input whose endpoints are on `servingNodes`. */
export function input(svc: Service, servingNodes: string[], extra: Partial<ServiceElectionInput> = {}): ServiceElectionInput {
  return { service: svc, endpoints: { servingNodes: new Set(servingNodes) }, ...extra };
}

export const NETWORK_UNAVAILABLE: NodeCondition = { type: 'NetworkUnavailable', status: 'True' };
export const EXCLUDE = { 'node.kubernetes.io/exclude-from-external-load-balancers': '' };
