/**
 * The lab's configuration file, as text a person can read at /run/mlb-lab/mlb.yaml: the same metallb.io objects
 * and v1 documents as examples/plain-host.yaml, sized to the lab. Pure. Also the IPs the services get, computed
 * with the allocator the daemons run, so the demo knows where to point the client before any daemon answers.
 */
import { allocateServices } from '../../allocator';
import { formatIP } from '../../ip';
import { formatDiagnostic, parseConfig } from '../../model';
import { LAB_BFD_PROFILE, LAB_BGP_PEER, LAB_BGP_POOL, LAB_BGP_POOL_V4, LAB_NODE_ASN, LAB_ROUTER_ASN } from './lab-bgp';
import { LabError } from './lab-errors';
import { LAB_API_IP, LAB_EXTRA_IP, LAB_HTTP_PORT, LAB_POOL_V4, LAB_POOL_V6, LAB_SUBNET_V4, LAB_SUBNET_V6, type LabPlan } from './lab-plan';

/** The services the lab configures, by "namespace/name". */
export const LabService = {
  /** No IP named: the allocator picks one; health-checked, so a failing node loses it. */
  web: 'demo/web',
  /** Names its IP (metallb.io/loadBalancerIPs); no health check: every live node may hold it. */
  api: 'demo/api',
  /** IPv6 from the IPv6 pool, health-checked like web. */
  webV6: 'demo/web-v6',
  /** Not in the file at first: the demo appends it to show a reload. */
  extra: 'demo/extra',
  /** With --bgp: a routed address every node advertises to the router (ECMP). */
  bgp: 'demo/web-bgp',
} as const;

/**
 * The health check every lab service uses: the node's own HTTP server. Faster than mlb's 1 s default so the demo's
 * health failure moves the IP within about a second (fall 2 x 500 ms), and rise 2 so one lucky answer does not
 * pull it back.
 */
const HEALTH = {
  url: `http://127.0.0.1:${LAB_HTTP_PORT}/healthz`,
  interval: '500ms',
  rise: 2,
  fall: 2,
} as const;

export function labConfigText(plan: LabPlan): string {
  const bgp = plan.router ? bgpDocs(plan.router.ipv4) : [];
  return [header(plan), pools(), advertisement(), ...plan.nodes.map((n) => nodeDoc(n.name)), web(), api(), webV6(), ...bgp].join('---\n');
}

/** The document the demo appends to show a reload: a service with its own IP, answered by whoever wins it. */
export function extraServiceText(): string {
  return `---\n${serviceDoc('extra', [`metallb.io/loadBalancerIPs: ${LAB_EXTRA_IP}`], [])}`;
}

/**
 * The IPs each service gets from the allocator over `configText` ("namespace/name" -> canonical IP texts). The
 * daemons run the same deterministic allocator over the same file, so on a fresh lab this is what they choose.
 */
export function expectedServiceIPs(configText: string, file = 'mlb.yaml'): Map<string, string[]> {
  const parsed = parseConfig(configText, file);
  if (!parsed.ok) {
    const errors = parsed.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);
    throw new LabError(`the lab configuration does not validate:\n  ${errors.join('\n  ')}`, 'commandFailed');
  }
  const { results } = allocateServices({ pools: parsed.snapshot.pools, services: parsed.snapshot.services });
  const ips = new Map<string, string[]>();
  for (const [key, result] of results) if (result.status === 'assigned') ips.set(key, result.ips.map(formatIP));
  return ips;
}

function header(plan: LabPlan): string {
  return [
    `# The configuration of lab ${plan.name}, written by \`mlb lab up\`; every node's daemon reads it and reloads it`,
    '# when it changes (`mlb lab demo` appends demo/extra to show that). The same objects as examples/plain-host.yaml.',
    '',
  ].join('\n');
}

function pools(): string {
  return [pool('lab', LAB_POOL_V4), '---\n', pool('lab-v6', LAB_POOL_V6)].join('');
}

function pool(name: string, addresses: string, autoAssign = true): string {
  return [
    'apiVersion: metallb.io/v1beta1',
    'kind: IPAddressPool',
    'metadata:',
    `  name: ${name}`,
    '  namespace: metallb-system',
    'spec:',
    '  addresses:',
    `    - ${addresses}`,
    ...(autoAssign ? [] : ['  autoAssign: false']),
    '',
  ].join('\n');
}

