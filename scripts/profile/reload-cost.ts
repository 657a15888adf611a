/**
 * What one reload costs the daemon at scale, in process and on virtual time (no sockets, no sleeping): a real
 * Speaker (test/support/virtual-cluster) with a file of N LoadBalancer services in one pool, timed from
 * (a) start to every IP announced, (b) one service added to the file to that service announced and, with two nodes
 * or more, (c) one node crashed to every IP it held announced by the others (failure detection on virtual time,
 * then the survivors' decisions: the CPU a membership change costs) and (d) that node started again, to every node
 * announcing its share once more (the restarted node's cold decisions beside the others' warm ones). YAML parsing is timed apart (its own line),
 * so the rest is the daemon's path: snapshot, configuration facts, allocation, election, announcements.
 *
 *   node --import tsx scripts/profile/reload-cost.ts [services=10000] [nodes=1]
 *   PROFILE_DIR=/tmp/prof node --import tsx scripts/profile/reload-cost.ts 10000 3   (a, b, c .cpuprofile)
 *
 * Not a test: it prints wall times, which depend on the machine.
 */
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { parseConfig, type Snapshot } from '../../src/model';
import { VirtualNetwork } from '../../src/runtime';
import { VirtualNode, GOSSIP_PORT } from '../../test/support/virtual-cluster/node';
import { VirtualSegment } from '../../test/support/virtual-cluster/segment';

const services = Number(process.argv[2] ?? 10_000);
const nodeCount = Number(process.argv[3] ?? 1);

const HEADER = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: big, namespace: metallb-system }
spec: { addresses: [10.0.0.0/16] }
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: { name: big, namespace: metallb-system }
`;
const serviceDoc = (i: number): string =>
  `---\napiVersion: v1\nkind: Service\nmetadata: { name: svc-${i}, namespace: demo }\nspec: { type: LoadBalancer, ports: [{ port: 80 }] }\n`;
const configText = (count: number): string => HEADER + Array.from({ length: count }, (_, i) => serviceDoc(i)).join('');

function parse(count: number): { snapshot: Snapshot; ms: number } {
  const text = configText(count);
  const t = performance.now();
  const result = parseConfig(text, 'mlb.yaml');
  const ms = performance.now() - t;
  if (!result.ok) throw new Error(JSON.stringify(result.diagnostics.slice(0, 3)));
  return { snapshot: result.snapshot, ms };
}

/** A CPU profile of one phase, written to $PROFILE_DIR/<name>.cpuprofile when that is set. */
async function profiled<T>(name: string, run: () => Promise<T>): Promise<T> {
  const dir = process.env.PROFILE_DIR;
  if (!dir) return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  const value = await run();
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(`${dir}/${name}.cpuprofile`, JSON.stringify(profile));
  session.disconnect();
  return value;
}

async function main(): Promise<void> {
  const first = parse(services);
  const network = new VirtualNetwork({ seed: 1, link: { latency: 1, jitter: 0 } });
  const segment = new VirtualSegment(network.clock, () => true);
  const ips = Array.from({ length: nodeCount }, (_, i) => `192.0.2.${i + 1}`);
  const nodes = ips.map(
    (ip, i) =>
      new VirtualNode({
        name: `node-${i + 1}`,
        ip,
        index: i + 1,
        join: ips.filter((j) => j !== ip).map((host) => ({ host, port: GOSSIP_PORT })),
        config: first.snapshot,
        network,
        segment,
      }),
  );
  const announced = (): number => nodes.reduce((n, node) => n + segment.announcedCount(node.name), 0);
  // The moment the announcer is handed the awaited set, not when the clock loop next looks: work the daemon
  // does after announcing (a report it logs) must not count.
  let awaited = Number.POSITIVE_INFINITY;
  let reachedAt: { wall: number; cpu: NodeJS.CpuUsage } | undefined;
  const reconcile = segment.reconcile.bind(segment);
  segment.reconcile = (port, desired) => {
    reconcile(port, desired);
    if (reachedAt === undefined && announced() >= awaited) reachedAt = { wall: performance.now(), cpu: process.cpuUsage() };
  };
  const runUntil = async (done: () => boolean): Promise<void> => {
    for (let i = 0; i < 100_000 && !done(); i++) await network.advance(10);
    if (!done()) throw new Error('did not converge');
  };

  const cpuMs = (since: NodeJS.CpuUsage): number => {
    const at = reachedAt!.cpu;
    return (at.user - since.user + at.system - since.system) / 1000;
  };
  let t = performance.now();
  let cpu = process.cpuUsage();
  awaited = services;
  await profiled('a', async () => {
    const started = Promise.all(nodes.map((n) => n.start()));
    let ok = false;
    void started.then(() => (ok = true));
    await runUntil(() => ok && announced() === services);
  });
  const initialMs = reachedAt!.wall - t;
  const initialCpu = cpuMs(cpu);
  await network.advance(1_000);

  const second = parse(services + 1);
  t = performance.now();
  cpu = process.cpuUsage();
  awaited = services + 1;
  reachedAt = undefined;
  await profiled('b', async () => {
    for (const node of nodes) node.setConfig(second.snapshot);
    await runUntil(() => announced() === services + 1);
  });
  const addMs = reachedAt!.wall - t;
  const addCpu = cpuMs(cpu);
  await network.advance(1_000);

  let crashLine = '';
  if (nodeCount >= 2) {
    const victim = nodes[0]!;
    const held = segment.announcedBy(victim.name).length;
    t = performance.now();
    cpu = process.cpuUsage();
    awaited = services + 1;
    reachedAt = undefined;
    await profiled('c', async () => {
      victim.crash();
      await runUntil(() => announced() === services + 1);
    });
    reachedAt ??= { wall: performance.now(), cpu: process.cpuUsage() };
    crashLine = `(c) a node crashed -> its ${held} IPs announced: ${(reachedAt.wall - t).toFixed(0)} ms wall, ${cpuMs(cpu).toFixed(0)} ms CPU`;
    await network.advance(1_000);
    t = performance.now();
    cpu = process.cpuUsage();
    reachedAt = undefined;
    awaited = Number.POSITIVE_INFINITY;
    await profiled('d', async () => {
      const started = victim.start();
      let ok = false;
      void started.then(() => (ok = true));
      await runUntil(() => ok && segment.announcedCount(victim.name) > 0 && announced() === services + 1);
    });
    reachedAt = { wall: performance.now(), cpu: process.cpuUsage() };
    crashLine += `\n(d) it started again -> it announces its ${segment.announcedBy(victim.name).length} IPs: ${(reachedAt.wall - t).toFixed(0)} ms wall, ${cpuMs(cpu).toFixed(0)} ms CPU`;
  }

  console.log(`services=${services} nodes=${nodeCount}`);
  console.log(`yaml parse (not the daemon's path): initial ${first.ms.toFixed(0)} ms, edited ${second.ms.toFixed(0)} ms`);
  // CPU time beside wall time: on a shared machine the wall time also counts other processes' turns.
  console.log(`(a) start -> every IP announced:       ${initialMs.toFixed(0)} ms wall, ${initialCpu.toFixed(0)} ms CPU`);
  console.log(`(b) one service added -> announced:    ${addMs.toFixed(0)} ms wall, ${addCpu.toFixed(0)} ms CPU`);
  if (crashLine) console.log(crashLine);
  console.log(`rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`);
  process.exit(0);
}

void main();
