// Two speakers on the Kubernetes source, against the fake API server: each elects the owner MetalLB would (a Local
// service is owned by the node its endpoints are on, whatever the hash says), announces the IPs the controller
// wrote into status.loadBalancer.ingress, and keeps announcing through an API outage (stale, never withdrawn).
// Gossip runs on loopback with the real runtime; layer 2 is a recorder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/daemon/logger';
import { Speaker, type SpeakerOptions } from '../../../src/daemon/speaker';
import type { BgpSessions } from '../../../src/daemon/speaker-parts';
import { SWIM_PROFILES } from '../../../src/gossip/swim';
import { rankNodes } from '../../../src/election/hash-order';
import { REAL_RUNTIME } from '../../../src/runtime';
import { KubernetesSource } from '../../../src/sources/k8s/kubernetes-source';
import { loadKubeConfig } from '../../../src/sources/k8s/kube-config';
import type { ApiObject } from '../../../src/sources/k8s/api-object';
import { startFakeApiServer, type FakeApiServer, type KubeObject } from '../../support/fake-apiserver';
import { l2Advertisement, node, pool, service, slice } from './cluster-fixtures';
import { recordingLayerTwo } from '../../support/recording-layer-two';

const dir = mkdtempSync(join(tmpdir(), 'mlb-kso-speaker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const silent = createLogger({ level: 'error', destination: { write: () => true } as unknown as NodeJS.WritableStream });

/**
 * Service, ingress IP, the node its only endpoint is on. The first two IPs hash to the other node first
 * (192.0.2.5 ranks node-b first, 192.0.2.7 node-a): only the EndpointSlices can make them owned as expected.
 */
const SERVICES = [
  ['on-a', '192.0.2.5', 'node-a'],
  ['on-b', '192.0.2.7', 'node-b'],
  ['on-a2', '192.0.2.1', 'node-a'],
  ['on-b2', '192.0.2.2', 'node-b'],
] as const;

let api: FakeApiServer;
beforeAll(async () => {
  api = await startFakeApiServer();
  const put = (group: string, plural: string, apiVersion: string, kind: string, object: ApiObject) =>
    api.store.create(api.resourceType(group, plural), { ...object, apiVersion, kind } as unknown as KubeObject);
  put('metallb.io', 'ipaddresspools', 'metallb.io/v1beta1', 'IPAddressPool', pool('public', ['192.0.2.0/28']));
  put('metallb.io', 'l2advertisements', 'metallb.io/v1beta1', 'L2Advertisement', l2Advertisement('l2', { ipAddressPools: ['public'] }));
  // Labels as a real cluster's Nodes carry them (topology, instance type, operators'): far more than memberlist's
  // 512 bytes of node meta could hold.
  const labels = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`topology.example.com/label-${i}`, `value-${i}-abcdefghij`]));
  for (const name of ['node-a', 'node-b']) put('', 'nodes', 'v1', 'Node', node(name, { labels }));
  for (const [name, ip, on] of SERVICES) {
    put('', 'services', 'v1', 'Service', service(name, { ingress: [ip], policy: 'Local' }));
    put(
      'discovery.k8s.io',
      'endpointslices',
      'discovery.k8s.io/v1',
      'EndpointSlice',
      slice(`${name}-x1`, name, [{ ip: '10.0.0.9', node: on }]),
    );
  }
});
afterAll(async () => api.close());

interface Running {
  readonly speaker: Speaker;
  readonly source: KubernetesSource;
  readonly reconciled: string[][];
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.speaker.stop();
});

async function startSpeaker(name: string, joinTo?: string): Promise<Running> {
  const { kubeConfig } = await loadKubeConfig({ path: api.kubeconfigPath(dir) });
  const source = new KubernetesSource({ kubeConfig, namespace: 'metallb-system' });
  const reconciled: string[][] = [];
  const layerTwo = recordingLayerTwo(reconciled);
  const bgp: BgpSessions = { update: () => undefined, status: () => [], close: async () => undefined };
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
    openBgp: () => bgp,
    openControl: async () => ({ close: async () => undefined }),
  });
  await speaker.start();
  const r = { speaker, source, reconciled };
  running.push(r);
  return r;
}

const owners = (r: Running) =>
  Object.fromEntries(
    r.speaker
      .snapshot()
      .services.map((s) => [s.service, s.owner])
      .sort(),
  );

describe('speakers on the Kubernetes source', () => {
  it('elect the node the endpoints are on, announce the ingress IPs, and keep announcing through an API outage', async () => {
    expect(rankNodes(['node-a', 'node-b'], '192.0.2.5')[0]).toBe('node-b');
    expect(rankNodes(['node-a', 'node-b'], '192.0.2.7')[0]).toBe('node-a');
    const a = await startSpeaker('node-a');
    const b = await startSpeaker('node-b', a.speaker.snapshot().node.gossip.bind);
    const expected = { 'default/on-a': 'node-a', 'default/on-a2': 'node-a', 'default/on-b': 'node-b', 'default/on-b2': 'node-b' };
    await vi.waitFor(() => expect(owners(a)).toEqual(expected), { timeout: 15_000 });
    await vi.waitFor(() => expect(owners(b)).toEqual(expected), { timeout: 15_000 });
    await vi.waitFor(() => expect(a.reconciled.at(-1)).toEqual(['192.0.2.1', '192.0.2.5']), { timeout: 15_000 });
    await vi.waitFor(() => expect(b.reconciled.at(-1)).toEqual(['192.0.2.2', '192.0.2.7']), { timeout: 15_000 });
    const announcedBefore = a.reconciled.length;

    await api.faults.outage('refuse');
    await vi.waitFor(() => expect(a.speaker.snapshot().config).toMatchObject({ state: 'stale' }), { timeout: 15_000 });
    expect(a.source.state.diagnostics[0]?.code).toBe('apiUnreachable');
    // Let the watches fail and retry a few times.
    await vi.waitFor(() => expect(a.source.state.diagnostics[0]?.message).toMatch(/unreachable since/), { timeout: 15_000 });
    expect(a.reconciled.at(-1)).toEqual(['192.0.2.1', '192.0.2.5']);
    expect(owners(a)).toEqual(expected);

    await api.faults.heal();
    await vi.waitFor(() => expect(a.speaker.snapshot().config).toMatchObject({ state: 'ok' }), { timeout: 40_000 });
    // Never withdrawn on the way.
    expect(a.reconciled.slice(announcedBefore - 1).every((ips) => ips.join() === '192.0.2.1,192.0.2.5')).toBe(true);
  }, 90_000);
});
