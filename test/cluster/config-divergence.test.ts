// One node of a 5-node cluster of real speakers is given a different file (one service missing, one extra) while
// it owns the service it loses: the cluster reports the divergence (configuration facts in gossip), and the IP of
// the service the others still define keeps being answered (retention) instead of going dark.
import { describe, expect, it } from 'vitest';
import { VirtualCluster } from '../support/virtual-cluster/cluster';
import { onlyVirtualTime } from '../support/virtual-cluster/only-virtual-time';
import { configSnapshot } from '../daemon/config-facts/config-yaml';

const SERVICES = ['web', 'api', 'db', 'cache', 'queue'];

onlyVirtualTime();

describe('a 5-node cluster where one node gets a different file', () => {
  it('reports the divergence on every node and keeps answering for the service the odd node lacks', async () => {
    const cluster = await VirtualCluster.start({ seed: 6, services: SERVICES });
    const db = cluster.serviceIps().get('demo/db')!;
    const odd = cluster.node(cluster.segment.announcers(db)[0]!);
    const since = cluster.now();
    odd.setConfig(configSnapshot(['web', 'api', 'cache', 'queue', 'extra']));

    const agreement = (node: string) => cluster.node(node).speaker!.snapshot().configAgreement;
    await cluster.until(
      () => cluster.nodes.every((n) => (agreement(n.name)?.divergent.length ?? 0) > 0),
      'every node reports the divergence',
    );
    // The others name the odd node and what it lacks; the odd node names each of them, and lacks its extra service.
    const others = cluster.nodes.filter((n) => n !== odd);
    for (const node of others) {
      expect(agreement(node.name)!.divergent).toEqual([expect.objectContaining({ node: odd.name, lacks: ['demo/db'], extra: 1 })]);
    }
    expect(
      agreement(odd.name)!
        .divergent.map((d) => d.node)
        .sort(),
    ).toEqual(others.map((n) => n.name).sort());
    expect(agreement(odd.name)!.retained).toEqual([{ service: 'demo/db', definedBy: others.map((n) => n.name).sort() }]);

    // db is never dark: its owner keeps answering for it while the others define it.
    await cluster.run(30_000);
    const history = cluster.history(db, since);
    expect(history).toMatchObject({ unheldMs: 0, contestedMs: 0 });
    expect(cluster.segment.announcers(db)).toHaveLength(1);
    // What the odd node's log says: which service it still announces, for whom, and whose files differ.
    expect(odd.events('servicesRetained').at(-1)).toMatchObject({
      retained: [{ service: 'demo/db', definedBy: others.map((n) => n.name).sort() }],
    });
    expect(odd.events('configDiverged').map((l) => l.lacks)).toEqual(others.map(() => ['demo/extra']));
  });
});
