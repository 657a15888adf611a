/**
 * bench/scale's configuration file, pure: one IPAddressPool, one L2Advertisement and N LoadBalancer Services, each
 * pinned to its own IP (metallb.io/loadBalancerIPs) so the bench knows every VIP before the daemon starts (ARP
 * requests sent while it binds need targets). About 200 bytes per Service: 10,000 of them are 2 MB, as a real file
 * of that many Services would be.
 *
 * Addresses: the VIPs live in VIP_SUBNET, a private range (RFC 1918) beside the lab's 10.213.0.0/24, which the
 * node's eth0 also gets an address in (NODE_VIP_SUBNET_ADDRESS): VIPs in an interface's own subnet, as on a real
 * segment, so the daemon answers on eth0 by its subnet check and not by its answer-everywhere fallback.
 */

const VIP_PREFIX = '10.214';
/** The VIPs' subnet as the hosts' eth0 holds it: 10.214.0.0-10.214.63.255, the VIPs from its .16.0 on. */
const VIP_SUBNET_BITS = 18;

/**
 * Host number `n`'s second address on eth0, in the VIPs' subnet (10.214.0.n): one each when several nodes of a lab
 * hold VIPs (bench/failover, bench/gossip-soak), so no two hosts claim the same address on the segment. Only the
 * lab's namespaces ever see it.
 */
export function vipSubnetAddress(n: number): string {
  if (!Number.isInteger(n) || n < 1 || n > 254)
    throw new RangeError(`no host number ${n} in ${VIP_PREFIX}.0.0/${VIP_SUBNET_BITS} (1..254)`);
  return `${VIP_PREFIX}.0.${n}/${VIP_SUBNET_BITS}`;
}

/** The node's second address on eth0 in bench/scale (one node: the lab's second host). */
export const NODE_VIP_SUBNET_ADDRESS = vipSubnetAddress(2);
/** VIPs start at 10.214.16.1, clear of the node's own .0.2; each /24 gives 254 (no .0, no .255). */
const FIRST_THIRD_OCTET = 16;
const LAST_THIRD_OCTET = 63;
const HOSTS_PER_OCTET = 254;
/** Every VIP the subnet holds: 48 x 254. */
export const MAX_SERVICES = (LAST_THIRD_OCTET - FIRST_THIRD_OCTET + 1) * HOSTS_PER_OCTET;

const SERVICE_NAMESPACE = 'scale';

/** The i-th VIP (0-based). */
export function vipOf(i: number): string {
  if (!Number.isInteger(i) || i < 0 || i >= MAX_SERVICES) throw new RangeError(`no VIP number ${i} (0..${MAX_SERVICES - 1})`);
  return `${VIP_PREFIX}.${FIRST_THIRD_OCTET + Math.floor(i / HOSTS_PER_OCTET)}.${1 + (i % HOSTS_PER_OCTET)}`;
}

export function vipsOf(count: number): string[] {
  return Array.from({ length: count }, (_, i) => vipOf(i));
}

function serviceName(i: number): string {
  return `svc-${String(i + 1).padStart(5, '0')}`;
}

function serviceYaml(i: number): string {
  return `apiVersion: v1
kind: Service
metadata:
  name: ${serviceName(i)}
  namespace: ${SERVICE_NAMESPACE}
  annotations:
    metallb.io/loadBalancerIPs: ${vipOf(i)}
spec:
  type: LoadBalancer
  ports: [{ port: 80, protocol: TCP }]
`;
}

const POOL_YAML = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: scale, namespace: metallb-system }
spec:
  addresses: [${VIP_PREFIX}.${FIRST_THIRD_OCTET}.0-${VIP_PREFIX}.${LAST_THIRD_OCTET}.255]
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: { name: scale, namespace: metallb-system }
`;

/**
 * The file with `services` Services; `comment` is appended as a YAML comment (a reload that changes the text but
 * not the configuration).
 */
export function scaleConfig(services: number, comment?: string): string {
  if (services > MAX_SERVICES)
    throw new RangeError(`at most ${MAX_SERVICES} services fit ${VIP_PREFIX}.${FIRST_THIRD_OCTET}-${LAST_THIRD_OCTET}`);
  const parts = [POOL_YAML];
  for (let i = 0; i < services; i++) parts.push(serviceYaml(i));
  return parts.join('---\n') + (comment ? `# ${comment}\n` : '');
}

/** node-0001 .. : the live nodes given to `mlb explain --nodes`. */
export function nodeNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `node-${String(i + 1).padStart(4, '0')}`);
}

/** The addresses `ip -br addr show` prints for one interface, without their prefix length. */
export function parseBriefAddresses(text: string): string[] {
  const fields = text.trim().split(/\s+/);
  // "mlb0  UNKNOWN  10.214.16.1/32 10.214.16.2/32 ...": the name and the state come first.
  return fields
    .slice(2)
    .filter((f) => f.includes('/'))
    .map((f) => f.slice(0, f.indexOf('/')));
}
