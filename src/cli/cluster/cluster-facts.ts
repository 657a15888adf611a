/**
 * What a cluster read says about each LoadBalancer service, in the words users ask in (MetalLB's troubleshooting
 * questions: "which node announces my service?", "why is my service pending?"): its IPs and pool (the Service
 * status and the metallb.io/ip-allocated-from-pool annotation the controller writes), who announces it (the
 * ServiceL2Status / ServiceBGPStatus objects the speakers write, MetalLB v0.14.4+ / v0.15.0+), and for a service
 * without an IP the reason: the controller's latest AllocationFailed-style Warning event, else what mlb's
 * allocator (MetalLB's rules) says the configuration gives it. Pure.
 */
import { type AllocateServicesOutput, allocateFile } from '../../allocator';
import { allocationHint } from '../../allocator/allocation-hints';
import { formatIP } from '../../ip';
import { type Snapshot, serviceKey } from '../../model';
import type { ApiObject } from '../../sources/k8s/api-object';
import { objectKey } from '../../sources/k8s/api-object';
import { translateCluster } from '../../sources/k8s/translate-cluster';
import type { ClusterRead } from './read-cluster';

/** MetalLB's Event source components (controller/main.go, speaker/main.go: k8s.Config.ProcessName). */
const METALLB_EVENT_COMPONENTS: readonly string[] = ['metallb-controller', 'metallb-speaker'];
/** The controller's Warning reasons that leave a service without an IP (controller/service.go). */
const NO_IP_REASONS = new Set([
  'AllocationFailed',
  'LoadBalancerFailed',
  'not enough clusterips',
  'nolbIPsIPFamily',
  'noclusterIPsIPFamily',
]);
/** The annotation the controller writes with the pool a service's IPs came from (MetalLB v0.13+). */
const POOL_ANNOTATION = 'metallb.io/ip-allocated-from-pool';

export interface Announcer {
  readonly node: string;
  readonly protocol: 'layer2' | 'bgp';
  /** The status object that says so (ServiceL2Status/l2-759gw). */
  readonly object: string;
  /** BGP: the BGPPeer objects it is configured to advertise to; L2: the interfaces, when restricted. */
  readonly via: readonly string[];
}

export interface ClusterEvent {
  readonly lastSeen: string;
  readonly type: string;
  readonly reason: string;
  /** "Service default/web". */
  readonly object: string;
  readonly message: string;
  readonly count: number;
  readonly component: string;
}

export interface ServiceFacts {
  /** "namespace/name". */
  readonly service: string;
  readonly ips: readonly string[];
  readonly pool: string | null;
  readonly announcedBy: readonly Announcer[];
  /** Without an IP: why, in one sentence; null when it has one. */
  readonly pending: string | null;
}

export interface ClusterFacts {
  readonly services: readonly ServiceFacts[];
  readonly events: readonly ClusterEvent[];
  /** The translated configuration (undefined when the cluster's objects do not validate) and its allocation. */
  readonly snapshot: Snapshot | undefined;
  readonly allocation: AllocateServicesOutput | undefined;
}

type Json = Record<string, unknown>;
const record = (value: unknown): Json => (value !== null && typeof value === 'object' ? (value as Json) : {});
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export function clusterFacts(read: ClusterRead): ClusterFacts {
  const { result } = translateCluster(read.objects, read.server, read.secretsUnreadable ? { peerSecrets: 'unreadable' } : {}, read.lbClass);
  const snapshot = result.ok ? result.snapshot : undefined;
  const allocation = snapshot ? allocateFile(snapshot) : undefined;
  const events = metallbEvents(read.events);
  const announcers = announcersByService(read);
  const services = read.objects.services
    .filter((s) => handled(s, read.lbClass))
    .map((s) => {
      const key = objectKey(s);
      const ips = ingressIPs(s);
      return {
        service: key,
        ips,
        pool: s.metadata?.annotations?.[POOL_ANNOTATION] ?? null,
        announcedBy: announcers.get(key) ?? [],
        pending: ips.length > 0 ? null : pendingReason(key, events, snapshot, allocation),
      };
    })
    .sort((a, b) => (a.service < b.service ? -1 : a.service > b.service ? 1 : 0));
  return { services, events, snapshot, allocation };
}

/** As the speaker and controller pick their Services: type LoadBalancer, of this load-balancer class (none: no class). */
function handled(service: ApiObject, lbClass: string | undefined): boolean {
  const spec = record(service.spec);
  return spec.type === 'LoadBalancer' && text(spec.loadBalancerClass) === (lbClass ?? '');
}

function ingressIPs(service: ApiObject): string[] {
  const ingress = record(record(record(service.status).loadBalancer)).ingress;
  return Array.isArray(ingress) ? ingress.map((i) => text(record(i).ip)).filter((ip) => ip !== '') : [];
}

