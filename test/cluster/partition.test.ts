// A partition of a 5-node cluster of real speakers on virtual time (gossip cut between two groups, the layer-2
// segment still shared, cluster.partition with layer2 'shared'): each side declares the other dead and elects its own owner for every IP, so two nodes
// answer for each (split brain, expected); after the heal the sides rejoin and exactly one answers again.
import { describe, expect, it } from 'vitest';
import { VirtualCluster } from '../support/virtual-cluster/cluster';
import { onlyVirtualTime } from '../support/virtual-cluster/only-virtual-time';

const SERVICES = ['web', 'api', 'db', 'cache', 'queue'];

onlyVirtualTime();

describe('a 5-node cluster split in two and healed', () => {
  it('has one owner per side during the partition and exactly one owner per IP after the heal', async () => {
    const cluster = await VirtualCluster.start({ seed: 5, services: SERVICES });
    const ips = [...cluster.announcers().keys()];
    const minority = ['node-1', 'node-2'];
    const majority = ['node-3', 'node-4', 'node-5'];
    const side = (node: string): string[] => (minority.includes(node) ? minority : majority);
    const splitAt = cluster.now();
    // Gossip cut, ARP still shared (a firewall on the gossip port): each side hears the other's announcements.
    cluster.partition([minority, majority], { layer2: 'shared' });

    const splitBrain = (): boolean =>
      ips.every((ip) => {
        const announcers = cluster.segment.announcers(ip);
        return announcers.length === 2 && side(announcers[0]!) !== side(announcers[1]!);
      });
    // Each side declares every member of the other dead (not left).
    const declaredDead = (): boolean =>
      cluster.nodes.every((n) =>
        cluster.nodes
          .filter((o) => side(o.name) !== side(n.name))
          .every((o) => n.events('memberFailed').some((l) => l.member === o.name && Date.parse(String(l.ts)) > splitAt)),
      );
    await cluster.until(() => declaredDead() && splitBrain(), 'both sides declare the other dead and answer every IP');
    const healedAt = cluster.now();
    for (const ip of ips) expect(cluster.history(ip, splitAt).contestedMs).toBeGreaterThan(0);
    // Each side's owners see the other side's announcement of the same IP: what a split brain looks like on the wire.
    expect(cluster.segment.claimsSeen.filter((c) => c.at > splitAt && side(c.by) !== side(c.seenBy)).length).toBeGreaterThan(0);

    cluster.heal();
    const everyoneAlive = (): boolean =>
      cluster.nodes.every((n) => n.speaker!.snapshot().members.filter((m) => m.state === 'alive').length === cluster.nodes.length);
    await cluster.until(() => everyoneAlive() && cluster.converged(), 'every node sees every other alive again, one owner per IP');
    for (const ip of ips) {
      expect(cluster.segment.announcers(ip)).toHaveLength(1);
      expect(cluster.history(ip, healedAt).unheldMs).toBe(0);
    }
  });
});
