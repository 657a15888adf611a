/**
 * Which node runs the allocator in file mode. Pure.
 *
 * Kubernetes has one controller (a Deployment) to allocate; plain hosts have only speakers, so one of them takes
 * the job. It is chosen the way MetalLB's L2 mode chooses a service's announcer (speaker/layer2_controller.go):
 * the live nodes sorted by sha256(node + "#" + name), bytewise ascending, the first one wins, with the fixed
 * name "mlb-allocator" standing in for the service IP. Every node sees the same live members (gossip) and so
 * names the same allocator without a vote; when it leaves, the next in that order takes over, and a node
 * joining displaces the allocator only if it hashes first (the same disruption MetalLB accepts for an IP).
 * Reusing the election's hash order means one ranking code path, tested bit for bit against MetalLB.
 */
import { rankNodes } from '../../election/hash-order';

/** The name hashed in place of an IP: no IP text can equal it, so it never collides with a service's ranking. */
export const ALLOCATOR_ELECTION_NAME = 'mlb-allocator';

/** Live node names in the order they would take over the allocator (the first one allocates). */
export function allocatorOrder(liveNodes: readonly string[]): string[] {
  return rankNodes([...new Set(liveNodes)], ALLOCATOR_ELECTION_NAME);
}

/** The allocator among the live nodes, undefined when there is none. */
export function chooseAllocator(liveNodes: readonly string[]): string | undefined {
  return allocatorOrder(liveNodes)[0];
}