/** MetalLB's events, newest first (lastTimestamp, else eventTime, else firstTimestamp). */
function metallbEvents(events: readonly ApiObject[]): ClusterEvent[] {
  return events
    .map((e): ClusterEvent => {
      const involved = record(e.involvedObject);
      const component = text(record(e.source).component) || text(e.reportingComponent);
      const ns = text(involved.namespace);
      return {
        lastSeen: text(e.lastTimestamp) || text(e.eventTime) || text(e.firstTimestamp),
        type: text(e.type),
        reason: text(e.reason),
        object: `${text(involved.kind)} ${ns ? `${ns}/` : ''}${text(involved.name)}`,
        message: text(e.message),
        count: typeof e.count === 'number' ? e.count : 1,
        component,
      };
    })
    .filter((e) => METALLB_EVENT_COMPONENTS.includes(e.component))
    .sort((a, b) => (a.lastSeen < b.lastSeen ? 1 : a.lastSeen > b.lastSeen ? -1 : 0));
}

/** "namespace/name" -> the nodes whose status objects say they announce it, L2 first, then BGP, by node. */
function announcersByService(read: ClusterRead): Map<string, Announcer[]> {
  const out = new Map<string, Announcer[]>();
  const add = (object: ApiObject, protocol: Announcer['protocol'], kind: string): void => {
    const status = record(object.status);
    const labels = object.metadata?.labels ?? {};
    // A freshly created status object has no status yet (the create drops it): its labels say the same.
    const node = text(status.node) || (labels['metallb.io/node'] ?? '');
    const name = text(status.serviceName) || (labels['metallb.io/service-name'] ?? '');
    const namespace = text(status.serviceNamespace) || (labels['metallb.io/service-namespace'] ?? '');
    if (!node || !name || !namespace) return;
    const via =
      protocol === 'bgp'
        ? (Array.isArray(status.peers) ? status.peers : []).map(text)
        : (Array.isArray(status.interfaces) ? status.interfaces : []).map((i) => text(record(i).name));
    const key = `${namespace}/${name}`;
    out.set(key, [...(out.get(key) ?? []), { node, protocol, object: `${kind}/${object.metadata?.name ?? ''}`, via }]);
  };
  for (const o of read.l2Statuses) add(o, 'layer2', 'ServiceL2Status');
  for (const o of read.bgpStatuses) add(o, 'bgp', 'ServiceBGPStatus');
  for (const list of out.values())
    list.sort((a, b) => (a.protocol === b.protocol ? (a.node < b.node ? -1 : 1) : a.protocol === 'layer2' ? -1 : 1));
  return out;
}

/**
 * Why a service has no IP. The controller's own word first (its newest Warning about the service), since it is
 * what actually happened; then mlb's allocator on the same objects, with its hint; then the plain facts.
 */
function pendingReason(
  key: string,
  events: readonly ClusterEvent[],
  snapshot: Snapshot | undefined,
  allocation: AllocateServicesOutput | undefined,
): string {
  const said = events.find((e) => e.object === `Service ${key}` && e.type === 'Warning' && NO_IP_REASONS.has(e.reason));
  const predicted = predictedReason(key, snapshot, allocation);
  if (said) {
    // The same words from both: said once, with mlb's hint (what to change) after it.
    const agreed = predicted?.startsWith(said.message) === true;
    const after = predicted === undefined ? '' : agreed ? predicted.slice(said.message.length) : `; mlb's allocator: ${predicted}`;
    return `the controller says (${said.reason}, ${said.lastSeen}): ${said.message}${after}`;
  }
  if (predicted) return `mlb's allocator on these objects: ${predicted}`;
  if (!snapshot) return 'the metallb.io configuration is invalid (mlb validate --kubeconfig shows why), so no IP can be given';
  const result = allocation?.results.get(key);
  if (result?.status === 'assigned') {
    return `the configuration has an IP for it (${result.ips.map(formatIP).join(', ')}) but the controller has not written it: is the controller running?`;
  }
  if (result?.status === 'skipped') return `not handled: ${result.message}`;
  return 'no event and no allocation problem explain it: is the controller running?';
}

function predictedReason(key: string, snapshot: Snapshot | undefined, allocation: AllocateServicesOutput | undefined): string | undefined {
  const result = allocation?.results.get(key);
  if (!snapshot || !allocation || result?.status !== 'failed') return undefined;
  const service = snapshot.services.find((s) => serviceKey(s) === key);
  const hint = service ? allocationHint(service, result, { pools: snapshot.pools, services: snapshot.services, allocation }) : undefined;
  return `${result.event}${hint ? ` (${hint})` : ''}`;
}
