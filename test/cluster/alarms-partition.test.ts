// Partitions of a 5-node cluster of real speakers on virtual time, with every owner's split-brain self-check on.
// - The switch between two groups fails (gossip and ARP both cut): each side elects its own owner for every IP,
//   but neither hears the other, so no probe is answered across the cut and nobody reports a conflict. After the
//   heal both owners answer until the election settles; that overlap is what expected-answer.ts judges expected
//   (a member coming back, within EXPECTED_ANSWER_WINDOW_MS), so it raises no alarm either.
// - Only gossip is cut (ARP still crosses): a real split brain, two members answering one IP with no reason to.
//   Each side's owner warns splitBrainDetected naming the other node within the expected-answer window.
import { describe, expect, it } from 'vitest';
import { VirtualCluster } from '../support/virtual-cluster/cluster';
import { onlyVirtualTime } from '../support/virtual-cluster/only-virtual-time';
import { EXPECTED_ANSWER_WINDOW_MS } from '../../src/daemon/self-check/expected-answer';

const SERVICES = ['web', 'api', 'db'];
const MINORITY = ['node-1', 'node-2'];
const MAJORITY = ['node-3', 'node-4', 'node-5'];
const side = (node: string): string[] => (MINORITY.includes(node) ? MINORITY : MAJORITY);
/** One self-check probe cycle on a contested IP: a second between rechecks, half a second of reply window. */
const PROBE_CYCLE_MS = 1_500;

onlyVirtualTime();

function splitBrainEverywhere(cluster: VirtualCluster, ips: readonly string[]): boolean {
  return ips.every((ip) => {
    const announcers = cluster.segment.announcers(ip);
    return announcers.length === 2 && side(announcers[0]!) !== side(announcers[1]!);
  });
}

function alarms(cluster: VirtualCluster, since: number): string[] {
  return cluster.nodes.flatMap((n) => [
    ...n
      .events('splitBrainDetected')
      .filter((l) => Date.parse(String(l.ts)) >= since)
      .map((l) => `${n.name} log: ${String(l.msg)}`),
    ...n.speaker!.snapshot().conflicts.map((c) => `${n.name} status: ${c.ip} ${c.mac} seen by ${c.observedBy}`),
  ]);
}

describe('a 5-node cluster split by a failed switch (gossip and ARP cut) and healed', () => {
  it('reports no conflict during the partition, nor for the overlap while the sides settle after the heal', async () => {
    const cluster = await VirtualCluster.start({ seed: 41, services: SERVICES });
    const ips = [...cluster.announcers().keys()];
    const splitAt = cluster.now();
    cluster.partition([MINORITY, MAJORITY]);

    await cluster.until(() => splitBrainEverywhere(cluster, ips), 'each side answers every IP');
    await cluster.run(2 * EXPECTED_ANSWER_WINDOW_MS);
    // Owners probed their IPs all along; the answers came from their own side only.
    for (const probe of cluster.segment.probes.filter((p) => p.at > splitAt)) {
      expect(probe.macs.every((mac) => cluster.nodes.some((n) => side(n.name) === side(probe.by) && mac === n.macText))).toBe(true);
    }
    expect(cluster.segment.claimsSeen.filter((c) => c.at > splitAt && side(c.by) !== side(c.seenBy))).toEqual([]);
    expect(alarms(cluster, splitAt)).toEqual([]);

    const healedAt = cluster.now();
    cluster.heal();
    await cluster.until(() => cluster.converged(), 'one owner per IP after the heal');
    for (const ip of ips) {
      // The overlap the heal causes ends within the window in which a returning member's answer is expected.
      expect(cluster.history(ip, healedAt).contestedMs).toBeLessThan(EXPECTED_ANSWER_WINDOW_MS);
    }
    await cluster.run(EXPECTED_ANSWER_WINDOW_MS);
    expect(alarms(cluster, splitAt)).toEqual([]);
  });
});

describe('a 5-node cluster whose gossip is cut while ARP still crosses', () => {
  it('is a split brain every owner reports, naming the other node, within the expected-answer window', async () => {
    const cluster = await VirtualCluster.start({ seed: 42, services: SERVICES });
    const ips = [...cluster.announcers().keys()];
    cluster.partition([MINORITY, MAJORITY], { layer2: 'shared' });
    await cluster.until(() => splitBrainEverywhere(cluster, ips), 'each side answers every IP');

    const reported = (ip: string, owner: string, other: string): number | undefined => {
      const line = cluster
        .node(owner)
        .events('splitBrainDetected')
        .find((l) => l.ip === ip && l.macOwner === other);
      return line === undefined ? undefined : Date.parse(String(line.ts));
    };
    await cluster.until(
      () =>
        ips.every((ip) => {
          const [a, b] = cluster.segment.announcers(ip) as [string, string];
          return reported(ip, a, b) !== undefined && reported(ip, b, a) !== undefined;
        }),
      'both owners of every IP report the other',
      2 * EXPECTED_ANSWER_WINDOW_MS,
    );
    // expected-answer.ts: a member's answer is reported at most the window after it is first seen (plus the
    // recheck that sees it again once the window is over).
    for (const ip of ips) {
      for (const owner of cluster.segment.announcers(ip)) {
        const other = cluster.segment.announcers(ip).find((n) => n !== owner)!;
        const firstSeen = cluster.segment.probes.find(
          (p) => p.by === owner && p.ip === ip && p.macs.includes(cluster.node(other).macText),
        )!.at;
        expect(reported(ip, owner, other)! - firstSeen).toBeLessThanOrEqual(EXPECTED_ANSWER_WINDOW_MS + PROBE_CYCLE_MS);
      }
    }
    for (const ip of ips) {
      for (const owner of cluster.segment.announcers(ip)) {
        expect(cluster.node(owner).speaker!.snapshot().conflicts).toContainEqual(
          expect.objectContaining({ ip, observedBy: owner, reason: expect.stringMatching(/^(noReason|windowOver)$/) }),
        );
      }
    }
  });
});
