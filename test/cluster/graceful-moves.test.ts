// The moves an operator makes on purpose, in a 5-node cluster of real speakers on virtual time: SIGTERM hands
// every IP to its successor with no moment where nobody answers, and the node leaves as "left"; a drain moves the
// node's IPs away and an undrain brings them back.
import { describe, expect, it } from 'vitest';
import { VirtualCluster } from '../support/virtual-cluster/cluster';
import { onlyVirtualTime } from '../support/virtual-cluster/only-virtual-time';

const SERVICES = ['web', 'api', 'db', 'cache', 'queue'];
/** A few gossip rounds of the fast profile (gossipInterval 100 ms): how long news of a drain takes to arrive. */
const DRAIN_GAP_BOUND_MS = 500;

onlyVirtualTime();

describe('a 5-node cluster when an owner stops (SIGTERM)', () => {
  it('hands each IP over: the successor answers before the old owner stops, and the node leaves as left, not dead', async () => {
    const cluster = await VirtualCluster.start({ seed: 2, services: SERVICES });
    const leaving = cluster.node(cluster.anOwner());
    const held = cluster.segment.announcedBy(leaving.name);
    const stoppedAt = cluster.now();

    await cluster.settle(leaving.stop(), `${leaving.name} stopping`);
    await cluster.until(() => held.every((ip) => cluster.segment.announcers(ip).length === 1), 'every handed-over IP has one announcer');

    for (const ip of held) {
      const history = cluster.history(ip, stoppedAt);
      expect(history.unheldMs).toBe(0);
      // Both answered for a while: the successor's announcement came first, then the withdrawal.
      expect(history.contestedMs).toBeGreaterThan(0);
      expect(history.moves).toBe(1);
      expect(history.holders[0]).toBe(leaving.name);
      expect(cluster.segment.claimsSeen).toContainEqual(expect.objectContaining({ ip, by: history.holders[1], seenBy: leaving.name }));
    }
    expect(
      leaving
        .events('handoverClaimed')
        .map((l) => l.ip)
        .sort(),
    ).toEqual([...held].sort());
    expect(leaving.events('handoverDone')).toEqual([expect.objectContaining({ reason: 'allClaimed', waiting: [] })]);
    for (const other of cluster.nodes.filter((n) => n !== leaving)) {
      await cluster.until(
        () => other.events('memberLeft').some((l) => l.member === leaving.name),
        `${other.name} hears ${leaving.name} left`,
      );
      expect(other.events('memberFailed').filter((l) => l.member === leaving.name)).toEqual([]);
    }
  });
});

describe('a 5-node cluster when an owner is drained and undrained', () => {
  it('moves its IPs away on drain and back on undrain', async () => {
    const cluster = await VirtualCluster.start({ seed: 3, services: SERVICES });
    const node = cluster.node(cluster.anOwner());
    const held = cluster.segment.announcedBy(node.name);
    const drainedAt = cluster.now();

    await cluster.settle(node.speaker!.drain(), 'the drain');
    await cluster.until(
      () => cluster.segment.announcedBy(node.name).length === 0 && held.every((ip) => cluster.segment.announcers(ip).length === 1),
      'the drained node answers for nothing',
    );
    const away = new Map(held.map((ip) => [ip, cluster.segment.announcers(ip)[0]!]));
    for (const [ip, owner] of away) {
      expect(owner).not.toBe(node.name);
      // A drain is no handover: the node withdraws at once and the successor answers when the drain reaches it by
      // gossip, one broadcast round later.
      expect(cluster.history(ip, drainedAt).unheldMs).toBeLessThan(DRAIN_GAP_BOUND_MS);
    }
    expect(node.events('nodeDrained')).toHaveLength(1);
    expect(node.speaker!.snapshot().node.draining).toBe(true);

    const undrainedAt = cluster.now();
    await cluster.settle(node.speaker!.undrain(), 'the undrain');
    await cluster.until(
      () => held.every((ip) => cluster.segment.announcers(ip).join() === node.name),
      'the undrained node answers for its IPs again',
    );
    for (const ip of held) {
      const history = cluster.history(ip, drainedAt);
      expect(history.holders).toEqual([node.name, away.get(ip), node.name]);
      expect(history.moves).toBe(2);
      // Coming back overlaps: the returning node answers before the interim owner hears of it and withdraws.
      expect(cluster.history(ip, undrainedAt).unheldMs).toBe(0);
    }
    expect(node.events('nodeUndrained')).toHaveLength(1);
  });
});
