// Flap damping on virtual time: in a 5-node cluster of real speakers, the owner of service IPs is killed and
// restarted with the same state files every 10 s for 5 minutes. Its restart history makes it warm up (published
// in gossip, so no node elects it), so each IP moves away once and comes back at most once: MetalLB v0.16 moved
// IPs at every restart. The same scenario as test/e2e/flap-damping.test.ts (real processes, 3 minutes), in a second.
import { describe, expect, it } from 'vitest';
import { VirtualCluster } from '../support/virtual-cluster/cluster';
import { onlyVirtualTime } from '../support/virtual-cluster/only-virtual-time';

const SERVICES = ['web', 'api', 'db', 'cache', 'queue'];
const RESTART_EVERY_MS = 10_000;
const RUN_MS = 5 * 60_000;
/** Away once when the loop starts, back once when the node is finally steady. */
const MAX_MOVES = 2;
/** A few gossip rounds: the end of the warm-up reaches every node. */
const SETTLE_MS = 2_000;

onlyVirtualTime();

describe('a 5-node cluster with a crash-looping owner', () => {
  it('restarted every 10 s for 5 minutes moves each IP at most twice', async () => {
    const cluster = await VirtualCluster.start({ seed: 4, services: SERVICES });
    const looping = cluster.node(cluster.anOwner());
    const ips = [...cluster.announcers().keys()];
    const since = cluster.now();

    let restarts = 0;
    while (cluster.now() - since < RUN_MS) {
      await cluster.run(RESTART_EVERY_MS);
      looping.crash();
      await cluster.restart(looping.name);
      restarts++;
    }
    // The loop is over: the operator ends the warm-up (`mlb warmup end`) and the IPs may come back, once.
    await cluster.until(() => cluster.converged(), 'the cluster settles after the loop');
    expect(looping.speaker!.snapshot().node.warmingUp).toBe(true);
    expect((await looping.speaker!.endWarmUp()).changed).toBe(true);
    await cluster.run(SETTLE_MS);
    await cluster.until(() => cluster.converged(), 'the cluster settles after the warm-up');

    expect(restarts).toBe(RUN_MS / RESTART_EVERY_MS);
    for (const ip of ips) {
      const history = cluster.history(ip, since);
      expect(history.moves, `${ip}: ${history.holders.join(' -> ')}`).toBeLessThanOrEqual(MAX_MOVES);
    }
    // What the looping node said at each start: the first restart after a crash warms up, and so does every later one.
    const starts = looping.logs.filter((l) => l.event === 'warmUpStarted' || l.event === 'warmUpSkipped');
    expect(starts).toHaveLength(restarts + 1);
    expect(starts.slice(1).every((l) => l.event === 'warmUpStarted')).toBe(true);
  }, 120_000);
});
