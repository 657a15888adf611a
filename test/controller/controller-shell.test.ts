// The controller against the fake API server, end to end: what a user sees on the Service (status, annotation,
// events), and what the API server sees (the exact writes, none when nothing changed, a 409 retried).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeApiServer, startFakeApiServer } from '../support/fake-apiserver';
import { rawClient, type RawClient } from '../support/fake-apiserver/raw-client';
import { until } from '../support/until';
import { MetalLBController } from '../../src/controller/controller-loop';
import { kubeClient, loadKubeConfig } from '../../src/sources/k8s/api/kube-client';
import { SILENT_LOG } from '../../src/runtime/log';

const NS = 'metallb-system';
const silent = SILENT_LOG;

let api: FakeApiServer | undefined;
let controller: MetalLBController | undefined;
afterEach(async () => {
  await controller?.stop();
  await api?.close();
  controller = undefined;
  api = undefined;
});

async function setup(addresses: string[], options: { lbClass?: string; start?: boolean; podName?: string } = {}) {
  api = await startFakeApiServer();
  const raw = rawClient(api.url);
  await raw.send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await raw.send('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'controller', namespace: NS },
    spec: {
      selector: { matchLabels: { app: 'metallb' } },
      template: { metadata: { labels: { app: 'metallb' } }, spec: { containers: [] } },
    },
  });
  await putPool(raw, 'main', addresses);
  const kubeconfig = api.kubeconfigPath(mkdtempSync(join(tmpdir(), 'mlb-ctl-')));
  const client = kubeClient(await loadKubeConfig(kubeconfig));
  const make = () =>
    new MetalLBController({
      client,
      namespace: NS,
      secretName: 'memberlist',
      deploymentName: 'controller',
      log: silent,
      ...(options.lbClass && { lbClass: options.lbClass }),
      ...(options.podName && { podName: options.podName }),
    });
  controller = make();
  if (options.start !== false) controller.start();
  return { raw, api, make };
}

/** Creates or replaces a pool as a user would; a 409 (the controller wrote the pool's status meanwhile) is read again. */
async function putPool(raw: RawClient, name: string, addresses: string[]) {
  const path = `/apis/metallb.io/v1beta1/namespaces/${NS}/ipaddresspools`;
  const body = { apiVersion: 'metallb.io/v1beta1', kind: 'IPAddressPool', metadata: { name, namespace: NS }, spec: { addresses } };
  return until(`pool ${name} written`, async () => {
    const existing = await raw.send('GET', `${path}/${name}`);
    const written =
      existing.code === 404
        ? await raw.send('POST', path, body)
        : await raw.send('PUT', `${path}/${name}`, { ...body, metadata: existing.body.metadata });
    return written.code < 300 && written;
  });
}

function service(name: string, extra: { lbClass?: string; annotations?: Record<string, string> } = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', ...(extra.annotations && { annotations: extra.annotations }) },
    spec: { type: 'LoadBalancer', ports: [{ port: 80 }], ...(extra.lbClass && { loadBalancerClass: extra.lbClass }) },
  };
}

async function ingressOf(raw: RawClient, name: string): Promise<string[]> {
  const s = await raw.send('GET', `/api/v1/namespaces/default/services/${name}`);
  return (s.body.status?.loadBalancer?.ingress ?? []).map((e: { ip: string }) => e.ip);
}

async function eventsOf(raw: RawClient, name: string) {
  const list = await raw.send('GET', `/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=${name}`);
  return list.body.items as Array<{ reason: string; type: string; message: string; count: number; source: { component: string } }>;
}

