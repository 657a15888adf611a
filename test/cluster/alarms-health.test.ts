// Health checks in a 5-node cluster of real speakers on virtual time: a service with mlb.io/health-check whose
// check fails on its owner moves to the next node within fall x interval (plus the gossip round that tells the
// successor), the owner warns healthCheckFailing, and every node's explanation names the failing check and its
// result; when the check fails on every node nobody answers, and the explanation says why for each node.
import { describe, expect, it } from 'vitest';
import { VirtualCluster } from '../support/virtual-cluster/cluster';
import { onlyVirtualTime } from '../support/virtual-cluster/only-virtual-time';
import { parseConfig, type Snapshot } from '../../src/model';
import { configText } from '../daemon/config-facts/config-yaml';

const CHECK = 'tcp://127.0.0.1:8080';
const INTERVAL_MS = 1_000;
const FALL = 2;
const REFUSED = 'connect ECONNREFUSED 127.0.0.1:8080';
/** A few gossip rounds of the fast profile: how long the owner's failing report takes to reach the successor. */
const GOSSIP_MARGIN_MS = 500;

onlyVirtualTime();

/** The pool, and demo/web checked by CHECK every INTERVAL_MS with fall FALL. */
function checkedConfig(): Snapshot {
  const text = `${configText([])}---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: demo
  annotations:
    mlb.io/health-check: "${CHECK}"
    mlb.io/health-check-interval: "${INTERVAL_MS}ms"
    mlb.io/health-check-fall: "${FALL}"
spec: { type: LoadBalancer, ports: [{ port: 80 }] }
`;
  const result = parseConfig(text, 'mlb.yaml');
  if (!result.ok) throw new Error(`test configuration does not parse: ${JSON.stringify(result.diagnostics)}`);
  return result.snapshot;
}

describe('a health-checked service in a 5-node cluster', () => {
  it('leaves an owner whose check fails, says so in its log and in every explanation', async () => {
    const cluster = await VirtualCluster.start({ seed: 31, services: ['web'], configOf: () => checkedConfig() });
    const [ip, [owner]] = [...cluster.announcers()][0]!;
    const failedAt = cluster.now();
    cluster.node(owner!).setHealth(CHECK, { ok: false, detail: REFUSED });

    await cluster.until(
      () => cluster.segment.announcers(ip).length === 1 && cluster.segment.announcers(ip)[0] !== owner && cluster.converged(),
      'the IP moves off the failing owner',
    );
    const history = cluster.history(ip, failedAt);
    expect(history.moves).toBe(1);
    const successor = history.holders[1]!;
    const moved = cluster.segment.historyOf(ip, failedAt).find((c) => c.announcers.includes(successor))!.at;
    // The check runs every interval: the fall-th failure comes within fall intervals of the service dying (plus the
    // phase of the first), and the successor takes the IP a gossip round after the owner's report.
    expect(moved - failedAt).toBeLessThanOrEqual((FALL + 1) * INTERVAL_MS + GOSSIP_MARGIN_MS);
    expect(history.unheldMs).toBeLessThanOrEqual(GOSSIP_MARGIN_MS);

    expect(cluster.node(owner!).events('healthCheckFailing')).toEqual([
      expect.objectContaining({ service: 'demo/web', check: CHECK, result: REFUSED }),
    ]);
    for (const node of cluster.nodes) {
      const explained = node.speaker!.explain().find((e) => e.service === 'demo/web')!;
      expect(explained.winner).toBe(successor);
      expect(explained.candidates.find((c) => c.node === owner)).toEqual(
        expect.objectContaining({ reason: 'healthCheckFailing', healthCheck: expect.objectContaining({ result: REFUSED }) }),
      );
    }
    // Moving away from a failing node is planned: no split-brain alarm.
    expect(cluster.nodes.flatMap((n) => n.events('splitBrainDetected'))).toEqual([]);
  });

  it('is answered by nobody when its check fails everywhere, and every explanation says why', async () => {
    const cluster = await VirtualCluster.start({ seed: 32, services: ['web'], configOf: () => checkedConfig() });
    const [ip] = [...cluster.announcers()][0]!;
    for (const node of cluster.nodes) node.setHealth(CHECK, { ok: false, detail: REFUSED });

    await cluster.until(
      () =>
        cluster.segment.announcers(ip).length === 0 &&
        cluster.nodes.every((n) => n.speaker!.explain().find((e) => e.service === 'demo/web')?.winner === null),
      'nobody answers for the IP',
    );
    // A gossip round later every node knows every other node's reason (relayed, not waiting for a push/pull).
    await cluster.run(GOSSIP_MARGIN_MS);
    expect(cluster.segment.announcers(ip)).toEqual([]);
    for (const node of cluster.nodes) {
      expect(node.events('healthCheckFailing')).toEqual([expect.objectContaining({ service: 'demo/web', result: REFUSED })]);
      const explained = node.speaker!.explain().find((e) => e.service === 'demo/web')!;
      expect(explained.announcing).toEqual([]);
      expect(explained.candidates.map((c) => [c.node, c.reason, c.healthCheck?.result])).toEqual(
        cluster.nodes.map((n) => [n.name, 'healthCheckFailing', REFUSED]).sort(),
      );
    }
  });
});
