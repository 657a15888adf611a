import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigState } from '../../../src/sources/config-source';
import { KubernetesSource } from '../../../src/sources/k8s/kubernetes-source';
import { loadKubeConfig } from '../../../src/sources/k8s/kube-config';
import { WATCHED_KINDS } from '../../../src/sources/k8s/watched-kinds';
import type { ApiObject } from '../../../src/sources/k8s/api-object';
import { startFakeApiServer, type FakeApiServer, type KubeObject } from '../../support/fake-apiserver';
import { ManualRuntime } from '../../support/manual-runtime';
import { until } from '../../support/until';
import { l2Advertisement, node, pool, service, slice } from './cluster-fixtures';

/** One watch per watched resource. */
const WATCHED = WATCHED_KINDS.length;

let api: FakeApiServer;
let dir: string;
let runtime: ManualRuntime;
let source: KubernetesSource | undefined;
let states: ConfigState[];

const TYPES = {
  pools: ['metallb.io', 'ipaddresspools', 'metallb.io/v1beta1', 'IPAddressPool'],
  l2: ['metallb.io', 'l2advertisements', 'metallb.io/v1beta1', 'L2Advertisement'],
  services: ['', 'services', 'v1', 'Service'],
  nodes: ['', 'nodes', 'v1', 'Node'],
  slices: ['discovery.k8s.io', 'endpointslices', 'discovery.k8s.io/v1', 'EndpointSlice'],
} as const;

function put(which: keyof typeof TYPES, object: ApiObject): void {
  const [group, plural, apiVersion, kind] = TYPES[which];
  api.store.create(api.resourceType(group, plural), { ...object, apiVersion, kind } as unknown as KubeObject);
}

function seedCluster(): void {
  put('pools', pool('public', ['192.0.2.0/28']));
  put('l2', l2Advertisement('l2', { ipAddressPools: ['public'] }));
  put('services', service('web', { ingress: ['192.0.2.1'], policy: 'Local' }));
  put('nodes', node('node-a'));
  put('nodes', node('node-b'));
  put('slices', slice('web-1', 'web', [{ ip: '10.0.0.1', node: 'node-b' }]));
}

async function makeSource(): Promise<KubernetesSource> {
  const { kubeConfig } = await loadKubeConfig({ path: api.kubeconfigPath(dir) });
  source = new KubernetesSource({ kubeConfig, namespace: 'metallb-system', runtime });
  source.onChange((state) => states.push(state));
  return source;
}

/** Lets the debounce (on the manual clock) run, a little at a time, until `probe` holds. */
async function settle<T>(what: string, probe: () => T | undefined | false, maxMs = 600_000): Promise<T> {
  for (let waited = 0; ; waited += 500) {
    const found = await until(what, () => probe() || 'no', 100).catch(() => 'no' as const);
    if (found !== 'no') return found as T;
    if (waited > maxMs) throw new Error(`not within ${maxMs} ms of manual time: ${what}`);
    await runtime.advanceBy(500);
  }
}

/** Gives in-flight events time to arrive and the debounce to run, for "nothing happened" checks. */
async function quiet(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 30));
    await runtime.advanceBy(200);
  }
}

beforeEach(async () => {
  api = await startFakeApiServer();
  dir = mkdtempSync(join(tmpdir(), 'mlb-kso-source-'));
  runtime = new ManualRuntime();
  states = [];
});

