/**
 * How a speaker in a cluster finds the others (src/daemon/k8s/speaker-pod-peers.ts with the speaker's
 * ClusterMembership, on the fake API server and a manual clock): a speaker pod that starts running is joined at
 * its IP at once, not at the next minute's tick; an existing member's pod changing is not joined again; this
 * node's Node object changing its labels or conditions rejoins the members that are missing (MetalLB's SetNode ->
 * Rejoin), and a heartbeat does not.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterMembership } from '../../../src/daemon/cluster-membership';
import { SpeakerPodPeers } from '../../../src/daemon/k8s/speaker-pod-peers';
import { createLogger } from '../../../src/daemon/logger';
import { addressBytes, formatHostPort, type HostPort } from '../../../src/gossip/transport/address';
import { loadKubeConfig } from '../../../src/sources/k8s/kube-config';
import { startFakeApiServer, type FakeApiServer, type KubeObject } from '../../support/fake-apiserver';
import { ManualRuntime } from '../../support/manual-runtime';
import { until } from '../../support/until';
import { node } from '../../sources/k8s/cluster-fixtures';

const NS = 'metallb-system';
const PORT = 7946;
const SELF = { name: 'node-a', ip: '192.0.2.11' };
/** Bound on the manual time the speaker side gets in advanceUntil. */
const MINUTE_MS = 60_000;
/**
 * "At once": the watch's debounce (100 ms) with room to spare, and far below both MetalLB's minute and the
 * membership's own retry tick (REJOIN_INTERVAL_MS, 5 s), so only a join asked for by the event passes.
 */
const AT_ONCE_MS = 1_000;
const silent = createLogger({ level: 'error', destination: { write: () => true } as unknown as NodeJS.WritableStream });

const speakerPod = (name: string, nodeName: string, ip: string, phase = 'Running'): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, labels: { app: 'metallb', component: 'speaker' } },
    spec: { nodeName, hostNetwork: true },
    status: { podIP: ip, phase },
  }) as unknown as KubeObject;

let api: FakeApiServer;
let dir: string;
let runtime: ManualRuntime;
let peers: SpeakerPodPeers | undefined;
let membership: ClusterMembership | undefined;
/** Every join the membership made, as "host:port" lists. */
let joins: string[][];
/** The hosts gossip says are live members. */
let live: Set<string>;

beforeEach(async () => {
  api = await startFakeApiServer({
    objects: [speakerPod('speaker-a', SELF.name, SELF.ip), speakerPod('speaker-b', 'node-b', '192.0.2.12')],
  });
  api.store.create(api.resourceType('', 'nodes'), { ...node(SELF.name), apiVersion: 'v1', kind: 'Node' } as unknown as KubeObject);
  dir = mkdtempSync(join(tmpdir(), 'mlb-ksp-peers-'));
  runtime = new ManualRuntime();
  joins = [];
  live = new Set([SELF.ip]);
});

afterEach(async () => {
  membership?.stop();
  await peers?.stop();
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The speaker's wiring: the pods' join list as the membership's seeds, the rejoin requests to the membership. */
async function startSpeakerSide(): Promise<void> {
  const { kubeConfig } = await loadKubeConfig({ path: api.kubeconfigPath(dir) });
  peers = new SpeakerPodPeers({
    kubeConfig,
    namespace: NS,
    labels: 'app=metallb,component=speaker',
    port: PORT,
    node: SELF.name,
    extra: [],
    runtime,
    log: silent,
  });
  await advanceUntil('the pods listed', () => true, peers.start());
  const gossip = {
    join: async (targets: readonly HostPort[]) => {
      joins.push(targets.map(formatHostPort));
      for (const t of targets) live.add(t.host);
      return { joined: targets.length, errors: [] };
    },
    liveMembers: () => [...live].map((host) => ({ name: host, addr: addressBytes(host), port: PORT })),
    localAddress: { host: SELF.ip, port: PORT },
  };
  membership = new ClusterMembership({
    gossip: gossip as unknown as ConstructorParameters<typeof ClusterMembership>[0]['gossip'],
    self: SELF.name,
    seeds: peers.targets,
    stateDir: join(dir, 'state'),
    logger: silent,
    runtime,
  });
  await membership.start();
  const m = membership;
  peers.onRejoin(() => m.rejoin());
}

/** Runs the manual clock in small steps (the debounce) until `probe` holds; returns the manual time it took. */
async function advanceUntil(what: string, probe: () => boolean, pending?: Promise<void>): Promise<number> {
  const from = runtime.now();
  let done = pending === undefined;
  void pending?.then(() => (done = true));
  for (;;) {
    const ok = await until(what, () => (done && probe()) || undefined, 50).catch(() => undefined);
    if (ok) return runtime.now() - from;
    if (runtime.now() - from > 2 * MINUTE_MS) throw new Error(`not within two minutes of manual time: ${what}`);
    await runtime.advanceBy(50);
  }
}

/** Lets events in flight arrive and the debounce run, for "nothing happened" checks. */
async function quiet(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 30));
    await runtime.advanceBy(100);
  }
}

