// The moves an operator makes on purpose, in a 5-node cluster of real speakers on virtual time: SIGTERM hands
// every IP to its successor with no moment where nobody answers, and the node leaves as "left"; a drain moves the
// node's IPs away and an undrain brings them back.
import { describe, expect, it } from 'vitest';
import { VirtualCluster } from '../support/virtual-cluster/cluster';
import type { VirtualNode } from '../support/virtual-cluster/node';
import { onlyVirtualTime } from '../support/virtual-cluster/only-virtual-time';

const SERVICES = ['web', 'api', 'db', 'cache', 'queue'];
/** A few gossip rounds of the fast profile (gossipInterval 100 ms): how long news of a drain takes to arrive. */
const DRAIN_GAP_BOUND_MS = 500;
/**
 * From a successor's announcement heard by the leaving node to the leaving node no longer answering for that IP:
 * one decision, which takes no virtual time, started on the next task.
 */
const LET_GO_BOUND_MS = 50;
/**
 * How long the late successor stays cut off from gossip: short enough that the drain's broadcast, retransmitted
 * for a few gossip rounds, still reaches it after the heal (cut off for 200 ms it waits for a push/pull).
 */
const LATE_BY_MS = 150;
/** Cut off this long, the late successor misses the drain's broadcast altogether (checked: it timed out before). */
const MISSED_BROADCAST_MS = 400;

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
      // The successor's announcement came first, then the withdrawal: there was a moment both answered.
      expect(cluster.segment.historyOf(ip, stoppedAt).some((c) => c.announcers.length === 2)).toBe(true);
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

/** As many services as the test pool has addresses (config-yaml.ts): two per node. */
const TEN_SERVICES = Array.from({ length: 10 }, (_, i) => `svc-${i}`);

/**
 * A cluster with a node whose two IPs go to two different successors (the election depends on names alone, so
 * it is always the same node), and the successor of the second IP, `slow`, cut off from gossip (ARP still
 * crosses) when `leaving` begins to stop. The partition heals after `lateByMs`.
 */
async function stopWithALateSuccessor(lateByMs: number) {
  const cluster = await VirtualCluster.start({ seed: 2, services: TEN_SERVICES });
  const successorOf = (node: VirtualNode, ip: string) =>
    node
      .speaker!.explain()
      .find((e) => e.ip === ip)!
      .candidates.find((c) => c.rank === 2)!.node;
  const leaving = cluster.nodes.find((n) => {
    const [a, b] = cluster.segment.announcedBy(n.name);
    return a !== undefined && b !== undefined && successorOf(n, a) !== successorOf(n, b);
  })!;
  const [early, late] = cluster.segment.announcedBy(leaving.name) as [string, string];
  const slow = successorOf(leaving, late);
  cluster.partition([[slow], cluster.nodes.map((n) => n.name).filter((name) => name !== slow)], { layer2: 'shared' });
  const stoppedAt = cluster.now();
  const stopped = leaving.stop();
  await cluster.run(lateByMs);
  cluster.heal();
  await cluster.settle(stopped, `${leaving.name} stopping`);
  const claimedAt = (ip: string) => cluster.segment.claimsSeen.find((c) => c.ip === ip && c.seenBy === leaving.name)?.at;
  return { cluster, leaving, early, late, slow, stoppedAt, claimedAt };
}

describe('a 5-node cluster when one successor hears of the stop late', () => {
  it('lets each IP go as soon as its own successor has announced it, not when the last one has', async () => {
    const { cluster, leaving, early, late, stoppedAt, claimedAt } = await stopWithALateSuccessor(LATE_BY_MS);
    const letGoAt = (ip: string) =>
      cluster.segment.historyOf(ip, stoppedAt).find((c) => c.at >= claimedAt(ip)! && !c.announcers.includes(leaving.name))!.at;
    // The late successor announced well after the early one (it heard the drain only after the heal).
    expect(claimedAt(late)! - claimedAt(early)!).toBeGreaterThan(LET_GO_BOUND_MS);
    for (const ip of [early, late]) {
      expect(cluster.history(ip, stoppedAt).unheldMs).toBe(0);
      // Let go within one decision of its own successor's announcement: the early one long before the late one's.
      expect(letGoAt(ip) - claimedAt(ip)!).toBeLessThanOrEqual(LET_GO_BOUND_MS);
    }
    expect(leaving.events('handoverDone')).toEqual([expect.objectContaining({ reason: 'allClaimed', waiting: [] })]);
  });

  it('tells a successor that missed the drain directly, so its IP is never left unanswered', async () => {
    // Cut off past the broadcast's retransmissions: it would hear of the drain only at its next push/pull.
    const { cluster, leaving, late, slow, stoppedAt, claimedAt } = await stopWithALateSuccessor(MISSED_BROADCAST_MS);
    expect(leaving.events('handoverNudged')).toEqual([expect.objectContaining({ successors: [slow] })]);
    expect(claimedAt(late)).toBeDefined();
    expect(cluster.history(late, stoppedAt).unheldMs).toBe(0);
    expect(leaving.events('handoverDone')).toEqual([expect.objectContaining({ reason: 'allClaimed', waiting: [] })]);
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