afterEach(async () => {
  await source?.stop();
  source = undefined;
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('KubernetesSource', () => {
  it('decides nothing before every resource has been listed, then gives the Snapshot and the endpoints', async () => {
    seedCluster();
    api.faults.failNext(2, { code: 500, pathPrefix: '/api/v1/nodes' });
    const s = await makeSource();
    let started: ConfigState | undefined;
    void s.start().then((state) => (started = state));
    await until('the other resources listed', () => api.audit.count({ verb: 'list', resource: 'services', code: 200 }) === 1);
    await quiet();
    expect(started).toBeUndefined();
    expect(s.state.snapshot).toBeUndefined();
    await settle('started', () => started);
    expect(started?.snapshot?.nodes.map((n) => n.meta.name)).toEqual(['node-a', 'node-b']);
    expect(started?.snapshot?.services.map((x) => x.meta.name)).toEqual(['web']);
    expect(started?.stale).toBe(false);
    expect([...(started?.endpoints?.get('default/web')?.servingNodes ?? [])]).toEqual(['node-b']);
  });

  it('tells its listeners once per real change: a burst is one change, writes mlb does not read are none', async () => {
    seedCluster();
    const s = await makeSource();
    const first = await settleStart(s);
    states.length = 0;
    // Not read: a ClusterIP service, a Node heartbeat, a slice rewritten with the same serving nodes.
    put('services', service('dns', { type: 'ClusterIP' }));
    const nodes = api.resourceType('', 'nodes');
    const a = api.store.get(nodes, undefined, 'node-a');
    if (!a) throw new Error('node-a');
    const status = a.status as { conditions: { lastHeartbeatTime: string }[] };
    for (const c of status.conditions) c.lastHeartbeatTime = '2026-12-01T11:00:00Z';
    api.store.update(nodes, a);
    put('slices', slice('web-2', 'web', [{ ip: '10.0.0.2', node: 'node-b' }]));
    await quiet();
    expect(states).toEqual([]);
    expect(s.state.snapshot).toBe(first.snapshot);
    // A burst: a pool and a service in one go.
    put('pools', pool('second', ['198.51.100.0/28']));
    put('services', service('api', { ingress: ['198.51.100.1'] }));
    await settle('the burst is applied', () => s.state.snapshot?.services.length === 2);
    await quiet();
    expect(states).toHaveLength(1);
    expect(states[0]?.snapshot?.pools.map((p) => p.meta.name)).toEqual(['public', 'second']);
  });

  it('keeps the last good configuration when an object is invalid, stale with the file mode’s reasons', async () => {
    seedCluster();
    const s = await makeSource();
    const first = await settleStart(s);
    put('pools', pool('overlapping', ['192.0.2.8/29']));
    await settle('stale', () => s.state.stale);
    expect(s.state.snapshot).toBe(first.snapshot);
    expect(s.state.diagnostics[0]).toMatchObject({ severity: 'error', code: 'overlappingCIDR' });
    api.store.delete(api.resourceType('metallb.io', 'ipaddresspools'), 'metallb-system', 'overlapping');
    await settle('fresh again', () => !s.state.stale);
    expect(s.state.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('keeps the configuration through an API outage, stale and saying since when, and recovers without a change', async () => {
    seedCluster();
    const s = await makeSource();
    const first = await settleStart(s);
    const outageAt = runtime.now();
    await api.faults.outage('refuse');
    await settle('stale', () => s.state.stale);
    expect(s.state.snapshot).toBe(first.snapshot);
    expect(s.state.endpoints).toBe(first.endpoints);
    const [unreachable] = s.state.diagnostics;
    expect(unreachable?.code).toBe('apiUnreachable');
    const since = Date.parse(/unreachable since (\S+) /.exec(unreachable?.message ?? '')?.[1] ?? '');
    expect(since).toBeGreaterThanOrEqual(outageAt);
    expect(since).toBeLessThanOrEqual(runtime.now());
    // Minutes pass: still the same configuration.
    for (let i = 0; i < 120; i++) await runtime.advanceBy(1_000);
    expect(s.state.snapshot).toBe(first.snapshot);
    await api.faults.heal();
    await settle('fresh again', () => !s.state.stale);
    expect(s.state.snapshot).toBe(first.snapshot);
    expect(states.every((state) => state.snapshot === first.snapshot)).toBe(true);
  });
});

describe('KubernetesSource on a flaky connection', () => {
  it('does not report a dropped watch that is back within seconds', async () => {
    seedCluster();
    const s = await makeSource();
    await settleStart(s);
    states.length = 0;
    const watchesBefore = api.audit.count({ verb: 'watch' });
    await until('every watch open', () => api.faults.openWatches() === WATCHED);
    api.faults.dropWatches();
    await settle(
      'every watch open again',
      () => api.audit.count({ verb: 'watch' }) >= watchesBefore + WATCHED && api.faults.openWatches() === WATCHED,
      4_000,
    );
    for (let i = 0; i < 20; i++) await runtime.advanceBy(500);
    expect(states).toEqual([]);
    expect(s.state.stale).toBe(false);
  });

  it('changes nothing when the API replays everything (a re-list after 410 Gone)', async () => {
    seedCluster();
    const s = await makeSource();
    const first = await settleStart(s);
    states.length = 0;
    const listsBefore = api.audit.count({ verb: 'list', code: 200 });
    await until('every watch open', () => api.faults.openWatches() === WATCHED);
    api.faults.compact();
    api.faults.expireWatches();
    await settle('everything listed again', () => api.audit.count({ verb: 'list', code: 200 }) >= listsBefore + WATCHED, 60_000);
    await quiet();
    expect(states.filter((state) => state.snapshot !== first.snapshot)).toEqual([]);
    expect(s.state.snapshot).toBe(first.snapshot);
  });
});

describe('KubernetesSource following EndpointSlices', () => {
  it('moves where a service is served as its slices are updated, added and deleted; no slice left is nobody', async () => {
    seedCluster();
    const s = await makeSource();
    await settleStart(s);
    const slices = api.resourceType('discovery.k8s.io', 'endpointslices');
    const serving = () => [...(s.state.endpoints?.get('default/web')?.servingNodes ?? [])].sort().join() || 'nobody';
    const becomes = (expected: string) => settle(`web served on ${expected}`, () => serving() === expected);
    expect(serving()).toBe('node-b');

    // The pod moves: the endpoint slice controller rewrites the slice in place.
    const moved = api.store.get(slices, 'default', 'web-1')!;
    (moved as unknown as { endpoints: { nodeName: string }[] }).endpoints[0]!.nodeName = 'node-a';
    api.store.update(slices, moved);
    await becomes('node-a');
    // A second slice (more pods than one slice holds, or the other address family) adds its nodes.
    put('slices', slice('web-2', 'web', [{ ip: '10.0.0.2', node: 'node-b' }]));
    await becomes('node-a,node-b');
    api.store.delete(slices, 'default', 'web-1');
    await becomes('node-b');
    api.store.delete(slices, 'default', 'web-2');
    await becomes('nobody');
    expect(s.state.endpoints?.get('default/web')).toEqual({ servingNodes: new Set() });
  });
});

async function settleStart(s: KubernetesSource): Promise<ConfigState> {
  let started: ConfigState | undefined;
  void s.start().then((state) => (started = state));
  return settle('started', () => started);
}
