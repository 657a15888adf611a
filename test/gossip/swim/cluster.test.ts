import { describe, expect, test } from 'vitest';
import { detectionTime, LAN_CONFIG, type MemberState } from '../../../src/gossip/swim';
import { MemoryNetwork } from '../../../src/gossip/swim/memory-network';

/**
 * Whole clusters of reducers on the in-memory network, LAN profile (what MetalLB runs), LAN-like links
 * (0.2 ms +- 0.1 ms). Measured times are printed for the record; assertions use the formula's bounds.
 */
function lanCluster(size: number, seed: number, rejoinInterval = 0): MemoryNetwork {
  const net = new MemoryNetwork({ seed, config: LAN_CONFIG, rejoinInterval });
  for (let i = 0; i < size; i++) net.addNode(`n${i}`, i === 0 ? {} : { join: ['n0'] });
  return net;
}

function all(names: readonly string[], state: MemberState): Record<string, MemberState> {
  return Object.fromEntries(names.map((n) => [n, state]));
}

describe('20 nodes, LAN profile', () => {
  test('joining through one node converges to everyone alive', () => {
    const net = lanCluster(20, 1);
    const t = net.runUntil(() => net.converged(), 60_000);
    console.info(`[sim] 20-node LAN join converged after ${t} ms of virtual time`);
    expect(t).toBeDefined();
    // Joins are push/pulls with n0; the rest spreads by gossip within a few gossip rounds.
    expect(t!).toBeLessThan(5_000);
    expect(net.events.filter((e) => e.event.type === 'leave')).toEqual([]);
  });

  test("a crashed node is declared dead by everyone within the formula's bound", () => {
    const net = lanCluster(20, 2);
    net.runUntil(() => net.converged(), 60_000);
    net.runFor(10_000);
    const crashedAt = net.now;
    net.crash('n7');
    const survivors = net.names().filter((n) => n !== 'n7');
    const bound = detectionTime(LAN_CONFIG, 20);
    const t = net.runUntil(() => net.allSee({ n7: 'dead' }, survivors), bound.worst + 5_000);
    console.info(
      `[sim] 20-node LAN crash -> dead everywhere after ${t! - crashedAt} ms ` +
        `(formula: typical ${bound.typical}, worst ${bound.worst})`,
    );
    expect(t! - crashedAt).toBeLessThanOrEqual(bound.worst);
    // No one else was touched.
    expect(net.allSee(all(survivors, 'alive'), survivors)).toBe(true);
  });

  test('a leave is seen as left (not dead) by everyone', () => {
    const net = lanCluster(20, 3);
    net.runUntil(() => net.converged(), 60_000);
    net.leave('n4', 5_000);
    const survivors = net.names().filter((n) => n !== 'n4');
    const leaveResult = () => net.events.find((e) => e.node === 'n4' && e.event.type === 'leaveResult')?.event;
    // Leave returns once its broadcast has been sent as often as the retransmit limit says, which may be a gossip
    // round or two after every survivor has heard it (memberlist Leave waits on the broadcast's notify).
    const t = net.runUntil(() => net.allSee({ n4: 'left' }, survivors) && leaveResult() !== undefined, 10_000);
    expect(t).toBeDefined();
    expect(leaveResult()).toEqual({
      type: 'leaveResult',
      outcome: 'broadcast',
    });
    net.crash('n4'); // the daemon exits after Leave
    net.runFor(60_000);
    expect(net.count('dead')).toBe(0);
    // Forgotten after GossipToTheDeadTime.
    expect(survivors.every((n) => !net.view(n).has('n4'))).toBe(true);
  });

  test("a partition splits the view, the heal (with MetalLB's periodic re-join) reconverges it", () => {
    const net = lanCluster(20, 4, 60_000);
    net.runUntil(() => net.converged(), 60_000);
    const left = net.names().slice(0, 10);
    const right = net.names().slice(10);
    net.partition(left, right);
    const split = net.runUntil(() => net.allSee(all(right, 'dead'), left) && net.allSee(all(left, 'dead'), right), 120_000);
    expect(split).toBeDefined();
    net.heal();
    const healedAt = net.now;
    const t = net.runUntil(() => net.converged(), 180_000);
    console.info(`[sim] 20-node LAN partition healed: reconverged after ${t! - healedAt} ms`);
    expect(t).toBeDefined();
  });

  test('a short partition (below the detection time) leaves no one dead', () => {
    const net = lanCluster(10, 5);
    net.runUntil(() => net.converged(), 60_000);
    net.partition(net.names().slice(0, 5), net.names().slice(5));
    net.runFor(2_000);
    net.heal();
    net.runFor(60_000);
    expect(net.count('dead')).toBe(0);
    expect(net.converged()).toBe(true);
  });

  test('a restarted node (incarnation 1) overtakes its old, dead incarnation', () => {
    const net = lanCluster(10, 6);
    net.runUntil(() => net.converged(), 60_000);
    // Raise n3's incarnation first: a refutation takes it to 2.
    net.deliver('n3', {
      type: 'packet',
      from: net.addressOf('n1'),
      messages: [{ type: 'suspect', node: 'n3', incarnation: 1, from: 'n1' }],
    });
    net.runFor(5_000);
    const before = net.state('n0')!.members.get('n3')!.incarnation;
    expect(before).toBeGreaterThanOrEqual(2);
    net.crash('n3');
    const others = net.names().filter((n) => n !== 'n3');
    expect(net.runUntil(() => net.allSee({ n3: 'dead' }, others), 60_000)).toBeDefined();
    net.restart('n3', { join: ['n0'] });
    expect(net.state('n3')!.members.get('n3')!.incarnation).toBe(1);
    const t = net.runUntil(() => net.converged(), 30_000);
    expect(t).toBeDefined();
    const seen = net.state('n0')!.members.get('n3')!.incarnation;
    expect(seen).toBeGreaterThan(before);
    expect(net.state('n3')!.members.get('n3')!.incarnation).toBe(seen);
  });

  test('a false suspicion is refuted: the accused answers with a higher incarnation, nobody declares it dead', () => {
    const net = lanCluster(8, 7);
    net.runUntil(() => net.converged(), 60_000);
    net.deliver('n5', {
      type: 'packet',
      from: net.addressOf('n2'),
      messages: [{ type: 'suspect', node: 'n6', incarnation: 1, from: 'n2' }],
    });
    const t = net.runUntil(() => net.names().every((n) => net.state(n)!.members.get('n6')!.incarnation === 2), 10_000);
    expect(t).toBeDefined();
    net.runFor(60_000);
    expect(net.count('dead')).toBe(0);
    expect(net.converged()).toBe(true);
    expect(net.state('n6')!.stats.refutations).toBe(1);
  });
});