describe('speaker pods and the memberlist join', () => {
  it('joins the speaker pods listed at start', async () => {
    await startSpeakerSide();
    expect(joins).toEqual([[`192.0.2.12:${PORT}`]]);
  });

  it('joins a new speaker pod at its IP as soon as it is Running, without waiting for a periodic join', async () => {
    await startSpeakerSide();
    joins.length = 0;
    const pods = api.resourceType('', 'pods');
    api.store.create(pods, speakerPod('speaker-c', 'node-c', '192.0.2.13', 'Pending'));
    await quiet();
    const pending = api.store.get(pods, NS, 'speaker-c')!;
    api.store.update(pods, { ...pending, status: { podIP: '192.0.2.13', phase: 'Running' } } as unknown as KubeObject);
    const took = await advanceUntil('the new pod joined', () => joins.some((j) => j.includes(`192.0.2.13:${PORT}`)));
    expect(took).toBeLessThan(AT_ONCE_MS);
    // Only the one that is not a member yet.
    expect(joins.at(-1)).toEqual([`192.0.2.13:${PORT}`]);
  });

  it("does not join again a member whose pod changes (its IP is a member's)", async () => {
    await startSpeakerSide();
    joins.length = 0;
    const pods = api.resourceType('', 'pods');
    const b = api.store.get(pods, NS, 'speaker-b')!;
    api.store.update(pods, { ...b, metadata: { ...b.metadata, labels: { ...b.metadata.labels, rollout: '2' } } } as unknown as KubeObject);
    await quiet();
    expect(joins).toEqual([]);
  });

  it("rejoins the missing members when this node's labels or conditions change, not on a heartbeat", async () => {
    await startSpeakerSide();
    joins.length = 0;
    live.delete('192.0.2.12'); // speaker-b's node dropped out of gossip (a partition)
    const nodes = api.resourceType('', 'nodes');
    const heartbeat = api.store.get(nodes, undefined, SELF.name)!;
    const status = heartbeat.status as { conditions: { lastHeartbeatTime: string }[] };
    api.store.update(nodes, {
      ...heartbeat,
      status: { ...status, conditions: status.conditions.map((c) => ({ ...c, lastHeartbeatTime: '2026-12-02T03:00:00Z' })) },
    } as unknown as KubeObject);
    await quiet();
    expect(joins).toEqual([]);

    const labelled = api.store.get(nodes, undefined, SELF.name)!;
    api.store.update(nodes, {
      ...labelled,
      metadata: {
        ...labelled.metadata,
        labels: { ...labelled.metadata.labels, 'node.kubernetes.io/exclude-from-external-load-balancers': '' },
      },
    } as unknown as KubeObject);
    const took = await advanceUntil('rejoined', () => joins.length > 0);
    expect(took).toBeLessThan(AT_ONCE_MS);
    expect(joins).toEqual([[`192.0.2.12:${PORT}`]]);
  });
});
