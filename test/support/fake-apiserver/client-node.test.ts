import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { until } from '../until';
import { startFakeApiServer, type FakeApiServer } from './index';
import { rawClient, type RawClient } from './raw-client';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const SPEAKER = 'system:serviceaccount:metallb-system:speaker';

let api: FakeApiServer;
let client: RawClient;
let dir: string;
let stops: (() => Promise<void>)[];

beforeEach(async () => {
  api = await startFakeApiServer();
  client = rawClient(api.url);
  dir = mkdtempSync(join(tmpdir(), 'fka-'));
  stops = [];
});
afterEach(async () => {
  for (const stop of stops) await stop();
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

function kubeConfig(subject?: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(api.kubeconfigPath(dir, subject));
  return config;
}

/** A configmap informer recording its callbacks as `verb name@resourceVersion`. */
async function configMapInformer(): Promise<{ log: string[] }> {
  const config = kubeConfig(SPEAKER);
  const core = config.makeApiClient(CoreV1Api);
  const informer = makeInformer(config, CONFIGMAPS, () => core.listNamespacedConfigMap({ namespace: 'default' }));
  const log: string[] = [];
  const record = (verb: string) => (object: KubernetesObject) =>
    log.push(`${verb} ${object.metadata?.name}@${object.metadata?.resourceVersion}`);
  informer.on('add', record('add'));
  informer.on('update', record('update'));
  informer.on('delete', record('delete'));
  informer.on('error', (error: unknown) => log.push(`error ${String(error)}`));
  await informer.start();
  stops.push(() => informer.stop());
  return { log };
}

async function createConfigMap(name: string): Promise<string> {
  return (await client.send('POST', CONFIGMAPS, { metadata: { name }, data: {} })).body.metadata.resourceVersion;
}

describe('@kubernetes/client-node 1.4.0 informers against the fake', () => {
  it('lists, then reports adds, updates and deletes from the watch', async () => {
    const a = await createConfigMap('a');
    const { log } = await configMapInformer();
    expect(log).toEqual([`add a@${a}`]);
    const b = await createConfigMap('b');
    const updated = (await client.send('PATCH', `${CONFIGMAPS}/a`, { data: { k: 'v' } }, 'application/merge-patch+json')).body.metadata
      .resourceVersion;
    const deleted = (await client.send('DELETE', `${CONFIGMAPS}/b`)).body.metadata.resourceVersion;
    await until('three watch events', () => log.length === 4);
    expect(log).toEqual([`add a@${a}`, `add b@${b}`, `update a@${updated}`, `delete b@${deleted}`]);
    // One list and one watch: the informer neither re-listed nor reconnected.
    expect(api.audit.count({ verb: 'list', resource: 'configmaps' })).toBe(1);
    expect(api.audit.count({ verb: 'watch', resource: 'configmaps' })).toBe(1);
    const reads = api.audit.filter({ resource: 'configmaps' }).filter((entry) => entry.verb === 'list' || entry.verb === 'watch');
    expect(reads.map((entry) => entry.subject)).toEqual([SPEAKER, SPEAKER]);
  });

  it('re-lists after an in-stream 410 and reports what changed while its watch was silent', async () => {
    const a = await createConfigMap('a');
    const b = await createConfigMap('b');
    const { log } = await configMapInformer();
    await until('the watch', () => api.faults.openWatches() === 1);
    api.faults.halfOpenWatches();
    await client.send('DELETE', `${CONFIGMAPS}/b`);
    const c = await createConfigMap('c');
    expect(log).toEqual([`add a@${a}`, `add b@${b}`]);
    api.faults.compact();
    api.faults.expireWatches();
    await until('the re-list', () => log.length === 4);
    // A delete from a re-list carries the informer's cached object, not the deletion's resourceVersion.
    expect(log.slice(2)).toEqual([`delete b@${b}`, `add c@${c}`]);
    expect(api.audit.count({ verb: 'list', resource: 'configmaps' })).toBe(2);
  });

  it('re-lists when a restarted informer watches from a compacted resourceVersion (HTTP 410)', async () => {
    const a = await createConfigMap('a');
    const b = await createConfigMap('b');
    const config = kubeConfig();
    const core = config.makeApiClient(CoreV1Api);
    const informer = makeInformer(config, CONFIGMAPS, () => core.listNamespacedConfigMap({ namespace: 'default' }));
    const log: string[] = [];
    informer.on('add', (object) => log.push(`add ${object.metadata?.name}@${object.metadata?.resourceVersion}`));
    informer.on('delete', (object) => log.push(`delete ${object.metadata?.name}`));
    informer.on('error', () => log.push('error'));
    await informer.start();
    stops.push(() => informer.stop());
    // The connection breaks: client-node 1.4 reports an error and stops (the caller restarts it).
    api.faults.dropWatches();
    await until('the error', () => log.includes('error'));
    await client.send('DELETE', `${CONFIGMAPS}/b`);
    const c = await createConfigMap('c');
    api.faults.compact();
    await informer.start();
    await until('the re-list', () => log.length === 5);
    expect(log).toEqual([`add a@${a}`, `add b@${b}`, 'error', 'delete b', `add c@${c}`]);
    await until('the new watch', () => api.audit.count({ verb: 'watch', resource: 'configmaps' }) === 3);
    expect(api.audit.filter({ verb: 'watch', resource: 'configmaps' }).map((entry) => entry.code)).toEqual([200, 410, 200]);
  });

  it('follows a watch the server ends after timeoutSeconds by watching again from its resourceVersion, without a re-list', async () => {
    const config = kubeConfig();
    const core = config.makeApiClient(CoreV1Api);
    // The query in the path survives into the watch request (client-node builds the URL from server + path).
    const informer = makeInformer(config, `${CONFIGMAPS}?allowWatchBookmarks=true&timeoutSeconds=1`, () =>
      core.listNamespacedConfigMap({ namespace: 'default' }),
    );
    const names: string[] = [];
    informer.on('add', (object) => names.push(object.metadata?.name ?? ''));
    await informer.start();
    stops.push(() => informer.stop());
    await until('a second watch', () => api.audit.count({ verb: 'watch', resource: 'configmaps' }) >= 2);
    await createConfigMap('after-reconnect');
    await until('the add', () => names.length === 1);
    expect(names).toEqual(['after-reconnect']);
    expect(api.audit.count({ verb: 'list', resource: 'configmaps' })).toBe(1);
    const watches = api.audit.filter({ verb: 'watch', resource: 'configmaps' });
    expect(watches.every((entry) => entry.query.includes('allowWatchBookmarks=true') && /resourceVersion=\d+/.test(entry.query))).toBe(
      true,
    );
  });

  it('writes Service status with a merge patch and reads metallb.io objects through CustomObjectsApi', async () => {
    const config = kubeConfig();
    const core = config.makeApiClient(CoreV1Api);
    await core.createNamespacedService({
      namespace: 'default',
      body: { metadata: { name: 'web' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } },
    });
    const patched = await core.patchNamespacedServiceStatus(
      { name: 'web', namespace: 'default', body: { status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(patched.status?.loadBalancer?.ingress).toEqual([{ ip: '192.0.2.10', ipMode: 'VIP' }]);
    const custom = config.makeApiClient(CustomObjectsApi);
    await custom.createNamespacedCustomObject({
      group: 'metallb.io',
      version: 'v1beta1',
      namespace: 'metallb-system',
      plural: 'l2advertisements',
      body: { apiVersion: 'metallb.io/v1beta1', kind: 'L2Advertisement', metadata: { name: 'all' }, spec: {} },
    });
    const list = (await custom.listNamespacedCustomObject({
      group: 'metallb.io',
      version: 'v1beta1',
      namespace: 'metallb-system',
      plural: 'l2advertisements',
    })) as {
      items: KubernetesObject[];
    };
    expect(list.items.map((item) => item.metadata?.name)).toEqual(['all']);
  });
});
