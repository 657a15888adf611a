/**
 * Kubernetes mode end to end, in network namespaces: the fake API server with deploy/'s RBAC, `mlb controller`, three
 * `mlb daemon --kubernetes` speakers (the built bundle) and a client on one segment. A user creates a Service with
 * kubectl; it gets an address from the pool, status and events; the client reaches it; the owner's speaker is killed
 * and another node answers; the API server stops for 30 s and nothing is withdrawn; the killed speaker restarts and
 * rejoins without a dark moment for the client; no request was ever refused.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rankNodes } from '../../src/election';
import { FAST_CONFIG, detectionTime } from '../../src/gossip/swim/config';
import { MAX_RESTART_DELAY_MS } from '../../src/sources/k8s/restart-policy';
import { INSTALL_NAMESPACE, kubectlMissing } from '../support/deploy-manifests';
import { canUseNetns } from '../support/netns-lab';
import { until } from '../support/until';
import { MLB_BUNDLE, REPO_ROOT } from '../cli/run-cli';
import { HTTP_PORT } from './daemon-lab';
import { APP_NAMESPACE, CONTROLLER_SUBJECT, KubeLab, SPEAKER_SUBJECT, endpointSlice } from './kube-lab';

const netns = canUseNetns();
const kubectlSkip = kubectlMissing();
const skip = netns.ok ? kubectlSkip : netns.why;
const SERVICE = `${APP_NAMESPACE}/web`;
const run = promisify(execFile);

/** The user's objects, applied with kubectl as in MetalLB's L2 quick start (the lab segment's spare addresses). */
const POOL_YAML = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata: { name: lab, namespace: ${INSTALL_NAMESPACE} }
spec:
  addresses: [10.213.0.200-10.213.0.220]
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: { name: lab, namespace: ${INSTALL_NAMESPACE} }
`;
const SERVICE_YAML = `apiVersion: v1
kind: Service
metadata: { name: web, namespace: ${APP_NAMESPACE} }
spec:
  type: LoadBalancer
  selector: { app: web }
  ports: [{ port: ${HTTP_PORT}, protocol: TCP }]
