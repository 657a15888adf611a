/**
 * v1 Service: the fields allocation and election read. Every Service in the file is kept, whatever its type;
 * only type LoadBalancer services are given or announce an address downstream (MetalLB's speaker withdraws
 * others with reason notLoadBalancer), so a ClusterIP service in the file is valid and simply ignored.
 * metadata.annotations are kept raw: the allocator reads MetalLB's annotations through serviceAnnotation().
 */
import { type IP, parseIP } from '../../ip';
import type {
  ExternalTrafficPolicy,
  IPFamilyName,
  IPFamilyPolicy,
  ObjectMeta,
  Service,
  ServicePort,
  ServiceProtocol,
  SourcePosition,
} from '../types';
import { DiagnosticCode } from './diagnostic-codes';
import { didYouMean } from './did-you-mean';
import type { MapReader } from './field-reader';
import { parseHealthCheck } from './health-check';
import { readLabels } from './metadata';
import { type DefaultedFamilies, defaultFamilies, defaultedFamiliesText, requestedFamilies } from './service-families';
import { ANNOTATION_PREFIX, LEGACY_ANNOTATION_PREFIX, ServiceAnnotation } from '../well-known';

const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'] as const;
/** The Kubernetes default when spec.type is not given. */
const DEFAULT_SERVICE_TYPE = 'ClusterIP';
const PROTOCOLS: readonly ServiceProtocol[] = ['TCP', 'UDP', 'SCTP'];
/** Kubernetes' default protocol for a port. */
const DEFAULT_PROTOCOL: ServiceProtocol = 'TCP';
const TRAFFIC_POLICIES: readonly ExternalTrafficPolicy[] = ['Cluster', 'Local'];
const DEFAULT_TRAFFIC_POLICY: ExternalTrafficPolicy = 'Cluster';
const FAMILY_POLICIES: readonly IPFamilyPolicy[] = ['SingleStack', 'PreferDualStack', 'RequireDualStack'];
const DEFAULT_FAMILY_POLICY: IPFamilyPolicy = 'SingleStack';
const FAMILIES: readonly IPFamilyName[] = ['IPv4', 'IPv6'];
const PORT_MIN = 1;
const PORT_MAX = 65535;
/** Fields of a port Kubernetes has and mlb does not read. */
export const IGNORED_PORT_FIELDS: readonly string[] = ['targetPort', 'nodePort', 'appProtocol'];
/** Fields of a status.loadBalancer.ingress entry mlb does not read (a hostname entry carries no IP). */
export const IGNORED_INGRESS_FIELDS: readonly string[] = ['hostname', 'ipMode', 'ports'];
/** Service status fields mlb does not read. */
export const IGNORED_STATUS_FIELDS: readonly string[] = ['conditions'];

/** The fields whose positions a Service keeps (Service.fieldPositions): those that decide its address. */
const SERVICE_POSITION_FIELDS: readonly string[] = [
  ...[ANNOTATION_PREFIX, LEGACY_ANNOTATION_PREFIX].flatMap((prefix) =>
    Object.values(ServiceAnnotation).map((name) => `metadata.annotations.${prefix}${name}`),
  ),
  'spec',
  'spec.type',
  'spec.ports',
  'spec.loadBalancerIP',
  'spec.ipFamilies',
  'spec.ipFamilyPolicy',
];

/**
 * Service spec fields Kubernetes has and mlb does not read; accepted so cluster YAML can be pasted. The
 * speaker's informer leaves them out of what it keeps (sources/k8s/kept-fields.ts), as it does the port and
 * ingress fields below.
 */
export const IGNORED_SPEC_FIELDS: readonly string[] = [
  'clusterIP',
  'clusterIPs',
  'sessionAffinity',
  'sessionAffinityConfig',
  'internalTrafficPolicy',
  'healthCheckNodePort',
  'loadBalancerSourceRanges',
  'allocateLoadBalancerNodePorts',
  'externalIPs',
  'externalName',
  'publishNotReadyAddresses',
  'trafficDistribution',
];

/** One of a fixed set of strings, with a suggestion for near misses ("Loadbalancer"). */
export function readEnum<T extends string>(r: MapReader, key: string, allowed: readonly T[]): T | undefined {
  const text = r.string(key);
  if (text === undefined) return undefined;
  if ((allowed as readonly string[]).includes(text)) return text as T;
  r.error(
    DiagnosticCode.invalidValue,
    `invalid ${key} "${text}" in ${r.where}: must be one of ${allowed.join(', ')}${didYouMean(text, allowed)}`,
    key,
  );
  return undefined;
}

