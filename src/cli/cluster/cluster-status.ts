/**
 * `mlb status --kubeconfig`: the cluster's view, as MetalLB's components wrote it, on one screen: each
 * LoadBalancer service with its IPs, pool and who announces it (or why it is pending), the pools' usage
 * (IPAddressPool status), whether each component's configuration is valid (ConfigurationState) and MetalLB's
 * recent events. The view (clusterStatus) and its text are pure; statusFromCluster is the shell.
 */
import { renderTable } from '../render-table';
import { type OutputFormat, isStructured } from '../output-format';
import { printStructured } from '../structured-output';
import { type ClusterEvent, type ServiceFacts, clusterFacts } from './cluster-facts';
import type { ClusterChoice, ClusterRead } from './read-cluster';

/** Events shown: the newest; more would push the services off the screen (kubectl get events shows them all). */
const MAX_STATUS_EVENTS = 10;
const NONE = '-';

interface PoolUsage {
  readonly pool: string;
  readonly assignedIPv4: number;
  readonly availableIPv4: number;
  readonly assignedIPv6: number;
  readonly availableIPv6: number;
}

interface ComponentState {
  /** "controller", "speaker-node-a". */
  readonly component: string;
  /** Valid | Invalid | Unknown (ConfigurationState status.result). */
  readonly result: string;
  readonly errorSummary: string;
}

interface ClusterStatus {
  readonly apiVersion: 'mlb.io/v1';
  readonly kind: 'ClusterStatus';
  readonly server: string;
  readonly namespace: string;
  /** Nodes with a Running speaker Pod (labels app=metallb,component=speaker). */
  readonly speakers: readonly string[];
  readonly services: readonly ServiceFacts[];
  readonly pools: readonly PoolUsage[];
  readonly configuration: readonly ComponentState[];
  readonly events: readonly ClusterEvent[];
  /** What the cluster does not serve, said once (an older MetalLB). */
  readonly notes: readonly string[];
}

type Json = Record<string, unknown>;
const record = (value: unknown): Json => (value !== null && typeof value === 'object' ? (value as Json) : {});
const count = (value: unknown): number => (typeof value === 'number' ? value : 0);

function clusterStatus(read: ClusterRead): ClusterStatus {
  const facts = clusterFacts(read);
  return {
    apiVersion: 'mlb.io/v1',
    kind: 'ClusterStatus',
    server: read.server,
    namespace: read.namespace,
    speakers: runningSpeakerNodes(read),
    services: facts.services,
    pools: read.objects.ipaddresspools
      .map((p) => {
        const s = record(p.status);
        return {
          pool: p.metadata?.name ?? '',
          assignedIPv4: count(s.assignedIPv4),
          availableIPv4: count(s.availableIPv4),
          assignedIPv6: count(s.assignedIPv6),
          availableIPv6: count(s.availableIPv6),
        };
      })
      .sort((a, b) => (a.pool < b.pool ? -1 : 1)),
    configuration: read.configurationStates
      .map((c) => ({
        component: c.metadata?.name ?? '',
        result: typeof record(c.status).result === 'string' ? (record(c.status).result as string) : 'Unknown',
        errorSummary: typeof record(c.status).errorSummary === 'string' ? (record(c.status).errorSummary as string) : '',
      }))
      .sort((a, b) => (a.component < b.component ? -1 : 1)),
    events: facts.events.slice(0, MAX_STATUS_EVENTS),
    notes: [
      ...read.missing.map((plural) => `the cluster does not serve ${plural} (a MetalLB release before it, or mlb's CRDs not installed)`),
      ...(read.secretsUnreadable
        ? ["you may not list Secrets in the MetalLB namespace: BGP peers' passwordSecret references are not checked"]
        : []),
    ],
  };
}

/** The nodes of Running speaker Pods: the nodes that can announce (MetalLB's memberlist members). */
export function runningSpeakerNodes(read: ClusterRead): string[] {
  const nodes = read.speakerPods
    .filter((p) => record(p.status).phase === 'Running')
    .map((p) => record(p.spec).nodeName)
    .filter((n): n is string => typeof n === 'string' && n !== '');
  return [...new Set(nodes)].sort();
}

function announcedByText(s: ServiceFacts): string {
  if (s.pending !== null) return 'PENDING: no IP (why below)';
  if (s.announcedBy.length === 0) return 'NOBODY (no ServiceL2Status or ServiceBGPStatus names it)';
  return s.announcedBy.map((a) => `${a.node} (${a.protocol}${a.via.length > 0 ? ` via ${a.via.join(',')}` : ''})`).join(', ');
}

function renderClusterStatus(s: ClusterStatus): string {
  const speakers = s.speakers.length > 0 ? `speakers running on ${s.speakers.join(', ')}` : 'no Running speaker Pod found';
  const config =
    s.configuration.length === 0
      ? 'no ConfigurationState objects'
      : s.configuration
          .map((c) => `${c.component} ${c.result}${c.errorSummary ? `: ${c.errorSummary.replace(/\n/g, '; ')}` : ''}`)
          .join(', ');
  const head = `cluster   ${s.server} (namespace ${s.namespace}); ${speakers}\nconfig    ${config}\n`;
  const services =
    s.services.length === 0
      ? 'no LoadBalancer service\n'
      : renderTable(
          ['SERVICE', 'IPS', 'POOL', 'ANNOUNCED BY'],
          s.services.map((svc) => [svc.service, svc.ips.join(',') || NONE, svc.pool ?? NONE, announcedByText(svc)]),
        );
  const pending = s.services.filter((svc) => svc.pending !== null).map((svc) => `  ${svc.service}: ${svc.pending}\n`);
  const pools =
    s.pools.length === 0
      ? 'no IPAddressPool\n'
      : renderTable(
          ['POOL', 'IPV4 IN USE', 'IPV4 FREE', 'IPV6 IN USE', 'IPV6 FREE'],
          s.pools.map((p) => [p.pool, String(p.assignedIPv4), String(p.availableIPv4), String(p.assignedIPv6), String(p.availableIPv6)]),
        );
  const events =
    s.events.length === 0
      ? 'no recent events from metallb-controller or metallb-speaker\n'
      : `recent events (newest first):\n${renderTable(
          ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'],
          s.events.map((e) => [e.lastSeen, e.type, e.reason, e.object, e.count > 1 ? `${e.message} (x${e.count})` : e.message]),
        )}`;
  const notes = s.notes.map((n) => `note: ${n}\n`).join('');
  return [head, services + (pending.length > 0 ? `why pending:\n${pending.join('')}` : ''), pools, events + notes].join('\n');
}

export async function statusFromCluster(choice: ClusterChoice, format: OutputFormat): Promise<void> {
  const { readCluster } = await import('./read-cluster');
  const status = clusterStatus(await readCluster(choice));
  if (isStructured(format)) printStructured(status, format);
  else process.stdout.write(renderClusterStatus(status));
}
