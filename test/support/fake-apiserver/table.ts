/**
 * Server-side printing (meta.k8s.io/v1 Table), what `kubectl get` asks for with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io`: columns and one row of cells per object, so that kubectl
 * shows a Service's EXTERNAL-IP or a ServiceL2Status' node as on a cluster. Services get the apiserver's columns
 * (pkg/printers/internalversion), MetalLB kinds the printer columns of their CRDs (MetalLB v0.16
 * config/crd/bases), everything else Name and Age.
 */
import { isPlainObject, valueAtPath, type KubeObject } from './kube-object';
import type { ResourceType } from './resource-catalog';

interface Column {
  name: string;
  type: string;
  format?: string;
  cell: (object: KubeObject, now: Date) => unknown;
}

export function wantsTable(accept: string | undefined): boolean {
  const first = (accept ?? '').split(',')[0] ?? '';
  return /(^|;)\s*as=Table(;|$)/.test(first);
}

/** kubectl's HumanDuration, the AGE column's text. */
export function humanAge(from: string | undefined, now: Date): string {
  if (from === undefined) return '<unknown>';
  const seconds = Math.max(0, Math.floor((now.getTime() - Date.parse(from)) / 1000));
  const minutes = Math.floor(seconds / 60);
  const hours = Math.floor(minutes / 60);
  if (seconds < 120) return `${seconds}s`;
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  return `${Math.floor(hours / 24)}d`;
}

const NAME: Column = { name: 'Name', type: 'string', format: 'name', cell: (object) => object.metadata.name ?? '' };
const AGE: Column = { name: 'Age', type: 'string', cell: (object, now) => humanAge(object.metadata.creationTimestamp, now) };

/** A CRD printer column: the JSONPath's value, lists and objects printed as JSON (as kubectl's JSONPath does). */
function printerColumn(name: string, path: string): Column {
  return {
    name,
    type: 'string',
    cell: (object) => {
      const value = valueAtPath(object, path);
      if (value === undefined || value === null) return null;
      return typeof value === 'string' ? value : JSON.stringify(value);
    },
  };
}

function serviceExternalIP(service: KubeObject): string {
  const spec = isPlainObject(service['spec']) ? service['spec'] : {};
  const ingress = valueAtPath(service, 'status.loadBalancer.ingress');
  const ips = Array.isArray(ingress) ? ingress.filter(isPlainObject).map((entry) => entry['ip'] ?? entry['hostname']) : [];
  const external = Array.isArray(spec['externalIPs']) ? spec['externalIPs'] : [];
  const all = [...external, ...ips].filter((ip): ip is string => typeof ip === 'string');
  if (all.length > 0) return all.join(',');
  return spec['type'] === 'LoadBalancer' ? '<pending>' : '<none>';
}

function servicePorts(service: KubeObject): string {
  const ports = valueAtPath(service, 'spec.ports');
  if (!Array.isArray(ports) || ports.length === 0) return '<none>';
  return ports
    .filter(isPlainObject)
    .map(
      (port) =>
        `${String(port['port'])}${port['nodePort'] !== undefined ? `:${String(port['nodePort'])}` : ''}/${String(port['protocol'] ?? 'TCP')}`,
    )
    .join(',');
}

const SERVICE_COLUMNS: Column[] = [
  NAME,
  { name: 'Type', type: 'string', cell: (object) => valueAtPath(object, 'spec.type') ?? 'ClusterIP' },
  { name: 'Cluster-IP', type: 'string', cell: (object) => valueAtPath(object, 'spec.clusterIP') ?? '<none>' },
  { name: 'External-IP', type: 'string', cell: serviceExternalIP },
  { name: 'Port(s)', type: 'string', cell: servicePorts },
  AGE,
];

const METALLB_COLUMNS: Record<string, Column[]> = {
  ipaddresspools: [
    printerColumn('Auto Assign', 'spec.autoAssign'),
    printerColumn('Avoid Buggy IPs', 'spec.avoidBuggyIPs'),
    printerColumn('Addresses', 'spec.addresses'),
  ],
  l2advertisements: [
    printerColumn('IPAddressPools', 'spec.ipAddressPools'),
    printerColumn('Interfaces', 'spec.interfaces'),
    printerColumn('Node Selectors', 'spec.nodeSelectors'),
  ],
  servicel2statuses: [
    printerColumn('Allocated Node', 'status.node'),
    printerColumn('Service Name', 'status.serviceName'),
    printerColumn('Service Namespace', 'status.serviceNamespace'),
  ],
  servicebgpstatuses: [
    printerColumn('Node', 'status.node'),
    printerColumn('Service Name', 'status.serviceName'),
    printerColumn('Service Namespace', 'status.serviceNamespace'),
  ],
  configurationstates: [printerColumn('Result', 'status.result'), printerColumn('ErrorSummary', 'status.errorSummary')],
};

function columnsFor(type: ResourceType): Column[] {
  if (type.group === '' && type.plural === 'services') return SERVICE_COLUMNS;
  const custom = type.group === 'metallb.io' ? METALLB_COLUMNS[type.plural] : undefined;
  return custom ? [NAME, ...custom, AGE] : [NAME, AGE];
}

export function tableOf(type: ResourceType, objects: KubeObject[], resourceVersion: string, now: Date = new Date()): unknown {
  const columns = columnsFor(type);
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion },
    columnDefinitions: columns.map((column) => ({
      name: column.name,
      type: column.type,
      format: column.format ?? '',
      description: '',
      priority: 0,
    })),
    rows: objects.map((object) => ({
      cells: columns.map((column) => column.cell(object, now)),
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata },
    })),
  };
}
