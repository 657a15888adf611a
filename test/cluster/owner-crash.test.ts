// kill -9 of the node that owns service IPs, in a 5-node cluster of real speakers on virtual time: each of its IPs
// is taken by the next node in hash order within the fast profile's failure-detection bound, and the new owners
// log how long the IP went unanswered and why.
import { describe, expect, it } from 'vitest';
import { detectionTime, FAST_CONFIG } from '../../src/gossip/swim';
import { VirtualCluster } from '../support/virtual-cluster/cluster';
import { onlyVirtualTime } from '../support/virtual-cluster/only-virtual-time';

onlyVirtualTime();

/**
 * After the death is known: the dead message reaching the new owner by gossip, its recomputation and announcement.
 * A few gossip rounds of the fast profile (gossipInterval 100 ms).
 */
const ELECTION_SLACK_MS = 1_000;

describe('a 5-node cluster when an owner is killed', () => {
  it('moves each of its IPs to the next node in hash order within the detection bound, and reports the unheld time', async () => {
    const cluster = await VirtualCluster.start({ seed: 1, services: ['web', 'api', 'db', 'cache', 'queue'] });
    // A cluster that has been up a while: every node has probed every other (one probe per interval, four others),
    // so each survivor knows the victim's last packet, from which the unheld time is counted.
    await cluster.run(2 * 4 * FAST_CONFIG.probeInterval);
    const before = cluster.announcers();
    const victim = [...before.values()].flat().sort()[0]!;
    const held = [...before].filter(([, a]) => a[0] === victim).map(([ip]) => ip);
    // Whom every node expects to take each IP: the next eligible candidate of the speaker's own explanation.
    const viewer = cluster.nodes.find((n) => n.name !== victim)!.speaker!;
    const successor = new Map(
      viewer
        .snapshot()
        .services.map((s) => [
          s.ips[0]!,
          s.candidates.filter((c) => c.eligible && c.node !== victim).sort((a, b) => a.rank! - b.rank!)[0]!.node,
        ]),
    );

    const crashedAt = cluster.now();
    cluster.node(victim).crash();
    const bound = detectionTime(FAST_CONFIG, 5).worst + ELECTION_SLACK_MS;
    await cluster.until(
      () => held.every((ip) => cluster.segment.announcers(ip).length === 1),
      'every IP of the dead node answered again',
      bound,
    );

    for (const ip of held) {
      expect(cluster.segment.announcers(ip)).toEqual([successor.get(ip)]);
      const history = cluster.history(ip, crashedAt);
      expect(history.moves).toBe(1);
      expect(history.unheldMs).toBeGreaterThan(0);
      expect(history.unheldMs).toBeLessThanOrEqual(bound);
    }
    // The survivors say the member died (not left), and the new owner logs the gap it closed.
    const witness = cluster.node(successor.get(held[0]!)!);
    expect(witness.events('memberFailed').map((l) => l.member)).toContain(victim);
    const changes = cluster.ownerChanges(crashedAt).filter((c) => c.node === witness.name && (c.line.from as string[]).includes(victim));
    expect(changes.length).toBeGreaterThan(0);
    for (const { line } of changes) {
      // Counted from the dead node's last packet, so never less than the gap clients saw on the segment.
      const gap = cluster.history((line.ips as string[])[0]!, crashedAt).unheldMs;
      expect(line).toMatchObject({ reason: 'holderGone', to: [witness.name] });
      expect(line.unheldMs).toBeGreaterThanOrEqual(gap);
      expect(line.detectionMs).toBeGreaterThan(0);
    }
    // Nothing else moved.
    for (const [ip, announcers] of before) if (!held.includes(ip)) expect(cluster.segment.announcers(ip)).toEqual(announcers);
  });
});