export function readService(top: MapReader, meta: ObjectMeta): Service {
  const spec = top.map('spec');
  spec?.ignore(...IGNORED_SPEC_FIELDS);
  const type = (spec && readEnum(spec, 'type', SERVICE_TYPES)) ?? DEFAULT_SERVICE_TYPE;
  const ports = spec ? readPorts(spec, type) : [];
  const selector = spec ? readLabels(spec, 'selector') : {};
  const loadBalancerIP = spec?.string('loadBalancerIP');
  if (spec && loadBalancerIP !== undefined && loadBalancerIP !== '' && !parseIP(loadBalancerIP)) {
    spec.error(DiagnosticCode.invalidIP, `invalid loadBalancerIP "${loadBalancerIP}": must be a valid IP address`, 'loadBalancerIP');
  }
  const loadBalancerClass = spec?.string('loadBalancerClass');
  const externalTrafficPolicy = (spec && readEnum(spec, 'externalTrafficPolicy', TRAFFIC_POLICIES)) ?? DEFAULT_TRAFFIC_POLICY;
  const writtenPolicy = spec && readEnum(spec, 'ipFamilyPolicy', FAMILY_POLICIES);
  const written = spec ? readFamilies(spec, writtenPolicy ?? DEFAULT_FAMILY_POLICY) : [];
  const chosen = written.length > 0 ? undefined : defaultFamilies(requestedFamilies(meta.annotations, loadBalancerIP), writtenPolicy);
  const ipFamilyPolicy = writtenPolicy ?? chosen?.policy ?? DEFAULT_FAMILY_POLICY;
  const ipFamilies = completeDualStack(chosen?.families ?? written, ipFamilyPolicy);
  if (chosen && type === 'LoadBalancer') noteDefaultedFamilies(top, meta, ipFamilies, chosen);
  checkHealthCheck(top, meta);
  const fieldPositions = servicePositions(top);
  // Field by field, in this order, not with `...(x ? { x } : {})` between fields: V8 gives each object made by a
  // spread followed by more fields a hidden class of its own, and a cluster has 10,000 Services.
  const service: Partial<Writable<Service>> = { kind: 'Service', meta, type, ports, selector };
  if (loadBalancerIP) service.loadBalancerIP = loadBalancerIP;
  if (loadBalancerClass) service.loadBalancerClass = loadBalancerClass;
  service.externalTrafficPolicy = externalTrafficPolicy;
  service.ipFamilyPolicy = ipFamilyPolicy;
  service.ipFamilies = ipFamilies;
  service.ingressIPs = readIngress(top);
  if (fieldPositions) service.fieldPositions = fieldPositions;
  return service as Service;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** Says, at the field it came from, which families mlb gave a Service that wrote none (service-families.ts). */
function noteDefaultedFamilies(top: MapReader, meta: ObjectMeta, families: readonly IPFamilyName[], chosen: DefaultedFamilies): void {
  const field = chosen.from?.field;
  const path = field === undefined ? 'spec' : field.startsWith('spec.') ? field : `metadata.annotations.${field}`;
  const position = top.scope.positions.get(path) ?? top.position;
  top.scope.note(DiagnosticCode.ipFamiliesDefaulted, defaultedFamiliesText(`${meta.namespace}/${meta.name}`, families, chosen), position);
}

/**
 * Where the fields that decide a Service's address were written, so a service that gets none is reported at
 * the field to change (allocation problems are found after parsing, by the allocator).
 */
function servicePositions(top: MapReader): Record<string, SourcePosition> | undefined {
  const found = SERVICE_POSITION_FIELDS.map((path) => [path, top.scope.positions.get(path)] as const).filter(
    (entry): entry is readonly [string, SourcePosition] => entry[1] !== undefined,
  );
  return found.length === 0 ? undefined : Object.fromEntries(found);
}

/**
 * mlb.io/health-check and its options: refused here, with the annotation's position, so a check the daemon
 * could not run never gets past `mlb validate` or a reload. The daemon reads the same annotations again with
 * the same parseHealthCheck.
 */
function checkHealthCheck(top: MapReader, meta: ObjectMeta): void {
  const parsed = parseHealthCheck(meta.annotations);
  if (parsed.ok) return;
  for (const problem of parsed.errors) {
    const position = top.scope.positions.get(`metadata.annotations.${problem.annotation}`) ?? top.position;
    top.scope.error(DiagnosticCode.invalidHealthCheck, `${problem.message} (Service ${meta.namespace}/${meta.name})`, position);
  }
}

function readPorts(spec: MapReader, type: string): ServicePort[] {
  const items = spec.mapList('ports');
  if (items.length === 0 && type === 'LoadBalancer' && !spec.has('ports')) {
    // Kubernetes requires ports on every Service but ExternalName; sharing an IP needs them too.
    spec.missing('ports');
  }
  const ports: ServicePort[] = [];
  const seenPorts = new Set<string>();
  const seenNames = new Set<string>();
  for (const item of items) {
    const r = item.value;
    const name = r.string('name');
    const protocol = readEnum(r, 'protocol', PROTOCOLS) ?? DEFAULT_PROTOCOL;
    const port = r.integer('port', { required: true });
    r.ignore(...IGNORED_PORT_FIELDS);
    if (port !== undefined && (port < PORT_MIN || port > PORT_MAX)) {
      r.error(DiagnosticCode.outOfRange, `invalid port ${port}: must be between ${PORT_MIN} and ${PORT_MAX}`, 'port');
      continue;
    }
    if (items.length > 1 && !name) {
      r.error(DiagnosticCode.missingField, 'a port must have a name when the Service has more than one port');
    }
    if (name) {
      if (seenNames.has(name)) r.error(DiagnosticCode.duplicateEntry, `duplicate port name "${name}"`, 'name');
      seenNames.add(name);
    }
    if (port === undefined) continue;
    const key = `${protocol}/${port}`;
    if (seenPorts.has(key)) r.error(DiagnosticCode.duplicateEntry, `duplicate port ${key}`, 'port');
    seenPorts.add(key);
    ports.push(name ? { name, protocol, port } : { protocol, port });
  }
  return ports;
}

/** The families written, by Kubernetes' rules: one or two distinct families; SingleStack has one. */
function readFamilies(spec: MapReader, policy: IPFamilyPolicy): IPFamilyName[] {
  const families: IPFamilyName[] = [];
  for (const item of spec.stringList('ipFamilies')) {
    if (!(FAMILIES as readonly string[]).includes(item.value)) {
      spec.scope.error(
        DiagnosticCode.invalidValue,
        `invalid ipFamilies entry "${item.value}": must be IPv4 or IPv6${didYouMean(item.value, FAMILIES)}`,
        item.position,
      );
    } else if (families.includes(item.value as IPFamilyName)) {
      spec.scope.error(DiagnosticCode.duplicateEntry, `duplicate ipFamilies entry "${item.value}"`, item.position);
    } else {
      families.push(item.value as IPFamilyName);
    }
  }
  if (policy === 'SingleStack' && families.length > 1) {
    spec.error(DiagnosticCode.invalidValue, 'ipFamilies must have exactly one entry when ipFamilyPolicy is SingleStack', 'ipFamilies');
  }
  return families;
}

/** RequireDualStack with one family: the API server adds the other (and refused the Service otherwise). */
function completeDualStack(families: readonly IPFamilyName[], policy: IPFamilyPolicy): IPFamilyName[] {
  if (policy !== 'RequireDualStack' || families.length !== 1) return [...families];
  return [...families, families[0] === 'IPv4' ? 'IPv6' : 'IPv4'];
}

/** status.loadBalancer.ingress[].ip: the assignment the file records (hostname entries carry no IP). */
function readIngress(top: MapReader): IP[] {
  const status = top.map('status');
  const loadBalancer = status?.map('loadBalancer');
  status?.ignore(...IGNORED_STATUS_FIELDS);
  const ips: IP[] = [];
  for (const item of loadBalancer?.mapList('ingress') ?? []) {
    const r = item.value;
    const text = r.string('ip');
    r.ignore(...IGNORED_INGRESS_FIELDS);
    if (text === undefined) continue;
    const ip = parseIP(text);
    if (ip) ips.push(ip);
    else r.error(DiagnosticCode.invalidIP, `invalid ingress IP "${text}"`, 'ip');
  }
  return ips;
}