`;
const POOL_ADDRESS = /^10\.213\.0\.2([01]\d|20)$/;

/**
 * How long after a kill -9 another node may start answering: the fast profile's worst-case detection of a crash in
 * three nodes (detectionTime, about 2.8 s), plus the margin for what follows it on this shared 2-core machine (the
 * election, the gratuitous ARP, the client's next request 20 ms later, and scheduling delay under load).
 */
const FAILOVER_MARGIN_MS = 3_000;
const FAILOVER_BOUND_MS = detectionTime(FAST_CONFIG, 3).worst + FAILOVER_MARGIN_MS;
/** How long the API server stays down: far past every watch's restart backoff, so each speaker has retried. */
const API_OUTAGE_MS = 30_000;
/** After the outage: the longest watch backoff, plus the relist and a recompute on a loaded machine. */
const RESYNC_TIMEOUT_MS = MAX_RESTART_DELAY_MS + 15_000;

describe.skipIf(skip !== undefined)(`Kubernetes mode in network namespaces${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let lab: KubeLab;
  let ip: string;
  let owner: string;

  beforeAll(async () => {
    lab = await KubeLab.start((nodes) => [endpointSlice('web', HTTP_PORT, nodes)]);
    lab.startController();
    const keyDir = await lab.memberlistKeyDir();
    for (const node of lab.hosts.nodes) lab.startSpeaker(node.name, keyDir);
    await lab.kubectl.ok(['apply', '--validate=false', '-f', '-'], { input: POOL_YAML });
    for (const node of lab.hosts.nodes) await lab.hosts.daemon(node.name).waitFor((l) => l.event === 'gossipStarted', 20_000);
  }, 60_000);
  afterAll(async () => {
    // KUBE_LAB_LOGS=1 prints what each speaker and the controller logged, to see why a run failed.
    if (process.env.KUBE_LAB_LOGS && lab) console.log(lab.logs());
    await lab?.destroy();
  });

  const ingressOf = async (): Promise<string | undefined> =>
    (await lab.kubectl.ok(['get', 'svc', 'web', '-n', APP_NAMESPACE, '-o', 'jsonpath={.status.loadBalancer.ingress[0].ip}'])) || undefined;
  const eventsOf = async (name: string) =>
    (
      JSON.parse(
        await lab.kubectl.ok(['get', 'events', '-n', APP_NAMESPACE, '--field-selector', `involvedObject.name=${name}`, '-o', 'json']),
      ) as { items: { reason: string; type: string; message: string; source: { component: string } }[] }
    ).items;
  /** The only ServiceL2Status of the Service when there is exactly one and it names `node`, else undefined. */
  const onlyL2Status = async (node: string) => {
    const list = JSON.parse(await lab.kubectl.ok(['get', 'servicel2statuses', '-n', INSTALL_NAMESPACE, '-o', 'json'])) as {
      items: { metadata: { labels?: Record<string, string> }; status?: { node?: string } }[];
    };
    return list.items.length === 1 && list.items[0]!.status?.node === node ? list.items[0] : undefined;
  };
  const runningSpeakers = () => lab.hosts.nodes.map((n) => n.name).filter((n) => running(lab.hosts.daemon(n).child));

  it('a Service created with kubectl gets an address from the pool, its status, an IPAllocated event, and the client reaches its owner', async () => {
    await lab.kubectl.ok(['apply', '--validate=false', '-f', '-'], { input: SERVICE_YAML });
    ip = await until('the Service has an ingress IP', ingressOf, 20_000);
    expect(ip).toMatch(POOL_ADDRESS);
    const svc = JSON.parse(await lab.kubectl.ok(['get', 'svc', 'web', '-n', APP_NAMESPACE, '-o', 'json']));
    expect(svc.metadata.annotations['metallb.io/ip-allocated-from-pool']).toBe('lab');
    const events = await eventsOf('web');
    expect(events).toContainEqual(
      expect.objectContaining({ reason: 'IPAllocated', type: 'Normal', source: { component: 'metallb-controller' } }),
    );
    expect(events.find((e) => e.reason === 'IPAllocated')?.message).toContain(ip);
    // Every speaker read the address from the Service's status and agrees on one owner.
    owner = await until('the speakers agree on an owner', () => lab.agreedOwner(SERVICE, runningSpeakers()), 30_000);
    for (const node of runningSpeakers()) expect((await lab.status(node)).services.find((s) => s.service === SERVICE)?.ips).toEqual([ip]);
    expect(await until('the client reaches the VIP', () => lab.curl(ip))).toBe(owner);
    expect(await until('an ARP answer', async () => nonEmpty(await lab.arpingMacs(ip)))).toEqual([lab.hosts.macOf(owner)]);
  }, 60_000);

  it("the owner's speaker records nodeAssigned on the Service and one ServiceL2Status names its node", async () => {
    const assigned = await until('a nodeAssigned event', async () =>
      nonEmpty((await eventsOf('web')).filter((e) => e.reason === 'nodeAssigned')),
    );
    expect(assigned).toEqual([
      expect.objectContaining({
        type: 'Normal',
        source: { component: 'metallb-speaker' },
        message: `announcing from node "${owner}" with protocol "layer2"`,
      }),
    ]);
    expect(await until(`one ServiceL2Status on ${owner}`, async () => onlyL2Status(owner))).toMatchObject({
      metadata: { labels: { 'metallb.io/node': owner, 'metallb.io/service-name': 'web', 'metallb.io/service-namespace': APP_NAMESPACE } },
      status: { node: owner, serviceName: 'web', serviceNamespace: APP_NAMESPACE },
    });
  }, 30_000);

  it("kill -9 of the owner's speaker: another node answers within the fast profile's failover bound", async () => {
    const loop = lab.hosts.clientLoop(ip);
    try {
      await until('the client hears the owner', () => loop.samples.some((s) => s.node === owner));
      const killedAt = Date.now();
      lab.hosts.daemon(owner).child.kill('SIGKILL');
      await lab.hosts.daemon(owner).exited();
      const first = await until(
        'another node answers',
        () => loop.samples.find((s) => s.t >= killedAt && s.node !== null && s.node !== owner),
        20_000,
      );
      // Measured in the client (its own clock), from the kill to the first answer of another node.
      console.log(`kill -9 of ${owner}'s speaker to ${first.node} answering: ${first.t - killedAt} ms (bound ${FAILOVER_BOUND_MS} ms)`);
      expect(first.t - killedAt, `failover took ${first.t - killedAt} ms`).toBeLessThan(FAILOVER_BOUND_MS);
      const next = first.node!;
      await until("the client's neighbour entry moves", () => lab.hosts.clientNeighbour(ip) === lab.hosts.macOf(next));
      expect(await lab.arpingMacs(ip, 3)).toEqual([lab.hosts.macOf(next)]);
      for (const node of runningSpeakers())
        await until(`${node} names ${next} the owner`, async () => (await lab.ownerOf(node, SERVICE)) === next);
      owner = next;
    } finally {
      loop.stop();
    }
  }, 45_000);

  it("after the failover one ServiceL2Status names the new owner's node", async () => {
    expect(await until(`one ServiceL2Status on ${owner}`, async () => onlyL2Status(owner), 20_000)).toMatchObject({
      status: { node: owner, serviceName: 'web', serviceNamespace: APP_NAMESPACE },
    });
  }, 30_000);

  it('the API server stops for 30 s: nothing is withdrawn, the client keeps reaching the owner, and the speakers resync after', async () => {
    const survivors = runningSpeakers();
    const state = async (node: string) => (await lab.status(node)).config.state;
    const loop = lab.hosts.clientLoop(ip);
    try {
      await until('the client hears the owner', () => loop.samples.some((s) => s.node === owner));
      const stoppedAt = Date.now();
      await lab.stopApi();
      // The speakers notice: their configuration is marked stale, not dropped.
      for (const node of survivors) await until(`${node} stale`, async () => (await state(node)) === 'stale', 20_000);
      await new Promise((resolve) => setTimeout(resolve, API_OUTAGE_MS - (Date.now() - stoppedAt)));
      const during = loop.samples.filter((s) => s.t >= stoppedAt);
      expect(during.length).toBeGreaterThan(0);
      expect(during.filter((s) => s.node !== owner)).toEqual([]);
      for (const node of survivors) expect(await lab.ownerOf(node, SERVICE)).toBe(owner);
      expect(await lab.arpingMacs(ip)).toEqual([lab.hosts.macOf(owner)]);

      await lab.startApi();
      // Each watch retries on its own backoff (up to MAX_RESTART_DELAY_MS), so the last one is back within it.
      for (const node of survivors) await until(`${node} resynced`, async () => (await state(node)) !== 'stale', RESYNC_TIMEOUT_MS);
      expect(await ingressOf()).toBe(ip);
      for (const node of survivors) expect(await lab.ownerOf(node, SERVICE)).toBe(owner);
      expect(loop.samples.filter((s) => s.t >= stoppedAt && s.node !== owner)).toEqual([]);
    } finally {
      loop.stop();
    }
  }, 120_000);

  it("the killed speaker restarts as the DaemonSet restarts it: it rejoins warming up, announcing nothing while the owner keeps answering, then takes back the IP MetalLB's hash gives it, with one ServiceL2Status", async () => {
    const all = lab.hosts.nodes.map((n) => n.name);
    const killed = all.find((n) => !running(lab.hosts.daemon(n).child));
    expect(killed, 'the speaker killed by the failover test').toBeDefined();
    const back = killed!;
    const holder = owner;
    const others = all.filter((n) => n !== back);
    // With every node serving, the hash winner among all three is the node that owned the IP before it was killed.
    expect(rankNodes(all, ip)[0]).toBe(back);
    const loop = lab.hosts.clientLoop(ip);
    try {
      await until('the client hears the owner', () => loop.samples.some((s) => s.node === holder));
      const heardBefore = new Map(others.map((n) => [n, lab.hosts.daemon(n).lines.length]));
      const restartedAt = Date.now();
      const restarted = lab.startSpeaker(back, await lab.memberlistKeyDir());
      // Its unclean end makes it warm up (WARM_UP_BASE_MS): back in gossip and seen by every other speaker, elected by none.
      await restarted.waitFor((l) => l.event === 'gossipJoin', 60_000);
      expect(restarted.lines.some((l) => l.event === 'warmUpStarted')).toBe(true);
      for (const node of others)
        await until(`${node} hears ${back} join again`, () =>
          lab.hosts
            .daemon(node)
            .lines.slice(heardBefore.get(node))
            .some((l) => l.event === 'memberJoined' && String(l.msg).endsWith(back)),
        );
      // An operator ends the warm-up (mlb warmup end) instead of waiting it out; a slow machine may have ended it already.
      await run(process.execPath, [MLB_BUNDLE, 'warmup', 'end', '--socket', lab.hosts.socket(back)], { cwd: REPO_ROOT });
      const warmUpEnded = await restarted.waitFor((l) => l.event === 'warmUpEnded', 60_000);
      const warmUpEndedAt = Date.parse(String(warmUpEnded.ts));
      await until(`every speaker names ${back} the owner`, async () => (await lab.agreedOwner(SERVICE, all)) === back, 30_000);
      await until(`the client reaches ${back}`, () => loop.samples.some((s) => s.t >= warmUpEndedAt && s.node === back), 20_000);
      // Nothing announced while warming up: its first announcement comes after the end of the warm-up.
      const firstAnnounced = restarted.lines.findIndex((l) => l.event === 'serviceAnnounced');
      expect(firstAnnounced).toBeGreaterThan(restarted.lines.indexOf(warmUpEnded));
      // From the restart to the end of the warm-up the other node held the IP, and the client always reached it.
      const whileHeld = loop.samples.filter((s) => s.t >= restartedAt && s.t < warmUpEndedAt);
      expect(whileHeld.length).toBeGreaterThan(0);
      expect(whileHeld.filter((s) => s.node !== holder)).toEqual([]);
      expect(await until(`one ServiceL2Status on ${back}`, async () => onlyL2Status(back), 30_000)).toMatchObject({
        status: { node: back, serviceName: 'web', serviceNamespace: APP_NAMESPACE },
      });
      owner = back;
    } finally {
      loop.stop();
    }
  }, 180_000);

  it("no request of the controller or the speakers was refused by deploy/'s RBAC", () => {
    expect(lab.api.audit.count({ subject: CONTROLLER_SUBJECT })).toBeGreaterThan(0);
    expect(lab.api.audit.count({ subject: SPEAKER_SUBJECT })).toBeGreaterThan(0);
    expect(lab.api.audit.forbidden()).toEqual([]);
    // The controller writes a Service only through its status subresource, as MetalLB's Role allows.
    expect(
      lab.api.audit.filter({ subject: CONTROLLER_SUBJECT, resource: 'services', subresource: undefined }).map((e) => e.verb),
    ).not.toContain('update');
  });
});

/** Still running: a process killed by a signal has exitCode null too, so both are checked. */
function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function nonEmpty<T>(list: T[]): T[] | undefined {
  return list.length > 0 ? list : undefined;
}