describe('mlb controller against an API server', () => {
  it('a Service created gets its status, the pool annotation and an IPAllocated event, through PUT /status only', async () => {
    const { raw, api } = await setup(['192.0.2.10-192.0.2.11']);
    await raw.send('POST', '/api/v1/namespaces/default/services', service('web'));
    await until('web has an address', async () => (await ingressOf(raw, 'web')).length > 0);
    const web = (await raw.send('GET', '/api/v1/namespaces/default/services/web')).body;
    expect(web.status.loadBalancer).toEqual({ ingress: [{ ip: '192.0.2.10', ipMode: 'VIP' }] });
    expect(web.metadata.annotations).toEqual({ 'metallb.io/ip-allocated-from-pool': 'main' });
    const events = await until('the event', async () => {
      const e = await eventsOf(raw, 'web');
      return e.length > 0 && e;
    });
    expect(events.map((e) => [e.type, e.reason, e.message, e.count, e.source.component])).toEqual([
      ['Normal', 'IPAllocated', 'Assigned IP ["192.0.2.10"]', 1, 'metallb-controller'],
    ]);
    expect(api.audit.count({ resource: 'services', subresource: 'status', verb: 'update', code: 200 })).toBe(1);
    expect(
      api.audit.filter({ resource: 'services' }).filter((e) => e.subresource === undefined && ['update', 'patch'].includes(e.verb)),
    ).toEqual([]);
  });

  it('the pool status, the ConfigurationState and the memberlist Secret are written', async () => {
    const { raw } = await setup(['192.0.2.0/30']);
    await raw.send('POST', '/api/v1/namespaces/default/services', service('web'));
    await until('web has an address', async () => (await ingressOf(raw, 'web')).length > 0);
    const pool = await until(
      'pool status',
      async () =>
        (await raw.send('GET', `/apis/metallb.io/v1beta1/namespaces/${NS}/ipaddresspools/main`)).body.status?.assignedIPv4 === 1 && true,
    );
    expect(pool).toBe(true);
    const poolObject = (await raw.send('GET', `/apis/metallb.io/v1beta1/namespaces/${NS}/ipaddresspools/main`)).body;
    expect(poolObject.status).toEqual({ assignedIPv4: 1, assignedIPv6: 0, availableIPv4: 3, availableIPv6: 0 });
    const state = await until('configuration state', async () => {
      const s = await raw.send('GET', `/apis/metallb.io/v1beta1/namespaces/${NS}/configurationstates/controller`);
      return s.code === 200 && s.body.status?.result !== undefined && s.body;
    });
    expect(state.metadata.labels).toEqual({ 'metallb.io/component-type': 'controller' });
    expect(state.status).toMatchObject({
      result: 'Valid',
      conditions: [{ type: 'poolReconcilerValid', status: 'True', reason: 'Reconciled', message: '' }],
    });
    const secret = (await raw.send('GET', `/api/v1/namespaces/${NS}/secrets/memberlist`)).body;
    expect(Buffer.from(secret.data.secretkey, 'base64').toString()).toHaveLength(22);
    expect(secret.metadata.ownerReferences).toMatchObject([{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'controller' }]);
  });

  it('a reconcile with nothing changed writes nothing', async () => {
    const { raw, api } = await setup(['192.0.2.10-192.0.2.11']);
    await raw.send('POST', '/api/v1/namespaces/default/services', service('web'));
    await until('web has an address', async () => (await ingressOf(raw, 'web')).length > 0);
    await until(
      'the pool status',
      async () => (await raw.send('GET', `/apis/metallb.io/v1beta1/namespaces/${NS}/ipaddresspools/main`)).body.status !== undefined,
    );
    await controller!.settled();
    api.audit.clear();
    await controller!.reconcile();
    await controller!.settled();
    expect(api.audit.entries.filter((e) => !['get', 'list', 'watch'].includes(e.verb))).toEqual([]);
  });

  it('a pool change moves the Service, with ClearAssignment then IPAllocated', async () => {
    const { raw } = await setup(['192.0.2.10/32']);
    await raw.send('POST', '/api/v1/namespaces/default/services', service('web'));
    await until('first address', async () => (await ingressOf(raw, 'web'))[0] === '192.0.2.10');
    await putPool(raw, 'main', ['198.51.100.7/32']);
    await until('new address', async () => (await ingressOf(raw, 'web'))[0] === '198.51.100.7');
    const reasons = await until('events', async () => {
      const e = await eventsOf(raw, 'web');
      return e.length === 3 && e.map((x) => x.reason);
    });
    expect(reasons).toEqual(['IPAllocated', 'ClearAssignment', 'IPAllocated']);
  });

  it('--lb-class: only Services of that class are handled', async () => {
    const { raw } = await setup(['192.0.2.10/31'], { lbClass: 'mlb' });
    await raw.send('POST', '/api/v1/namespaces/default/services', service('classless'));
    await raw.send('POST', '/api/v1/namespaces/default/services', service('ours', { lbClass: 'mlb' }));
    await until('ours has an address', async () => (await ingressOf(raw, 'ours')).length > 0);
    await controller!.settled();
    expect(await ingressOf(raw, 'classless')).toEqual([]);
  });

  it('on restart the Service holding the address keeps it; a pending one listed first does not take it', async () => {
    const { raw, make } = await setup(['192.0.2.10/32'], { start: false });
    await raw.send('POST', '/api/v1/namespaces/default/services', service('zz-holder'));
    const holder = (await raw.send('GET', '/api/v1/namespaces/default/services/zz-holder')).body;
    await raw.send('PUT', '/api/v1/namespaces/default/services/zz-holder/status', {
      ...holder,
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } },
    });
    await raw.send('POST', '/api/v1/namespaces/default/services', service('aa-pending'));
    controller = make();
    controller.start();
    const events = await until('the pending service is refused', async () => {
      const e = await eventsOf(raw, 'aa-pending');
      return e.length > 0 && e;
    });
    expect(events.map((e) => e.message)).toEqual(['Failed to allocate IP for "default/aa-pending": no available IPs']);
    expect(await ingressOf(raw, 'zz-holder')).toEqual(['192.0.2.10']);
    expect(await ingressOf(raw, 'aa-pending')).toEqual([]);
  });

  it('a 409 on the status write is re-read and retried', async () => {
    const { raw, api } = await setup(['192.0.2.10/32']);
    api.faults.failNext(1, { code: 409, method: 'PUT', pathPrefix: '/api/v1/namespaces/default/services/web/status' });
    await raw.send('POST', '/api/v1/namespaces/default/services', service('web'));
    await until('web has an address', async () => (await ingressOf(raw, 'web')).length > 0);
    expect(api.audit.filter({ resource: 'services', subresource: 'status' }).map((e) => e.code)).toEqual([409, 200]);
  });

  it('an event repeated within ten minutes is a count increment on the same Event', async () => {
    const { raw } = await setup(['192.0.2.10/32']);
    const path = '/api/v1/namespaces/default/services';
    await raw.send('POST', path, service('x', { annotations: { 'metallb.io/address-pool': 'a' } }));
    await until('first failure', async () => (await eventsOf(raw, 'x')).length === 1);
    const flip = async (pool: string) => {
      const x = (await raw.send('GET', `${path}/x`)).body;
      await raw.send('PUT', `${path}/x`, { ...x, metadata: { ...x.metadata, annotations: { 'metallb.io/address-pool': pool } } });
    };
    await flip('b');
    await until('second failure', async () => (await eventsOf(raw, 'x')).length === 2);
    await flip('a');
    const events = await until('the first counted again', async () => {
      const e = await eventsOf(raw, 'x');
      return e.some((x) => x.count === 2) && e;
    });
    expect(events.map((e) => [e.message, e.count])).toEqual([
      ['Failed to allocate IP for "default/x": unknown pool "a"', 2],
      ['Failed to allocate IP for "default/x": unknown pool "b"', 1],
    ]);
  });
});

