// How fast a new allocation reaches every node: the allocator broadcasts its table a few times (memberlist's
// retransmit limit: 4 in a 5-node cluster) to random members, so one member of five usually missed it and learned
// it only at the next push/pull, 15-30 s later, while the IP it was elected for stayed dark. Every node that
// learns a newer table passes it on, so the news spreads like any gossip: in a few rounds.
import { describe, expect, it } from 'vitest';
import { configSnapshot } from '../daemon/config-facts/config-yaml';
import { VirtualCluster } from '../support/virtual-cluster/cluster';
import { onlyVirtualTime } from '../support/virtual-cluster/only-virtual-time';

onlyVirtualTime();

/** A few gossip rounds of the fast profile (gossipInterval 100 ms), far below its push/pull interval (15 s). */
const SPREAD_BOUND_MS = 1_000;
const SEEDS = [1, 2, 4, 5];

describe('a new allocation in a 5-node cluster', () => {
  it.each(SEEDS)('is answered for on every service IP within a second of a fresh start (seed %i)', async (seed) => {
    // start() throws when some service IP has no announcer, or the nodes disagree, after SPREAD_BOUND_MS.
    const cluster = await VirtualCluster.start({ seed, services: ['web', 'api', 'db', 'cache', 'queue'] }, SPREAD_BOUND_MS);
    expect(cluster.converged()).toBe(true);
  });

  it('is answered for within a second when a service is added to every file', async () => {
    const cluster = await VirtualCluster.start({ seed: 2, services: ['web', 'api'] });
    const added = configSnapshot(['web', 'api', 'db']);
    for (const node of cluster.nodes) node.setConfig(added);
    const since = cluster.now();
    await cluster.until(
      () => cluster.serviceIps().has('demo/db') && cluster.converged(),
      'the new service is answered for',
      SPREAD_BOUND_MS,
    );
    const ip = cluster.serviceIps().get('demo/db')!;
    expect(cluster.history(ip, since).holders).toHaveLength(1);
  });
});
