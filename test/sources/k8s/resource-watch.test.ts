import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { loadClientNode } from '../../../src/sources/k8s/api/client-node-module';
import { ResourceWatch } from '../../../src/sources/k8s/resource-watch';
import { startFakeApiServer, type FakeApiServer } from '../../support/fake-apiserver';
import { ManualRuntime } from '../../support/manual-runtime';
import { until } from '../../support/until';

const PATH = '/api/v1/services';

let api: FakeApiServer;
let dir: string;
let runtime: ManualRuntime;
let watch: ResourceWatch | undefined;

function svc(name: string, labels: Record<string, string> = { app: 'web' }) {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', labels },
    spec: { type: 'LoadBalancer', ports: [{ name: 'http', protocol: 'TCP', port: 80 }] },
  };
}

const services = () => api.resourceType('', 'services');
const names = (w: ResourceWatch) =>
  w
    .objects()
    .map((o) => o.metadata?.name)
    .sort();
const watchRequests = () => api.audit.filter({ verb: 'watch', path: PATH });
const listRequests = () => api.audit.filter({ verb: 'list', path: PATH });

/** Moves the manual clock a second at a time (restart backoffs are on it) until `probe` holds. */
async function advanceUntil<T>(what: string, probe: () => T | undefined | false, stepMs = 1_000, maxMs = 600_000): Promise<T> {
  for (let waited = 0; ; waited += stepMs) {
    const found = await until(what, () => probe() || 'no', 200).catch(() => 'no' as const);
    if (found !== 'no') return found as T;
    if (waited > maxMs) throw new Error(`not within ${maxMs} ms of manual time: ${what}`);
    await runtime.advanceBy(stepMs);
  }
}

function startWatch(options: { labelSelector?: string } = {}): ResourceWatch {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(api.kubeconfigPath(dir));
  watch = new ResourceWatch({ kubeConfig, path: PATH, name: 'services', runtime, onChange: () => {}, ...options });
  watch.start();
  return watch;
}

beforeEach(async () => {
  await loadClientNode(); // what loading a kubeconfig does first in mlb
  api = await startFakeApiServer();
  dir = mkdtempSync(join(tmpdir(), 'mlb-kso-watch-'));
  runtime = new ManualRuntime();
});

afterEach(async () => {
  await watch?.stop();
  watch = undefined;
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ResourceWatch against an API server', () => {
  it('is synced once the first list is applied, then follows changes; list and watch carry the same selectors', async () => {
    api.store.create(services(), svc('a'));
    api.store.create(services(), svc('other', { app: 'db' }));
    const w = startWatch({ labelSelector: 'app=web' });
    await until('synced', () => w.synced);
    expect(names(w)).toEqual(['a']);
    api.store.create(services(), svc('b'));
    api.store.create(services(), svc('other2', { app: 'db' }));
    await until('b arrives by the watch', () => names(w).includes('b'));
    expect(names(w)).toEqual(['a', 'b']);
    const [list] = listRequests();
    const [first] = watchRequests();
    expect(list?.query).toContain('labelSelector=app%3Dweb');
    expect(first?.query).toContain('labelSelector=app%3Dweb');
    expect(first?.query).toContain('allowWatchBookmarks=true');
    const timeout = Number(new URLSearchParams(first?.query).get('timeoutSeconds'));
    expect(timeout).toBeGreaterThanOrEqual(300);
    expect(timeout).toBeLessThanOrEqual(600);
  });

  it('restarts after an abrupt disconnect from the last resourceVersion, without listing again', async () => {
    api.store.create(services(), svc('a'));
    const w = startWatch();
    await until('synced', () => w.synced);
    await until('watching', () => api.faults.openWatches() === 1);
    api.faults.dropWatches();
    await until('the drop is noticed', () => w.lastError);
    api.store.create(services(), svc('b'));
    await advanceUntil('b arrives after the restart', () => names(w).includes('b'));
    expect(listRequests()).toHaveLength(1);
    const watches = watchRequests();
    expect(watches.length).toBe(2);
    const firstRV = Number(new URLSearchParams(watches[0]?.query).get('resourceVersion'));
    const resumedRV = Number(new URLSearchParams(watches[1]?.query).get('resourceVersion'));
    expect(resumedRV).toBeGreaterThanOrEqual(firstRV);
    expect(w.lastError).toBeUndefined();
    expect(api.faults.openWatches()).toBe(1);
  });

  it('keeps trying through an outage with a bounded number of requests, and recovers', async () => {
    api.store.create(services(), svc('a'));
    const w = startWatch();
    await until('synced', () => w.synced);
    await api.faults.outage('refuse');
    await until('the outage is noticed', () => w.lastError);
    const before = api.audit.entries.length;
    const requestsBefore = w.requests;
    // Ten minutes without an API server.
    for (let t = 0; t < 600; t++) await runtime.advanceBy(1_000);
    // 1 + 2 + 4 + 8 + 16 s, then at most one attempt every 15-30 s: about 25 in ten minutes, never one a second.
    expect(w.requests - requestsBefore).toBeLessThanOrEqual(45);
    expect(w.requests - requestsBefore).toBeGreaterThanOrEqual(10);
    expect(api.audit.entries.length).toBe(before); // refused connections never reached it
    api.store.create(services(), svc('b'));
    await api.faults.heal();
    await advanceUntil('b arrives after the outage', () => names(w).includes('b'));
    expect(w.lastError).toBeUndefined();
    expect(api.faults.openWatches()).toBe(1);
  });

  it.each([500, 403])('retries a list answered %i until it succeeds', async (code) => {
    api.store.create(services(), svc('a'));
    api.faults.failNext(3, { code, pathPrefix: PATH, method: 'GET' });
    const w = startWatch();
    await advanceUntil('synced', () => w.synced);
    expect(names(w)).toEqual(['a']);
    expect(listRequests().filter((e) => e.code === code)).toHaveLength(3);
    expect(listRequests().filter((e) => e.code === 200)).toHaveLength(1);
  });

  it('lists again after 410 Gone and drops what was deleted meanwhile, adds what was created', async () => {
    api.store.create(services(), svc('a'));
    api.store.create(services(), svc('b'));
    const w = startWatch();
    await until('synced', () => w.synced);
    await until('watching', () => api.faults.openWatches() === 1);
    await api.faults.outage('refuse');
    await until('the outage is noticed', () => w.lastError);
    api.store.delete(services(), 'default', 'b');
    api.store.create(services(), svc('c'));
    api.faults.compact();
    await api.faults.heal();
    await advanceUntil('the re-list shows c and not b', () => names(w).join() === 'a,c');
    expect(listRequests().filter((e) => e.code === 200)).toHaveLength(2);
    expect(watchRequests().some((e) => e.code === 410)).toBe(true);
  });

  it('restarts a watch that went silent (half-open connection), and hears changes again', async () => {
    api.store.create(services(), svc('a'));
    const w = startWatch();
    await until('synced', () => w.synced);
    await until('watching', () => api.faults.openWatches() === 1);
    api.faults.halfOpenWatches();
    api.store.create(services(), svc('b'));
    // Nothing arrives on the frozen stream; the watchdog gives up on it after its silence limit.
    await advanceUntil('b arrives on a new watch', () => names(w).includes('b'), 5_000);
    expect(watchRequests().length).toBe(2);
    expect(listRequests()).toHaveLength(1);
  });
});
