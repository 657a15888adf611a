/**
 * What the apiserver does to a Service on its way in (pkg/apis/core/v1/defaults.go SetDefaults_Service, the service
 * REST allocators and pkg/registry/core/service/strategy.go, Kubernetes 1.32): cluster IPs per ipFamilyPolicy from
 * the service CIDRs, node ports for NodePort/LoadBalancer, the defaulted policies, `ipMode: VIP` on load-balancer
 * ingress (LoadBalancerIPMode, on by default since 1.30; switchable to imitate older servers), the type-dependent
 * fields dropped when the type changes, and the immutable clusterIP / loadBalancerClass.
 */
import { invalid } from './api-error';
import { clone, isPlainObject, type KubeObject } from './kube-object';
import { formatIP, parseCIDR, parseIP, cidrSize, type CIDR } from '../../../src/ip';

/** The kube-apiserver default --service-node-port-range. */
const NODE_PORT_FIRST = 30000;
const NODE_PORT_LAST = 32767;

export interface ServiceDefaultsOptions {
  /** Service CIDRs, primary family first (kube-apiserver --service-cluster-ip-range); one entry = single-stack cluster. */
  serviceCIDRs: CIDR[];
  /** LoadBalancerIPMode: default `ipMode: VIP` on ingress entries with an IP (Kubernetes >= 1.30). */
  defaultIPMode: boolean;
}

export function parseServiceCIDRs(texts: readonly string[]): CIDR[] {
  return texts.map((text) => {
    const cidr = parseCIDR(text);
    if (!cidr) throw new Error(`fake apiserver: bad service CIDR ${text}`);
    return cidr;
  });
}

/** What other Services already hold, so that allocations do not collide. */
export interface ServiceAllocations {
  clusterIPs: Set<string>;
  nodePorts: Set<number>;
}

type Spec = Record<string, unknown>;

const familyName = (cidr: CIDR): string => (cidr.ip.family === 4 ? 'IPv4' : 'IPv6');

function allocateClusterIP(cidr: CIDR, used: Set<string>): string {
  const size = cidrSize(cidr);
  // Skip the network address (offset 0), as the real allocator does, and the broadcast for IPv4.
  for (let offset = 1n; offset < size - 1n; offset++) {
    const text = formatIP({ family: cidr.ip.family, value: cidr.ip.value + offset });
    if (!used.has(text)) {
      used.add(text);
      return text;
    }
  }
  throw new Error(`fake apiserver: service CIDR exhausted`);
}

function allocateNodePort(used: Set<number>): number {
  for (let port = NODE_PORT_FIRST; port <= NODE_PORT_LAST; port++) {
    if (!used.has(port)) {
      used.add(port);
      return port;
    }
  }
  throw new Error('fake apiserver: node ports exhausted');
}

function ipFamilyOf(address: string): string | undefined {
  const ip = parseIP(address);
  return ip && (ip.family === 4 ? 'IPv4' : 'IPv6');
}

function defaultClusterIPs(name: string, spec: Spec, options: ServiceDefaultsOptions, allocations: ServiceAllocations): void {
  if (spec['type'] === 'ExternalName') return;
  const policy = (spec['ipFamilyPolicy'] as string | undefined) ?? 'SingleStack';
  spec['ipFamilyPolicy'] = policy;
  const cidrByFamily = new Map(options.serviceCIDRs.map((cidr) => [familyName(cidr), cidr]));
  const clusterFamilies = [...cidrByFamily.keys()];
  if (policy === 'RequireDualStack' && clusterFamilies.length < 2) {
    throw invalid('Service', '', name, [
      'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
    ]);
  }
  let clusterIPs = Array.isArray(spec['clusterIPs']) ? (spec['clusterIPs'] as string[]) : [];
  if (clusterIPs.length === 0 && typeof spec['clusterIP'] === 'string' && spec['clusterIP'] !== '') clusterIPs = [spec['clusterIP']];
  const headless = clusterIPs[0] === 'None';
  let families = Array.isArray(spec['ipFamilies']) ? [...(spec['ipFamilies'] as string[])] : [];
  if (families.length === 0)
    families = headless ? [] : clusterIPs.map(ipFamilyOf).filter((family): family is string => family !== undefined);
  if (families.length === 0) families = [clusterFamilies[0] ?? 'IPv4'];
  const wantsTwo = policy !== 'SingleStack' && clusterFamilies.length > 1;
  if (wantsTwo && families.length === 1) families.push(clusterFamilies.find((family) => family !== families[0]) ?? 'IPv6');
  for (const family of families) {
    if (!cidrByFamily.has(family))
      throw invalid('Service', '', name, [`spec.ipFamilies: Invalid value: "${family}": not configured on this cluster`]);
  }
  spec['ipFamilies'] = families;
  if (headless) {
    spec['clusterIP'] = 'None';
    spec['clusterIPs'] = ['None'];
    return;
  }
  const allocated = families.map(
    (family, index) => clusterIPs[index] ?? allocateClusterIP(cidrByFamily.get(family)!, allocations.clusterIPs),
  );
  spec['clusterIPs'] = allocated;
  spec['clusterIP'] = allocated[0];
}

