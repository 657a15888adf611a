// The same seed gives the same cluster life: two runs of one scenario produce the same segment history and the
// same log lines, to the millisecond. What makes a failing scenario reproducible from its seed.
import { describe, expect, it } from 'vitest';
import { VirtualCluster } from '../support/virtual-cluster/cluster';
import { onlyVirtualTime } from '../support/virtual-cluster/only-virtual-time';

onlyVirtualTime();

/** Starts a cluster, kills an owner, lets it fail over: everything the segment and the logs recorded. */
async function run(seed: number): Promise<{ changes: unknown[]; logs: unknown[] }> {
  const cluster = await VirtualCluster.start({ seed, services: ['web', 'api', 'db'] });
  cluster.node(cluster.anOwner()).crash();
  await cluster.run(5_000);
  return { changes: cluster.segment.changes, logs: cluster.nodes.flatMap((n) => n.logs) };
}

describe('a virtual cluster run', () => {
  it('is the same on the same seed', async () => {
    const first = await run(3);
    const second = await run(3);
    expect(first.changes.length).toBeGreaterThan(0);
    expect(second).toEqual(first);
  });
});
