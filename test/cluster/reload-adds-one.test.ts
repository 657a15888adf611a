// Every node's file gains one service among 120 (inserted in the middle, so every other document moves): the
// reload announces that service's IP and touches nothing else. No other IP is withdrawn, re-announced or moved on
// the segment, and no node logs an announcement, withdrawal or owner change for another service: the reload's
// shortcuts (snapshot interning, the allocator's settled-reload turn, the election's reused units) give what a
// full recomputation gives.
import { describe, expect, it } from 'vitest';
import { parseConfig, type Snapshot } from '../../src/model';
import { VirtualCluster } from '../support/virtual-cluster/cluster';
import { onlyVirtualTime } from '../support/virtual-cluster/only-virtual-time';

onlyVirtualTime();

const COUNT = 120;
const HEADER = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: big, namespace: metallb-system }
spec: { addresses: [10.0.0.0/22] }
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: { name: big, namespace: metallb-system }
`;
const serviceDoc = (name: string): string =>
  `---\napiVersion: v1\nkind: Service\nmetadata: { name: ${name}, namespace: demo }\nspec: { type: LoadBalancer, ports: [{ port: 80 }] }\n`;

function config(names: readonly string[]): Snapshot {
  const result = parseConfig(HEADER + names.map(serviceDoc).join(''), 'mlb.yaml');
  if (!result.ok) throw new Error(JSON.stringify(result.diagnostics));
  return result.snapshot;
}

describe('a reload that adds one service to 120 on a 3-node cluster', () => {
  it("announces the new service's IP and withdraws, re-announces or moves no other", async () => {
    const names = Array.from({ length: COUNT }, (_, i) => `svc-${String(i).padStart(3, '0')}`);
    const cluster = await VirtualCluster.start({ seed: 16, size: 3, services: names, configOf: () => config(names) });
    const before = cluster.announcers();
    expect(before.size).toBe(COUNT);
    await cluster.run(5_000);
    const since = cluster.now();
    const logged = new Map(cluster.nodes.map((n) => [n.name, n.logs.length]));

    const edited = [...names.slice(0, 60), 'svc-new', ...names.slice(60)];
    for (const node of cluster.nodes) node.setConfig(config(edited));
    await cluster.until(() => cluster.serviceIps().has('demo/svc-new'), 'the new service has an IP');
    const newIp = cluster.serviceIps().get('demo/svc-new')!;
    await cluster.until(() => cluster.segment.announcers(newIp).length === 1, 'the new IP is announced');
    await cluster.run(10_000);

    // On the wire: the new IP is the only one whose announcers changed since the edit.
    const changed = cluster.segment.ips().filter((ip) => cluster.segment.historyOf(ip, since).length > 1);
    expect(changed).toEqual([newIp]);
    expect(new Set(before.keys()).has(newIp)).toBe(false);
    expect(cluster.announcers()).toEqual(new Map([...before, [newIp, cluster.segment.announcers(newIp)]]));

    // In the logs: announcements, withdrawals and owner changes name the new service only. (The allocator may
    // hold it first and hand it over once the others' configuration facts say they define it too.)
    const about = (event: string): unknown[] =>
      cluster.nodes.flatMap((n) =>
        n.logs
          .slice(logged.get(n.name))
          .filter((l) => l.event === event)
          .map((l) => l.service),
      );
    for (const event of ['serviceAnnounced', 'serviceWithdrawn', 'ownerChanged']) {
      expect(
        about(event).filter((s) => s !== 'demo/svc-new'),
        event,
      ).toEqual([]);
    }
    expect(about('serviceAnnounced')).toContain('demo/svc-new');
  });
});
