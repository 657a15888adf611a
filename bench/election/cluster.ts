// A synthetic cluster for the election benchmark: nodes in racks and zones (a few control planes with the
// exclusion label), one pool, one L2Advertisement, services with unique IPs, a few with ETP Local.
import { AddressSet, makeIP, parseCIDR, type CIDR } from '../../src/ip';
import type { IPAddressPool, L2Advertisement, Node, Service } from '../../src/model';
import type { ElectionConfig, ServiceElectionInput } from '../../src/election';

const meta = (name: string, labels: Record<string, string> = {}, namespace = '') => ({ name, namespace, labels, annotations: {} });

/** Deterministic PRNG (mulberry32), so every run benchmarks the same cluster. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CONTROL_PLANES = 3;
const ENDPOINTS_PER_SERVICE = 3;
const LOCAL_POLICY_EVERY = 10;

export interface Cluster {
  readonly config: ElectionConfig;
  readonly services: ServiceElectionInput[];
  readonly nodeNames: string[];
}

export function makeCluster(nodeCount: number, serviceCount: number, seed = 1): Cluster {
  const random = prng(seed);
  const nodes: Node[] = [];
  for (let i = 0; i < nodeCount; i++) {
    const name = `worker-${String(i).padStart(4, '0')}.rack-${String(i % 40).padStart(2, '0')}.dc1.example.net`;
    const labels: Record<string, string> = { 'topology.kubernetes.io/zone': `zone-${i % 3}` };
    if (i < CONTROL_PLANES) labels['node.kubernetes.io/exclude-from-external-load-balancers'] = '';
    nodes.push({ kind: 'Node', meta: meta(name, labels), conditions: [], addresses: [], subnets: [] });
  }
  const cidr = parseCIDR('10.64.0.0/14') as CIDR;
  const pool: IPAddressPool = {
    kind: 'IPAddressPool',
    meta: meta('default', {}, 'metallb-system'),
    addresses: ['10.64.0.0/14'],
    cidrs: [cidr],
    addressSet: AddressSet.fromCIDRs([cidr]),
    autoAssign: true,
    avoidBuggyIPs: false,
  };
  const ad: L2Advertisement = {
    kind: 'L2Advertisement',
    meta: meta('l2', {}, 'metallb-system'),
    ipAddressPools: ['default'],
    ipAddressPoolSelectors: [],
    nodeSelectors: [],
    interfaces: [],
    serviceSelectors: [],
  };
  const nodeNames = nodes.map((n) => n.meta.name);
  const services: ServiceElectionInput[] = [];
  for (let i = 0; i < serviceCount; i++) {
    const local = i % LOCAL_POLICY_EVERY === 0;
    const serving = new Set<string>();
    while (serving.size < ENDPOINTS_PER_SERVICE) serving.add(nodeNames[Math.floor(random() * nodeCount)] as string);
    const service: Service = {
      kind: 'Service',
      meta: meta(`svc-${i}`, { app: `app-${i % 50}` }, `team-${i % 20}`),
      type: 'LoadBalancer',
      ports: [],
      selector: {},
      externalTrafficPolicy: local ? 'Local' : 'Cluster',
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
      ingressIPs: [makeIP(4, cidr.ip.value + BigInt(i + 1))],
    };
    services.push({ service, endpoints: { servingNodes: serving } });
  }
  return {
    config: { nodes, pools: [pool], l2Advertisements: [ad], bgpAdvertisements: [], bgpPeers: [] },
    services,
    nodeNames,
  };
}
