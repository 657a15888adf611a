// Two speakers on the Kubernetes source against the fake API server, each with its status writer: the
// ServiceL2Status of a service is written by its owner (generateName l2-, labels, owned by the speaker's Pod,
// status set after the create), moves when the owner changes, and goes with the owner's Pod (garbage collection);
// the owner emits `nodeAssigned` from metallb-speaker (or `announceFailed` when the advertisement names no
// interface it has), and each speaker writes its ConfigurationState.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/daemon/logger';
import { SpeakerStatusWriter } from '../../../src/daemon/k8s/speaker-status-writer';
import { Speaker, type SpeakerOptions } from '../../../src/daemon/speaker';
import { SWIM_PROFILES } from '../../../src/gossip/swim';
import { REAL_RUNTIME } from '../../../src/runtime';
import type { ApiObject } from '../../../src/sources/k8s/api-object';
import { loadKubeConfig } from '../../../src/sources/k8s/kube-config';
import { KubernetesSource } from '../../../src/sources/k8s/kubernetes-source';
import { startFakeApiServer, type FakeApiServer, type KubeObject } from '../../support/fake-apiserver';
import { l2Advertisement, node, pool, service, slice } from '../../sources/k8s/cluster-fixtures';
import { recordingLayerTwo } from '../../support/recording-layer-two';

const NS = 'metallb-system';
const dir = mkdtempSync(join(tmpdir(), 'mlb-kst-status-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const silent = createLogger({ level: 'error', destination: { write: () => true } as unknown as NodeJS.WritableStream });

const speakerPod = (name: string, nodeName: string, ip: string): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, labels: { app: 'metallb', component: 'speaker' } },
    spec: { nodeName, hostNetwork: true },
    status: { podIP: ip, phase: 'Running' },
  }) as unknown as KubeObject;

let api: FakeApiServer;
beforeAll(async () => {
  api = await startFakeApiServer({
    objects: [speakerPod('speaker-a', 'node-a', '127.0.0.1'), speakerPod('speaker-b', 'node-b', '127.0.0.1')],
  });
  const put = (group: string, plural: string, apiVersion: string, kind: string, object: ApiObject) =>
    api.store.create(api.resourceType(group, plural), { ...object, apiVersion, kind } as unknown as KubeObject);
  put('metallb.io', 'ipaddresspools', 'metallb.io/v1beta1', 'IPAddressPool', pool('public', ['192.0.2.0/28']));
  put('metallb.io', 'l2advertisements', 'metallb.io/v1beta1', 'L2Advertisement', l2Advertisement('l2', { ipAddressPools: ['public'] }));
  for (const name of ['node-a', 'node-b']) put('', 'nodes', 'v1', 'Node', node(name));
  put('', 'services', 'v1', 'Service', service('web', { ingress: ['192.0.2.5'], policy: 'Local' }));
  put(
    'discovery.k8s.io',
    'endpointslices',
    'discovery.k8s.io/v1',
    'EndpointSlice',
    slice('web-x1', 'web', [{ ip: '10.0.0.9', node: 'node-a' }]),
  );
});
afterAll(async () => api.close());

interface Running {
  readonly speaker: Speaker;
  readonly writer: SpeakerStatusWriter;
}
const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    r.writer.stop();
    await r.speaker.stop();
  }
});

async function startSpeaker(name: string, podName: string, joinTo?: string, announced: string[][] = []): Promise<Running> {
  const kubeconfigPath = api.kubeconfigPath(dir);
  const { kubeConfig } = await loadKubeConfig({ path: kubeconfigPath });
  const source = new KubernetesSource({ kubeConfig, namespace: NS });
  const writer = new SpeakerStatusWriter({
    kubeConfig: (await loadKubeConfig({ path: kubeconfigPath })).kubeConfig,
    namespace: NS,
    node: name,
    podName,
    configError: () => undefined,
    runtime: REAL_RUNTIME,
    log: silent,
    retryMs: 200,
  });
  const layerTwo = recordingLayerTwo(announced);
  const [host, port] = (joinTo ?? ':').split(':');
  const options: SpeakerOptions = {
    nodeName: name,
    bind: { host: '127.0.0.1', port: 0 },
    join: joinTo ? [{ host: host ?? '', port: Number(port) }] : [],
    stateDir: join(dir, name),
    nodeLabels: {},
    gossipConfig: SWIM_PROFILES.fast,
    profileName: 'fast',
    logger: silent,
    announce: true,
    controlSocket: join(dir, `${name}.sock`),
    version: 'test',
  };
  const speaker = new Speaker(options, {
    configSource: source,
    runtime: REAL_RUNTIME,
    openLayerTwo: async () => layerTwo,
    openBgp: () => ({ update: () => undefined, status: () => [], close: async () => undefined }),
    openControl: async () => ({ close: async () => undefined }),
    onPlanned: (plan, answered) => writer.planned(plan, answered),
  });
  await speaker.start();
  const r = { speaker, writer };
  running.push(r);
  return r;
}

