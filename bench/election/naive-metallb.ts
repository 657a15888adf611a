// The baseline: MetalLB's L2 election as speaker/layer2_controller.go computes it, one service at a time,
// hashing inside the sort comparator and recomputing every service on every membership change
// ("node event - forcing sync"). Same hash primitive as mlb, so the ratio measures the algorithm only.
import { formatIP } from '../../src/ip';
import { anySelectorMatches, serviceKey, type Node } from '../../src/model';
import {
  advertisementCoversPool,
  compareDigests,
  nodeIPDigest,
  poolForIPs,
  type ElectionConfig,
  type ServiceElectionInput,
} from '../../src/election';

const EXCLUDE = 'node.kubernetes.io/exclude-from-external-load-balancers';

export function naiveWinner(
  config: ElectionConfig,
  nodesByName: Map<string, Node>,
  input: ServiceElectionInput,
  live: ReadonlySet<string>,
): string | null {
  const ips = input.service.ingressIPs;
  const eps = input.endpoints;
  if (eps.servingNodes.size === 0) return null;
  const pool = poolForIPs(config.pools, ips);
  if (!pool) return null;
  const ads = config.l2Advertisements.filter(
    (ad) => advertisementCoversPool(ad, pool) && anySelectorMatches(ad.serviceSelectors, input.service.meta.labels),
  );
  let available: string[] = [];
  for (const name of live) {
    const node = nodesByName.get(name);
    if (!node) continue;
    if (node.conditions.some((c) => c.type === 'NetworkUnavailable' && c.status === 'True')) continue;
    if (EXCLUDE in node.meta.labels) continue;
    if (ads.some((ad) => anySelectorMatches(ad.nodeSelectors, node.meta.labels))) available.push(name);
  }
  if (input.service.externalTrafficPolicy === 'Local') available = available.filter((n) => eps.servingNodes.has(n));
  if (available.length === 0) return null;
  const ipString = formatIP(ips[0]!);
  available.sort((a, b) => compareDigests(nodeIPDigest(a, ipString), nodeIPDigest(b, ipString)));
  return available[0] ?? null;
}

/** A full recompute of every service (MetalLB's reaction to any memberlist event). */
export function naiveElectAll(
  config: ElectionConfig,
  services: readonly ServiceElectionInput[],
  live: ReadonlySet<string>,
): Map<string, string | null> {
  const nodesByName = new Map(config.nodes.map((n) => [n.meta.name, n]));
  const out = new Map<string, string | null>();
  for (const s of services) out.set(serviceKey(s.service), naiveWinner(config, nodesByName, s, live));
  return out;
}
