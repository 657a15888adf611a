/**
 * The cluster as a configuration file describes it, without a running daemon: the allocation mlb would make
 * and the election over a given set of live nodes. `mlb validate` and `mlb explain --config` both read it.
 */
import { type AllocateServicesOutput, type AssignedResult, allocateFile } from '../allocator';
import { type ElectionOptions, type Explanation, type ServiceElectionInput, explainEach } from '../election';
import { nodeKnownByName, type Node, type Snapshot } from '../model';

export interface OfflineElection {
  /**
   * Every allocated IP's explanation in service order, built as it is read (explain-each.ts) and again on each
   * iteration: a large file's explanations never exist all at once.
   */
  readonly explanations: Iterable<Explanation>;
  /** Nodes named on the command line that no v1 Node document describes (taken as carrying only the kubelet's labels). */
  readonly undocumentedNodes: readonly string[];
}

export function allocate(snapshot: Snapshot): AllocateServicesOutput {
  return allocateFile(snapshot);
}

/**
 * Elects every allocated service IP. Without health data every live node counts as serving every service, which
 * is what a plain host does for a service without a health check.
 */
export function electOffline(
  snapshot: Snapshot,
  allocation: AllocateServicesOutput,
  liveNodes: readonly string[],
  options: ElectionOptions = {},
): OfflineElection {
  const documented = new Set(snapshot.nodes.map((n) => n.meta.name));
  const undocumentedNodes = liveNodes.filter((name) => !documented.has(name));
  const nodes: Node[] = [...snapshot.nodes, ...undocumentedNodes.map(nodeKnownByName)];
  const serving = new Set(liveNodes);
  const poolsByName = new Map(snapshot.pools.map((p) => [p.meta.name, p]));
  const inputs: ServiceElectionInput[] = [];
  for (const service of snapshot.services) {
    const result = allocation.results.get(`${service.meta.namespace}/${service.meta.name}`);
    if (result?.status !== 'assigned') continue;
    const assigned: AssignedResult = result;
    inputs.push({
      service,
      ips: assigned.ips,
      endpoints: { servingNodes: serving },
      pool: poolsByName.get(assigned.pool) ?? null,
    });
  }
  const config = {
    nodes,
    pools: snapshot.pools,
    l2Advertisements: snapshot.l2Advertisements,
    bgpAdvertisements: snapshot.bgpAdvertisements,
    bgpPeers: snapshot.bgpPeers,
    options,
  };
  const live = new Set(liveNodes);
  return { explanations: { [Symbol.iterator]: () => explainEach(config, inputs, live) }, undocumentedNodes };
}