function needsNodePorts(spec: Spec): boolean {
  return spec['type'] === 'NodePort' || (spec['type'] === 'LoadBalancer' && spec['allocateLoadBalancerNodePorts'] !== false);
}

function defaultPortsAndPolicies(spec: Spec, allocations: ServiceAllocations): void {
  const type = spec['type'];
  if (type !== 'ExternalName') {
    spec['sessionAffinity'] ??= 'None';
    spec['internalTrafficPolicy'] ??= 'Cluster';
  }
  const ports = Array.isArray(spec['ports']) ? (spec['ports'] as Record<string, unknown>[]) : [];
  for (const port of ports) {
    if (!isPlainObject(port)) continue;
    port['protocol'] ??= 'TCP';
    if (type !== 'ExternalName') port['targetPort'] ??= port['port'] ?? 0;
    if (needsNodePorts(spec) && (port['nodePort'] === undefined || port['nodePort'] === 0))
      port['nodePort'] = allocateNodePort(allocations.nodePorts);
    if (!needsNodePorts(spec)) delete port['nodePort'];
  }
  if (type === 'NodePort' || type === 'LoadBalancer') spec['externalTrafficPolicy'] ??= 'Cluster';
  else delete spec['externalTrafficPolicy'];
  if (type === 'LoadBalancer') {
    spec['allocateLoadBalancerNodePorts'] ??= true;
    if (spec['externalTrafficPolicy'] === 'Local') spec['healthCheckNodePort'] ??= allocateNodePort(allocations.nodePorts);
    else delete spec['healthCheckNodePort'];
  } else {
    delete spec['allocateLoadBalancerNodePorts'];
    delete spec['healthCheckNodePort'];
  }
}

/** `ipMode: VIP` on every ingress entry with an ip and no ipMode (SetDefaults_LoadBalancerStatus). */
export function defaultIngressIPMode(service: KubeObject, options: ServiceDefaultsOptions): void {
  if (!options.defaultIPMode) return;
  const status = service['status'];
  const loadBalancer = isPlainObject(status) ? status['loadBalancer'] : undefined;
  const ingress = isPlainObject(loadBalancer) ? loadBalancer['ingress'] : undefined;
  if (!Array.isArray(ingress)) return;
  for (const entry of ingress) if (isPlainObject(entry) && typeof entry['ip'] === 'string' && entry['ip'] !== '') entry['ipMode'] ??= 'VIP';
}

function specOf(service: KubeObject): Spec {
  if (!isPlainObject(service['spec'])) service['spec'] = {};
  return service['spec'] as Spec;
}

/** A Service being created: defaults and allocations; status starts empty (the create strategy clears it). */
export function defaultNewService(input: KubeObject, options: ServiceDefaultsOptions, allocations: ServiceAllocations): KubeObject {
  const service = clone(input);
  const spec = specOf(service);
  spec['type'] ??= 'ClusterIP';
  defaultClusterIPs(service.metadata.name ?? '', spec, options, allocations);
  defaultPortsAndPolicies(spec, allocations);
  service['status'] = { loadBalancer: {} };
  return service;
}