describe('a Service that keeps failing', () => {
  it('is reported on every reconcile pass, each repeat a count increment on the one Event', async () => {
    const { raw } = await setup(['192.0.2.10/32']);
    await raw.send('POST', '/api/v1/namespaces/default/services', service('x', { annotations: { 'metallb.io/address-pool': 'gone' } }));
    await until('the failure', async () => (await eventsOf(raw, 'x')).length === 1);
    await controller!.settled();
    const before = (await eventsOf(raw, 'x'))[0]!.count;
    await controller!.reconcile();
    await controller!.settled();
    const events = await eventsOf(raw, 'x');
    expect(events.map((e) => [e.type, e.reason, e.message, e.count])).toEqual([
      ['Warning', 'AllocationFailed', 'Failed to allocate IP for "default/x": unknown pool "gone"', before + 1],
    ]);
    expect(before + 1).toBeGreaterThanOrEqual(2);
  });
});

describe('an invalid configuration', () => {
  it('keeps the last valid one running and says so in ConfigurationState controller', async () => {
    const { raw } = await setup(['192.0.2.10/32']);
    await raw.send('POST', '/api/v1/namespaces/default/services', service('web'));
    await until('web has an address', async () => (await ingressOf(raw, 'web')).length > 0);
    await putPool(raw, 'broken', ['not-an-address']);
    const state = await until('the state says Invalid', async () => {
      const s = await raw.send('GET', `/apis/metallb.io/v1beta1/namespaces/${NS}/configurationstates/controller`);
      return s.body.status?.result === 'Invalid' && s.body.status;
    });
    expect(state.conditions).toMatchObject([{ type: 'poolReconcilerValid', status: 'False', reason: 'ConfigurationError' }]);
    expect(state.errorSummary).toBe(state.conditions[0].message);
    expect(state.errorSummary).toMatch(/^configuration error: .*not-an-address/);
    await controller!.settled();
    expect(await ingressOf(raw, 'web')).toEqual(['192.0.2.10']);
    await raw.send('DELETE', `/apis/metallb.io/v1beta1/namespaces/${NS}/ipaddresspools/broken`);
    await until('the state is Valid again', async () => {
      const s = await raw.send('GET', `/apis/metallb.io/v1beta1/namespaces/${NS}/configurationstates/controller`);
      return s.body.status?.result === 'Valid' && s.body.status.errorSummary === undefined;
    });
  });
});

