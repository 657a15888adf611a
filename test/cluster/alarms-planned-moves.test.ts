// "A planned move is never a conflict": in a 5-node cluster of real speakers on virtual time, with every node's
// split-brain self-check probing the shared segment, a cold start of the whole cluster, a SIGTERM handover, a
// drain, an undrain and a restart of a node move IPs (two nodes answer for a moment by design) and yet no node
// warns splitBrainDetected, lists a conflict in its status, or counts one in mlb_conflicts_active.
import { describe, expect, it } from 'vitest';
import { VirtualCluster } from '../support/virtual-cluster/cluster';
import { onlyVirtualTime } from '../support/virtual-cluster/only-virtual-time';
import { EXPECTED_ANSWER_WINDOW_MS } from '../../src/daemon/self-check/expected-answer';

const SERVICES = ['web', 'api', 'db', 'cache', 'queue'];

onlyVirtualTime();

/** Every alarm any node raised, as an operator would find them: log lines, status entries, the metric. */
function alarms(cluster: VirtualCluster): string[] {
  return cluster.nodes.flatMap((n) => [
    ...n.events('splitBrainDetected').map((l) => `${n.name} log: ${String(l.msg)}`),
    ...(n.up ? n.speaker!.snapshot().conflicts.map((c) => `${n.name} status: ${c.ip} ${c.mac} seen by ${c.observedBy}`) : []),
    ...(n.up && (n.speaker!.metricsCounters().selfCheck?.active ?? 0) > 0
      ? [`${n.name} mlb_conflicts_active ${n.speaker!.metricsCounters().selfCheck?.active}`]
      : []),
  ]);
}

/** The checks did run: every service IP was probed since `since`. */
function probedEveryIp(cluster: VirtualCluster, since: number): boolean {
  const ips = [...cluster.announcers().keys()];
  return ips.every((ip) => cluster.segment.probes.some((p) => p.ip === ip && p.at >= since));
}

describe('planned moves in a 5-node cluster with the split-brain self-check on', () => {
  it('raise no conflict anywhere: cold start, SIGTERM handover, drain, undrain, restart', async () => {
    const cluster = await VirtualCluster.start({ seed: 11, services: SERVICES });
    const start = cluster.now();
    await cluster.run(EXPECTED_ANSWER_WINDOW_MS);
    expect(probedEveryIp(cluster, start)).toBe(true);
    expect(alarms(cluster)).toEqual([]);

    const leaving = cluster.node(cluster.anOwner());
    const handedOver = cluster.now();
    await cluster.settle(leaving.stop(), `${leaving.name} stopping`);
    await cluster.until(() => cluster.converged(), 'one owner per IP after the handover');
    await cluster.run(EXPECTED_ANSWER_WINDOW_MS);
    expect(cluster.segment.claimsSeen.some((c) => c.at >= handedOver && c.seenBy === leaving.name)).toBe(true);
    expect(alarms(cluster)).toEqual([]);

    await cluster.restart(leaving.name);
    await cluster.settle(leaving.speaker!.endWarmUp(), 'ending the warm-up');
    await cluster.until(
      () => cluster.segment.announcedBy(leaving.name).length > 0 && cluster.converged(),
      `${leaving.name} owns IPs again`,
    );
    await cluster.run(EXPECTED_ANSWER_WINDOW_MS);
    expect(alarms(cluster)).toEqual([]);

    const drained = cluster.node(cluster.anOwner());
    await cluster.settle(drained.speaker!.drain(), 'the drain');
    await cluster.until(
      () => cluster.segment.announcedBy(drained.name).length === 0 && cluster.converged(),
      'the drained node answers for nothing',
    );
    await cluster.run(EXPECTED_ANSWER_WINDOW_MS);
    expect(alarms(cluster)).toEqual([]);

    const undrainedAt = cluster.now();
    await cluster.settle(drained.speaker!.undrain(), 'the undrain');
    await cluster.until(
      () => cluster.segment.announcedBy(drained.name).length > 0 && cluster.converged(),
      'the undrained node answers again',
    );
    await cluster.run(2 * EXPECTED_ANSWER_WINDOW_MS);
    // Coming back overlaps (the returning node answers before the interim owner withdraws): the interim owner
    // heard it, and the self-checks judged such answers expected (mlb_self_check_expected_answers_total).
    expect(cluster.segment.claimsSeen.some((c) => c.at >= undrainedAt && c.by === drained.name)).toBe(true);
    expect(cluster.nodes.reduce((sum, n) => sum + (n.speaker!.metricsCounters().selfCheck?.expectedAnswers ?? 0), 0)).toBeGreaterThan(0);
    expect(alarms(cluster)).toEqual([]);
  });
});
