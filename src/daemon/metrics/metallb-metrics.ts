/**
 * MetalLB's metrics, under MetalLB's exact names and labels (listed per source file below), so dashboards and
 * alerts written for MetalLB read mlb unchanged: metallb_speaker_announced (speaker/main.go), the layer2
 * counters (internal/layer2/stats.go), the allocator gauges (internal/allocator/stats.go) and the
 * configuration gauges (internal/k8s: metallb_k8s_client_config_*; on plain hosts they describe the file).
 * and the BGP and BFD session metrics (internal/bgp: per peer). Help texts are mlb's own words.
 */
import type { ControlSnapshot } from '../control/control-snapshot';
import { bool, single, type PulledMetric, type Sample } from './pulled-metric';
import type { PoolMetrics } from './pool-metrics';

/** The layer2 counters L2Announcer.metrics() produces, with their help. */
const LAYER2_COUNTERS = [
  ['metallb_layer2_requests_received', 'ARP requests and NDP neighbor solicitations received for IPs this node announces'],
  ['metallb_layer2_responses_sent', 'ARP replies and NDP neighbor advertisements sent in answer to requests for IPs this node announces'],
  ['metallb_layer2_gratuitous_sent', 'Gratuitous ARP and unsolicited NDP advertisements sent for IPs this node took over'],
] as const;

export const METALLB_METRICS: readonly PulledMetric[] = [
  {
    name: 'metallb_speaker_announced',
    help: 'Service IPs this node announces (1 per service, IP and protocol): the desired state, not proof that routers or neighbours converged',
    type: 'gauge',
    labels: ['service', 'protocol', 'node', 'ip'],
    samples: ({ snapshot }) => announcedSamples(snapshot),
  },
  ...LAYER2_COUNTERS.map(([name, help]): PulledMetric => ({
    name,
    help,
    type: 'counter',
    labels: ['ip'],
    samples: ({ counters }) =>
      (counters.layer2 ?? []).filter((m) => m.name === name).map((m): Sample => [{ ip: m.labels.ip ?? '' }, m.value]),
  })),
  bgpGauge('metallb_bgp_session_up', 'BGP session with the peer is Established (1) or not (0)', (b) => (b.phase === 'Established' ? 1 : 0)),
  bgpGauge('metallb_bgp_updates_total', 'BGP UPDATE messages sent to the peer', (b) => b.updatesSent, 'counter'),
  bgpGauge('metallb_bgp_announced_prefixes_total', 'Prefixes the peer holds from this node', (b) => b.prefixes),
  {
    name: 'metallb_bfd_session_up',
    help: 'BFD session with the peer is Up (1) or not (0); only peers with a bfdProfile',
    type: 'gauge',
    labels: ['peer'],
    samples: ({ snapshot }) =>
      (snapshot.bgp ?? []).filter((b) => b.bfd !== null).map((b): Sample => [{ peer: b.address }, b.bfd === 'up' ? 1 : 0]),
  },
  poolGauge('metallb_allocator_addresses_total', 'Usable addresses in the pool', (p) => Number(p.total)),
  poolGauge('metallb_allocator_ipv4_addresses_total', 'Usable IPv4 addresses in the pool', (p) => Number(p.totalIPv4)),
  poolGauge('metallb_allocator_ipv6_addresses_total', 'Usable IPv6 addresses in the pool', (p) => Number(p.totalIPv6)),
  poolGauge('metallb_allocator_addresses_in_use_total', 'Addresses of the pool held by at least one service', (p) => p.inUse),
  poolGauge('metallb_allocator_ipv4_addresses_in_use_total', 'IPv4 addresses of the pool held by at least one service', (p) => p.inUseIPv4),
  poolGauge('metallb_allocator_ipv6_addresses_in_use_total', 'IPv6 addresses of the pool held by at least one service', (p) => p.inUseIPv6),
  poolGauge('metallb_allocator_services_allocated_total', 'Services holding an address of the pool', (p) => p.servicesAllocated),
  {
    name: 'metallb_k8s_client_config_loaded_bool',
    help: '1 once a configuration has been loaded successfully (on plain hosts: the --config file)',
    type: 'gauge',
    labels: [],
    samples: ({ snapshot }) => single(bool(snapshot.config.loadedAt !== null)),
  },
  {
    name: 'metallb_k8s_client_config_stale_bool',
    help: '1 while the latest configuration failed validation and the last good one keeps running',
    type: 'gauge',
    labels: [],
    samples: ({ snapshot }) => single(bool(snapshot.config.state === 'stale')),
  },
];

function poolGauge(name: string, help: string, value: (p: PoolMetrics) => number): PulledMetric {
  return {
    name,
    help,
    type: 'gauge',
    labels: ['pool'],
    samples: ({ counters }) => (counters.pools ?? []).map((p): Sample => [{ pool: p.pool }, value(p)]),
  };
}

/**
 * One sample per (service, IP) this node announces. layer2: the IPs this node answers for now (during a
 * handover that is more than the election gives it); a shared IP yields one sample per service using it, as in
 * MetalLB. bgp: every IP of a service whose announcing nodes include this one.
 */
function announcedSamples(snapshot: ControlSnapshot): Sample[] {
  const node = snapshot.node.name;
  const local = new Set(snapshot.local.announced.map((a) => a.ip));
  const out: Sample[] = [];
  for (const s of snapshot.services) {
    const mine = s.protocol === 'layer2' ? s.ips.filter((ip) => local.has(ip)) : s.announcing.includes(node) ? s.ips : [];
    for (const ip of mine) out.push([{ service: s.service, protocol: s.protocol, node, ip }, 1]);
  }
  return out;
}

/** A per-peer BGP metric; MetalLB labels them with the peer's address. */
function bgpGauge(
  name: string,
  help: string,
  value: (b: NonNullable<ControlSnapshot['bgp']>[number]) => number,
  type: 'gauge' | 'counter' = 'gauge',
): PulledMetric {
  return {
    name,
    help,
    type,
    labels: ['peer'],
    samples: ({ snapshot }) => (snapshot.bgp ?? []).map((b): Sample => [{ peer: b.address }, value(b)]),
  };
}