describe('ConfigurationState owner', () => {
  it('is the controller’s own Pod (METALLB_POD_NAME), so it goes away with the Pod', async () => {
    const { raw } = await setup(['192.0.2.10/32'], { start: false, podName: 'controller-abc' });
    const pod = await raw.send('POST', `/api/v1/namespaces/${NS}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'controller-abc', namespace: NS },
      spec: { containers: [{ name: 'controller', image: 'mlb:0.1.0' }] },
    });
    controller!.start();
    const state = await until('configuration state', async () => {
      const s = await raw.send('GET', `/apis/metallb.io/v1beta1/namespaces/${NS}/configurationstates/controller`);
      return s.code === 200 && s.body;
    });
    expect(state.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: 'controller-abc', uid: pod.body.metadata.uid }]);
  });
});

describe('deleting a Service', () => {
  it('frees its address for a pending Service at once', async () => {
    const { raw } = await setup(['192.0.2.10/32']);
    await raw.send('POST', '/api/v1/namespaces/default/services', service('first'));
    await until('first has the address', async () => (await ingressOf(raw, 'first'))[0] === '192.0.2.10');
    await raw.send('POST', '/api/v1/namespaces/default/services', service('second'));
    await until('second is refused', async () => (await eventsOf(raw, 'second')).some((e) => e.reason === 'AllocationFailed'));
    await raw.send('DELETE', '/api/v1/namespaces/default/services/first');
    await until('second gets the address', async () => (await ingressOf(raw, 'second'))[0] === '192.0.2.10');
    expect((await eventsOf(raw, 'second')).map((e) => e.message)).toEqual([
      'Failed to allocate IP for "default/second": no available IPs',
      'Assigned IP ["192.0.2.10"]',
    ]);
  });
});