interface StatusObject {
  metadata: {
    name: string;
    generateName?: string;
    labels?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; uid: string }[];
  };
  status?: { node?: string; serviceName?: string; serviceNamespace?: string; interfaces?: unknown };
}
const l2Statuses = () => api.store.list(api.resourceType('metallb.io', 'servicel2statuses'), NS) as unknown as StatusObject[];
const podUid = (name: string) => api.store.get(api.resourceType('', 'pods'), NS, name)?.metadata.uid;

describe('the speaker writes what it announces into the Kubernetes API', () => {
  it('keeps one ServiceL2Status per service, written by its owner, moved with it, collected with its Pod', async () => {
    const a = await startSpeaker('node-a', 'speaker-a');
    await startSpeaker('node-b', 'speaker-b', a.speaker.snapshot().node.gossip.bind);

    await vi.waitFor(() => expect(l2Statuses().map((o) => o.status?.node)).toEqual(['node-a']), { timeout: 15_000 });
    const [first] = l2Statuses();
    expect(first!.metadata.name).toMatch(/^l2-[a-z0-9]{5}$/);
    expect(first!.metadata.labels).toEqual({
      'metallb.io/node': 'node-a',
      'metallb.io/service-name': 'web',
      'metallb.io/service-namespace': 'default',
    });
    expect(first!.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: 'speaker-a', uid: podUid('speaker-a') }]);
    // No interfaces key: the L2Advertisement does not restrict them.
    expect(first!.status).toEqual({ node: 'node-a', serviceName: 'web', serviceNamespace: 'default' });
    // Created, then its status set through the subresource with a merge patch.
    const writes = api.audit.entries.filter((e) => e.resource === 'servicel2statuses' && e.verb !== 'list' && e.verb !== 'watch');
    expect(writes.slice(0, 2).map((e) => [e.verb, e.subresource ?? '', e.code])).toEqual([
      ['create', '', 201],
      ['patch', 'status', 200],
    ]);

    // The owner's event, from metallb-speaker, as MetalLB words it.
    await vi.waitFor(() => {
      const events = api.store.list(api.resourceType('', 'events'), 'default') as unknown as {
        reason: string;
        message: string;
        source: { component: string };
        involvedObject: { name: string; uid: string };
      }[];
      expect(events.map((e) => [e.reason, e.message, e.source.component, e.involvedObject.name])).toEqual([
        ['nodeAssigned', 'announcing from node "node-a" with protocol "layer2"', 'metallb-speaker', 'web'],
      ]);
    });

    // The endpoint moves to node-b: so does the owner, and so does the object (one, node-b's, owned by its pod).
    const slices = api.resourceType('discovery.k8s.io', 'endpointslices');
    const moved = slice('web-x1', 'web', [{ ip: '10.0.0.9', node: 'node-b' }]);
    api.store.update(slices, { ...api.store.get(slices, 'default', 'web-x1')!, endpoints: moved['endpoints'] } as unknown as KubeObject);
    await vi.waitFor(() => expect(l2Statuses().map((o) => o.status?.node)).toEqual(['node-b']), { timeout: 15_000 });
    expect(l2Statuses()[0]!.metadata.ownerReferences?.[0]?.uid).toBe(podUid('speaker-b'));
    const movedTo = l2Statuses()[0]!.metadata.name;

    // Both speakers wrote their ConfigurationState.
    const states = api.store.list(api.resourceType('metallb.io', 'configurationstates'), NS) as unknown as (StatusObject & {
      status: { result: string };
    })[];
    expect(states.map((s) => [s.metadata.name, s.metadata.labels, s.status.result]).sort()).toEqual([
      ['speaker-node-a', { 'metallb.io/component-type': 'speaker', 'metallb.io/node-name': 'node-a' }, 'Valid'],
      ['speaker-node-b', { 'metallb.io/component-type': 'speaker', 'metallb.io/node-name': 'node-b' }, 'Valid'],
    ]);

    // Back to node-a: its nodeAssigned again is a repeat, counted on the same Event (as client-go's correlator).
    api.store.update(slices, {
      ...api.store.get(slices, 'default', 'web-x1')!,
      endpoints: slice('web-x1', 'web', [{ ip: '10.0.0.9', node: 'node-a' }])['endpoints'],
    } as unknown as KubeObject);
    await vi.waitFor(() => expect(l2Statuses().map((o) => o.status?.node)).toEqual(['node-a']), { timeout: 15_000 });
    await vi.waitFor(() => {
      const events = api.store.list(api.resourceType('', 'events'), 'default') as unknown as { message: string; count: number }[];
      expect(events.map((e) => [e.message, e.count]).sort()).toEqual([
        ['announcing from node "node-a" with protocol "layer2"', 2],
        ['announcing from node "node-b" with protocol "layer2"', 1],
      ]);
    });
    expect(api.audit.count({ resource: 'events', verb: 'patch', code: 200 })).toBe(1);

    // The owner's Pod is deleted: the garbage collector takes its ServiceL2Status with it.
    api.store.delete(api.resourceType('', 'pods'), NS, 'speaker-a');
    expect(l2Statuses()).toEqual([]);
    expect(movedTo).not.toBe(first!.metadata.name);
  }, 60_000);

  it('keeps announcing while the API refuses the writes, and writes once it takes them again', async () => {
    const path = `/apis/metallb.io/v1beta1/namespaces/${NS}/servicel2statuses`;
    api.faults.failNext(3, { pathPrefix: path, method: 'POST', code: 500 });
    const announced: string[][] = [];
    await startSpeaker('node-a', 'speaker-b', undefined, announced);
    await vi.waitFor(() => expect(announced.at(-1)).toEqual(['192.0.2.5']), { timeout: 15_000 });
    await vi.waitFor(
      () => expect(l2Statuses().map((o) => [o.status?.node, o.metadata.ownerReferences?.[0]?.name])).toEqual([['node-a', 'speaker-b']]),
      {
        timeout: 15_000,
      },
    );
    expect(api.audit.count({ resource: 'servicel2statuses', verb: 'create', code: 500 })).toBe(3);
    expect(announced.every((ips) => ips.join() === '192.0.2.5' || ips.length === 0)).toBe(true);
    expect(announced.at(-1)).toEqual(['192.0.2.5']);
  }, 60_000);

  it('writes a ServiceBGPStatus per announcing node, naming the peers the service is advertised to, sorted', async () => {
    await startSpeaker('node-a', 'speaker-b');
    const put = (plural: string, apiVersion: string, kind: string, name: string, spec: Record<string, unknown>) =>
      api.store.create(api.resourceType('metallb.io', plural), {
        apiVersion,
        kind,
        metadata: { name, namespace: NS },
        spec,
      } as unknown as KubeObject);
    put('bgppeers', 'metallb.io/v1beta2', 'BGPPeer', 'tor-b', { myASN: 64500, peerASN: 64501, peerAddress: '198.51.100.2' });
    put('bgppeers', 'metallb.io/v1beta2', 'BGPPeer', 'tor-a', { myASN: 64500, peerASN: 64501, peerAddress: '198.51.100.1' });
    put('bgpadvertisements', 'metallb.io/v1beta1', 'BGPAdvertisement', 'bgp', { ipAddressPools: ['public'] });
    const bgpStatuses = () =>
      api.store.list(api.resourceType('metallb.io', 'servicebgpstatuses'), NS) as unknown as (StatusObject & {
        status?: { peers?: string[] };
      })[];
    await vi.waitFor(
      () =>
        expect(bgpStatuses().map((o) => [o.metadata.name.slice(0, 4), o.metadata.labels?.['metallb.io/node'], o.status])).toEqual([
          ['bgp-', 'node-a', { node: 'node-a', serviceName: 'web', serviceNamespace: 'default', peers: ['tor-a', 'tor-b'] }],
        ]),
      { timeout: 15_000 },
    );
  }, 60_000);

  it('warns announceFailed on the Service, and claims nothing, when the advertisement names no interface the owner has', async () => {
    const put = (group: string, plural: string, object: ApiObject, apiVersion: string, kind: string) =>
      api.store.create(api.resourceType(group, plural), { ...object, apiVersion, kind } as unknown as KubeObject);
    put('metallb.io', 'ipaddresspools', pool('restricted', ['198.51.100.0/28']), 'metallb.io/v1beta1', 'IPAddressPool');
    const ad = l2Advertisement('only-eth9', { ipAddressPools: ['restricted'], interfaces: ['nonexistent'] });
    put('metallb.io', 'l2advertisements', ad, 'metallb.io/v1beta1', 'L2Advertisement');
    put('', 'services', service('shop', { ingress: ['198.51.100.6'] }), 'v1', 'Service');
    put(
      'discovery.k8s.io',
      'endpointslices',
      slice('shop-x1', 'shop', [{ ip: '10.0.0.7', node: 'node-a' }]),
      'discovery.k8s.io/v1',
      'EndpointSlice',
    );
    const a = await startSpeaker('node-a', 'speaker-a');

    const shopEvents = () =>
      (
        api.store.list(api.resourceType('', 'events'), 'default') as unknown as {
          type: string;
          reason: string;
          message: string;
          source: { component: string };
          involvedObject: { name: string };
        }[]
      ).filter((e) => e.involvedObject.name === 'shop');
    await vi.waitFor(() => expect(shopEvents().map((e) => e.reason)).toContain('announceFailed'), { timeout: 15_000 });
    await a.writer.settled();
    expect(shopEvents().map((e) => [e.type, e.reason, e.message, e.source.component])).toEqual([
      [
        'Warning',
        'announceFailed',
        'the interfaces specified by LB IP "198.51.100.6" doesn\'t exist in assigned node "node-a" with protocol "layer2"',
        'metallb-speaker',
      ],
    ]);
    // Nobody answers for it, so no ServiceL2Status says node-a does; web, on the other pool, is unaffected.
    expect(l2Statuses().map((o) => [o.status?.serviceName, o.status?.node])).toEqual([['web', 'node-a']]);
  }, 60_000);
});
