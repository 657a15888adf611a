// 5% loss on every link and one CPU-starved node, 3 real speakers on virtual time for 10 minutes: failover at a
// confirmed suspicion (gossip/swim/confirmed-suspects.ts) must never move an IP away from a live owner. Its guards
// are what this exercises: two independent failed probe rounds (each with direct retries, indirect and TCP pings)
// and silence from the suspect since it was suspected.
import { describe, expect, it } from 'vitest';
import { VirtualCluster } from '../support/virtual-cluster/cluster';
import { onlyVirtualTime } from '../support/virtual-cluster/only-virtual-time';

onlyVirtualTime();

const LOSS = 0.05;
/**
 * Every task of the starved node costs this much virtual CPU time, so its work queues behind itself and its acks,
 * probes and gossip leave late (tens of ms), as a daemon does that gets a seventh of a core (bench/gossip-soak.ts).
 */
const STARVED_TASK_COST_MS = 5;
const SOAK_MS = 10 * 60_000;

describe('a lossy network with a starved node', () => {
  it('moves no IP in 10 minutes: every failover is a real one', async () => {
    const cluster = await VirtualCluster.start({
      seed: 7,
      services: ['web', 'api', 'db', 'cache', 'queue', 'mail'],
      size: 3,
      profile: 'fast-failover',
    });
    const before = cluster.announcers();
    const starved = cluster.nodes[2]!;
    cluster.network.link.setLink({ loss: LOSS });
    cluster.network.starve(starved.ip, STARVED_TASK_COST_MS);
    const from = cluster.now();
    await cluster.run(SOAK_MS);

    expect(cluster.ownerChanges(from)).toEqual([]);
    for (const [ip, announcers] of before) {
      expect(cluster.history(ip, from).moves).toBe(0);
      expect(cluster.segment.announcers(ip)).toEqual(announcers);
    }
    for (const node of cluster.nodes) expect(node.events('memberFailed')).toEqual([]);
  });
});