/**
 * A Service being updated (PUT, PATCH, apply): allocated values the writer left out are kept, type-dependent fields
 * go when the type no longer needs them, clusterIP and loadBalancerClass may not change.
 */
export function defaultUpdatedService(
  input: KubeObject,
  old: KubeObject,
  options: ServiceDefaultsOptions,
  allocations: ServiceAllocations,
): KubeObject {
  const service = clone(input);
  const name = service.metadata.name ?? '';
  const spec = specOf(service);
  const oldSpec = specOf(clone(old));
  spec['type'] ??= 'ClusterIP';
  const typeChanged = spec['type'] !== oldSpec['type'];
  if (spec['type'] !== 'ExternalName' && oldSpec['type'] !== 'ExternalName') {
    // An empty value on update means "keep what was allocated" (PatchAllocatedValues), as an absent one does.
    for (const field of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) {
      const value = spec[field];
      if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) spec[field] = clone(oldSpec[field]);
    }
    if (spec['clusterIP'] !== oldSpec['clusterIP']) {
      throw invalid('Service', '', name, [
        `spec.clusterIPs[0]: Invalid value: ${JSON.stringify(spec['clusterIP'])}: may not change once set`,
      ]);
    }
  }
  defaultClusterIPs(name, spec, options, allocations);
  if (oldSpec['type'] === 'LoadBalancer' && spec['type'] === 'LoadBalancer' && spec['loadBalancerClass'] !== oldSpec['loadBalancerClass']) {
    throw invalid('Service', '', name, [
      `spec.loadBalancerClass: Invalid value: ${JSON.stringify(spec['loadBalancerClass'] ?? null)}: may not change once set`,
    ]);
  }
  if (spec['type'] !== 'LoadBalancer') {
    if (spec['loadBalancerClass'] === oldSpec['loadBalancerClass']) delete spec['loadBalancerClass'];
    if (isPlainObject(service['status'])) (service['status'] as Record<string, unknown>)['loadBalancer'] = {};
  }
  keepAllocatedNodePorts(spec, oldSpec, typeChanged);
  defaultPortsAndPolicies(spec, allocations);
  return service;
}

/** A writer that omits nodePort keeps the allocated one (PatchAllocatedValues), matched by port number. */
function keepAllocatedNodePorts(spec: Spec, oldSpec: Spec, typeChanged: boolean): void {
  if (!needsNodePorts(spec)) return;
  const oldPorts = Array.isArray(oldSpec['ports']) ? (oldSpec['ports'] as Record<string, unknown>[]) : [];
  const ports = Array.isArray(spec['ports']) ? (spec['ports'] as Record<string, unknown>[]) : [];
  for (const port of ports) {
    const previous = oldPorts.find((candidate) => isPlainObject(candidate) && candidate['port'] === port['port']);
    if (previous && (port['nodePort'] === undefined || port['nodePort'] === 0) && previous['nodePort'] !== undefined)
      port['nodePort'] = previous['nodePort'];
  }
  if (!typeChanged && spec['externalTrafficPolicy'] === 'Local') spec['healthCheckNodePort'] ??= oldSpec['healthCheckNodePort'];
}

/** Cluster IPs and node ports held by the given Services (the allocators' view). */
export function allocationsOf(services: KubeObject[]): ServiceAllocations {
  const allocations: ServiceAllocations = { clusterIPs: new Set(), nodePorts: new Set() };
  for (const service of services) {
    const spec = isPlainObject(service['spec']) ? service['spec'] : {};
    for (const ip of Array.isArray(spec['clusterIPs']) ? spec['clusterIPs'] : [])
      if (typeof ip === 'string') allocations.clusterIPs.add(ip);
    for (const port of Array.isArray(spec['ports']) ? spec['ports'] : []) {
      if (isPlainObject(port) && typeof port['nodePort'] === 'number') allocations.nodePorts.add(port['nodePort']);
    }
    if (typeof spec['healthCheckNodePort'] === 'number') allocations.nodePorts.add(spec['healthCheckNodePort']);
  }
  return allocations;
}