/**
 * --bgp: the router as a BGPPeer with a BFD profile, a pool of routed addresses advertised over BGP (not L2), and
 * a service in it. Every node advertises the service (no health check: every live node is an endpoint), so the
 * router holds one path per node.
 */
function bgpDocs(routerIPv4: string): string[] {
  const meta = (kind: string, name: string, apiVersion = 'metallb.io/v1beta1') => [
    `apiVersion: ${apiVersion}`,
    `kind: ${kind}`,
    'metadata:',
    `  name: ${name}`,
    '  namespace: metallb-system',
    'spec:',
  ];
  const bfd = LAB_BFD_PROFILE;
  return [
    `# --bgp: the lab's router (FRR in the router namespace). BFD takes a dead node's routes away in about a second.\n${[
      ...meta('BGPPeer', LAB_BGP_PEER, 'metallb.io/v1beta2'),
      `  myASN: ${LAB_NODE_ASN}`,
      `  peerASN: ${LAB_ROUTER_ASN}`,
      `  peerAddress: ${routerIPv4}`,
      `  bfdProfile: ${bfd.name}`,
      '',
    ].join('\n')}`,
    [
      ...meta('BFDProfile', bfd.name),
      `  receiveInterval: ${bfd.receiveMs}`,
      `  transmitInterval: ${bfd.transmitMs}`,
      `  detectMultiplier: ${bfd.multiplier}`,
      '',
    ].join('\n'),
    `# Routed addresses: outside the lab segment, reached through the router. Only services that ask get one.\n${pool(LAB_BGP_POOL, LAB_BGP_POOL_V4, false)}`,
    [...meta('BGPAdvertisement', LAB_BGP_POOL), '  ipAddressPools:', `    - ${LAB_BGP_POOL}`, ''].join('\n'),
    `# Advertised over BGP by every node; the router spreads connections over them (ECMP).\n${serviceDoc('web-bgp', [`metallb.io/address-pool: ${LAB_BGP_POOL}`], [])}`,
  ];
}

function advertisement(): string {
  return [
    'apiVersion: metallb.io/v1beta1',
    'kind: L2Advertisement',
    'metadata:',
    '  name: lab',
    '  namespace: metallb-system',
    'spec:',
    '  ipAddressPools:',
    '    - lab',
    '    - lab-v6',
    '',
  ].join('\n');
}

function nodeDoc(name: string): string {
  return [
    'apiVersion: v1',
    'kind: Node',
    'metadata:',
    `  name: ${name}`,
    '  annotations:',
    `    mlb.io/subnets: ${LAB_SUBNET_V4},${LAB_SUBNET_V6}`,
    '',
  ].join('\n');
}

function healthAnnotations(): string[] {
  return [
    `mlb.io/health-check: ${HEALTH.url}`,
    `mlb.io/health-check-interval: ${HEALTH.interval}`,
    `mlb.io/health-check-rise: "${HEALTH.rise}"`,
    `mlb.io/health-check-fall: "${HEALTH.fall}"`,
  ];
}

function web(): string {
  return `# No IP named: the allocator picks one from the pools.\n${serviceDoc('web', healthAnnotations(), [])}`;
}

function api(): string {
  return `# An IP named by the user; no health check, so any live node may hold it.\n${serviceDoc('api', [`metallb.io/loadBalancerIPs: ${LAB_API_IP}`], [])}`;
}

function webV6(): string {
  return `# IPv6 only, from the IPv6 pool.\n${serviceDoc('web-v6', ['metallb.io/address-pool: lab-v6', ...healthAnnotations()], ['  ipFamilyPolicy: SingleStack', '  ipFamilies: [IPv6]'])}`;
}

function serviceDoc(name: string, annotations: readonly string[], specExtra: readonly string[]): string {
  return [
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    `  name: ${name}`,
    '  namespace: demo',
    ...(annotations.length > 0 ? ['  annotations:', ...annotations.map((a) => `    ${a}`)] : []),
    'spec:',
    '  type: LoadBalancer',
    ...specExtra,
    '  ports:',
    '    - name: http',
    `      port: ${LAB_HTTP_PORT}`,
    '      protocol: TCP',
    '',
  ].join('\n');
}
