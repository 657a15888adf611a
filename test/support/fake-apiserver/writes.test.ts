import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeApiServer, type FakeApiServer } from './index';
import { rawClient, type RawClient } from './raw-client';

const SERVICES = '/api/v1/namespaces/default/services';
const POOLS = '/apis/metallb.io/v1beta1/namespaces/metallb-system/ipaddresspools';
const L2STATUSES = '/apis/metallb.io/v1beta1/namespaces/metallb-system/servicel2statuses';
const MERGE = 'application/merge-patch+json';

let api: FakeApiServer;
let client: RawClient;

beforeEach(async () => {
  api = await startFakeApiServer();
  client = rawClient(api.url);
});
afterEach(async () => {
  await api.close();
});

function loadBalancer(name: string, spec: Record<string, unknown> = {}): unknown {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }], ...spec } };
}

function pool(name: string): unknown {
  return {
    apiVersion: 'metallb.io/v1beta1',
    kind: 'IPAddressPool',
    metadata: { name },
    spec: { addresses: ['192.0.2.0/28'] },
    status: { assignedIPv4: 9 },
  };
}

describe('status subresources', () => {
  it('lets a Service /status write carry annotations but not spec changes, and ignores status on the main resource', async () => {
    const created = (await client.send('POST', SERVICES, loadBalancer('a'))).body;
    const viaStatus = {
      ...created,
      metadata: { ...created.metadata, annotations: { 'metallb.io/ip-allocated-from-pool': 'p' } },
      spec: { ...created.spec, type: 'ClusterIP' },
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } },
    };
    const written = await client.send('PUT', `${SERVICES}/a/status`, viaStatus);
    expect(written.code).toBe(200);
    expect(written.body.metadata.annotations).toEqual({ 'metallb.io/ip-allocated-from-pool': 'p' });
    expect(written.body.spec.type).toBe('LoadBalancer');
    expect(written.body.status.loadBalancer.ingress).toEqual([{ ip: '192.0.2.10', ipMode: 'VIP' }]);
    const mainWrite = await client.send('PUT', `${SERVICES}/a`, { ...written.body, status: { loadBalancer: {} } });
    expect(mainWrite.body.status.loadBalancer.ingress).toEqual([{ ip: '192.0.2.10', ipMode: 'VIP' }]);
  });

  it('drops status on custom resource create, sets generation 1, and bumps it only for spec changes', async () => {
    const created = (await client.send('POST', POOLS, pool('p'))).body;
    expect(created.status).toBeUndefined();
    expect(created.metadata.generation).toBe(1);
    const status = await client.send(
      'PATCH',
      `${POOLS}/p/status`,
      { status: { assignedIPv4: 1 }, metadata: { labels: { dropped: 'yes' } } },
      MERGE,
    );
    expect(status.body.status).toEqual({ assignedIPv4: 1 });
    expect(status.body.metadata.labels).toBeUndefined();
    expect(status.body.metadata.generation).toBe(1);
    const labelled = await client.send('PATCH', `${POOLS}/p`, { metadata: { labels: { kept: 'yes' } } }, MERGE);
    expect(labelled.body.metadata.generation).toBe(1);
    const respecced = await client.send(
      'PATCH',
      `${POOLS}/p`,
      { spec: { addresses: ['192.0.2.0/27'] }, status: { assignedIPv4: 99 } },
      MERGE,
    );
    expect(respecced.body.metadata.generation).toBe(2);
    expect(respecced.body.status).toEqual({ assignedIPv4: 1 });
  });

  it('refuses a stale resourceVersion with 409 Conflict and a custom resource PUT without one with 422', async () => {
    const created = (await client.send('POST', SERVICES, loadBalancer('a'))).body;
    await client.send('PATCH', `${SERVICES}/a`, { metadata: { labels: { x: 'y' } } }, MERGE);
    const stale = await client.send('PUT', `${SERVICES}/a/status`, created);
    expect(stale.code).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    expect(stale.body.message).toBe(
      'Operation cannot be fulfilled on services "a": the object has been modified; please apply your changes to the latest version and try again',
    );
    const unconditional = await client.send('PUT', `${SERVICES}/a`, { ...created, metadata: { name: 'a' } });
    expect(unconditional.code).toBe(200);
    const cr = (await client.send('POST', POOLS, pool('p'))).body;
    const noVersion = await client.send('PUT', `${POOLS}/p`, { ...cr, metadata: { name: 'p' } });
    expect(noVersion.code).toBe(422);
    expect(noVersion.body.reason).toBe('Invalid');
  });
});

describe('patches', () => {
  it('answers 415 for an unknown media type and for a strategic merge patch on a custom resource', async () => {
    await client.send('POST', POOLS, pool('p'));
    expect((await client.send('PATCH', `${POOLS}/p`, { spec: {} }, 'text/plain')).code).toBe(415);
    expect((await client.send('PATCH', `${POOLS}/p`, { spec: {} }, 'application/strategic-merge-patch+json')).code).toBe(415);
  });

  it('answers 400 for an undecodable patch and 422 for a JSON patch that cannot apply', async () => {
    await client.send('POST', SERVICES, loadBalancer('a'));
    expect((await client.send('PATCH', `${SERVICES}/a`, '{not json', MERGE)).code).toBe(400);
    const missing = await client.send(
      'PATCH',
      `${SERVICES}/a`,
      [{ op: 'replace', path: '/spec/nothing/here', value: 1 }],
      'application/json-patch+json',
    );
    expect(missing.code).toBe(422);
    const applied = await client.send(
      'PATCH',
      `${SERVICES}/a`,
      [{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }],
      'application/json-patch+json',
    );
    expect(applied.body.metadata.labels).toEqual({ a: 'b' });
  });

  it('merges Service ports by port number in a strategic merge patch', async () => {
    await client.send('POST', SERVICES, loadBalancer('a', { ports: [{ port: 80 }, { port: 443 }] }));
    const patched = await client.send(
      'PATCH',
      `${SERVICES}/a`,
      { spec: { ports: [{ port: 443, name: 'https' }] } },
      'application/strategic-merge-patch+json',
    );
    expect(patched.body.spec.ports.map((port: { port: number; name?: string }) => [port.port, port.name])).toEqual([
      [80, undefined],
      [443, 'https'],
    ]);
  });

  it('server-side apply creates, conflicts with another manager, and wins with force', async () => {
    const apply = 'application/apply-patch+yaml';
    const first = await client.send(
      'PATCH',
      `${POOLS}/p?fieldManager=alice`,
      'apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata: {name: p}\nspec: {addresses: [192.0.2.0/28]}\n',
      apply,
    );
    expect(first.code).toBe(201);
    const body = {
      apiVersion: 'metallb.io/v1beta1',
      kind: 'IPAddressPool',
      metadata: { name: 'p' },
      spec: { addresses: ['192.0.2.0/27'] },
    };
    const clash = await client.send('PATCH', `${POOLS}/p?fieldManager=bob`, body, apply);
    expect(clash.code).toBe(409);
    expect(clash.body.message).toContain('conflict with "alice"');
    const forced = await client.send('PATCH', `${POOLS}/p?fieldManager=bob&force=true`, body, apply);
    expect(forced.body.spec.addresses).toEqual(['192.0.2.0/27']);
    expect(forced.body.metadata.generation).toBe(2);
  });
});

describe('MetalLB CRD rules and status apply', () => {
  it('keeps ServiceL2Status node and service immutable once set', async () => {
    const created = (await client.send('POST', L2STATUSES, { metadata: { name: 'l2-a' }, spec: {} })).body;
    expect(created.status).toBeUndefined();
    const status = { node: 'n1', serviceName: 'web', serviceNamespace: 'default' };
    expect((await client.send('PATCH', `${L2STATUSES}/l2-a/status`, { status }, MERGE)).code).toBe(200);
    const moved = await client.send('PATCH', `${L2STATUSES}/l2-a/status`, { status: { node: 'n2' } }, MERGE);
    expect(moved.code).toBe(422);
    expect(moved.body.message).toContain('status.node: Invalid value: "string": Value is immutable');
  });

  it('lets two managers apply their own conditions to a ConfigurationState status', async () => {
    const states = '/apis/metallb.io/v1beta1/namespaces/metallb-system/configurationstates';
    await client.send('POST', states, { metadata: { name: 'controller' }, spec: {} });
    const condition = (type: string, status: string): unknown => ({
      apiVersion: 'metallb.io/v1beta1',
      kind: 'ConfigurationState',
      metadata: { name: 'controller' },
      status: { conditions: [{ type, status, reason: 'Reconciled', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
    });
    const apply = 'application/apply-patch+yaml';
    await client.send(
      'PATCH',
      `${states}/controller/status?fieldManager=poolReconciler&force=true`,
      condition('poolReconcilerValid', 'True'),
      apply,
    );
    await client.send(
      'PATCH',
      `${states}/controller/status?fieldManager=configReconciler&force=true`,
      condition('configReconcilerValid', 'True'),
      apply,
    );
    const flipped = await client.send(
      'PATCH',
      `${states}/controller/status?fieldManager=poolReconciler&force=true`,
      condition('poolReconcilerValid', 'False'),
      apply,
    );
    expect(flipped.body.status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`)).toEqual([
      'poolReconcilerValid=False',
      'configReconcilerValid=True',
    ]);
    expect(flipped.body.metadata.generation).toBe(1);
  });
});

describe('versions', () => {
  it('serves bgppeers in v1beta2 (preferred) and v1beta1 over one stored object', async () => {
    const group = await client.send('GET', '/apis/metallb.io');
    expect(group.body.preferredVersion).toEqual({ groupVersion: 'metallb.io/v1beta2', version: 'v1beta2' });
    const peer = {
      apiVersion: 'metallb.io/v1beta2',
      kind: 'BGPPeer',
      metadata: { name: 'tor' },
      spec: { myASN: 64500, peerASN: 64501, peerAddress: '192.0.2.1' },
    };
    expect((await client.send('POST', '/apis/metallb.io/v1beta2/namespaces/metallb-system/bgppeers', peer)).code).toBe(201);
    const old = await client.send('GET', '/apis/metallb.io/v1beta1/namespaces/metallb-system/bgppeers/tor');
    expect(old.body.apiVersion).toBe('metallb.io/v1beta1');
    expect(old.body.spec).toEqual(peer.spec);
    expect((await client.send('GET', '/apis/metallb.io/v1beta2/namespaces/metallb-system/ipaddresspools')).code).toBe(404);
  });
});

describe('names and owners', () => {
  it('makes a name from generateName with five random characters', async () => {
    const created = await client.send('POST', L2STATUSES, {
      apiVersion: 'metallb.io/v1beta1',
      kind: 'ServiceL2Status',
      metadata: { generateName: 'l2-' },
      spec: {},
    });
    expect(created.code).toBe(201);
    expect(created.body.metadata.name).toMatch(/^l2-[a-z0-9]{5}$/);
  });

  it('deletes dependents with their owner (a ServiceL2Status with its speaker Pod)', async () => {
    const speaker = (
      await client.send('POST', '/api/v1/namespaces/metallb-system/pods', { metadata: { name: 'speaker-x' }, spec: { nodeName: 'n1' } })
    ).body;
    const owner = { apiVersion: 'v1', kind: 'Pod', name: 'speaker-x', uid: speaker.metadata.uid };
    const status = (await client.send('POST', L2STATUSES, { metadata: { generateName: 'l2-', ownerReferences: [owner] }, spec: {} })).body;
    const unowned = (await client.send('POST', L2STATUSES, { metadata: { name: 'kept' }, spec: {} })).body;
    await client.send('DELETE', '/api/v1/namespaces/metallb-system/pods/speaker-x');
    expect((await client.send('GET', `${L2STATUSES}/${status.metadata.name}`)).code).toBe(404);
    expect((await client.send('GET', `${L2STATUSES}/${unowned.metadata.name}`)).code).toBe(200);
  });
});

describe('namespaces and dry runs', () => {
  it('starts with the given objects, stored as given', async () => {
    await api.close();
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1' },
      status: { conditions: [{ type: 'NetworkUnavailable', status: 'True' }] },
    };
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'speaker-1', namespace: 'metallb-system' },
      spec: { nodeName: 'n1' },
      status: { podIP: '10.0.0.1' },
    };
    api = await startFakeApiServer({ objects: [node, pod] });
    client = rawClient(api.url);
    expect((await client.send('GET', '/api/v1/nodes/n1')).body.status.conditions).toEqual(node.status.conditions);
    expect((await client.send('GET', '/api/v1/namespaces/metallb-system/pods/speaker-1')).body.status).toEqual({ podIP: '10.0.0.1' });
  });

  it('deletes what a namespace holds with the namespace', async () => {
    await client.send('POST', '/api/v1/namespaces', { metadata: { name: 'team' } });
    await client.send('POST', '/api/v1/namespaces/team/configmaps', { metadata: { name: 'c' } });
    await client.send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c' } });
    await client.send('DELETE', '/api/v1/namespaces/team');
    expect((await client.send('GET', '/api/v1/namespaces/team/configmaps/c')).code).toBe(404);
    expect((await client.send('GET', '/api/v1/namespaces/default/configmaps/c')).code).toBe(200);
  });

  it('answers a dryRun=All write with the would-be object and stores nothing', async () => {
    const before = api.store.currentRevision();
    const created = await client.send('POST', `${SERVICES}?dryRun=All`, loadBalancer('a'));
    expect(created.code).toBe(201);
    expect(created.body.spec.clusterIP).toBe('10.96.0.1');
    expect((await client.send('GET', `${SERVICES}/a`)).code).toBe(404);
    expect(api.store.currentRevision()).toBe(before);
  });

  it('starts Pods Pending and Namespaces Active, whatever status the writer sent', async () => {
    const pod = await client.send('POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'p' },
      spec: {},
      status: { phase: 'Running', podIP: '10.0.0.1' },
    });
    expect(pod.body.status).toEqual({ phase: 'Pending' });
    const ip = await client.send(
      'PATCH',
      '/api/v1/namespaces/default/pods/p/status',
      { status: { phase: 'Running', podIP: '10.0.0.1' } },
      MERGE,
    );
    expect(ip.body.status).toEqual({ phase: 'Running', podIP: '10.0.0.1' });
    expect((await client.send('POST', '/api/v1/namespaces', { metadata: { name: 'x' } })).body.status).toEqual({ phase: 'Active' });
  });
});

describe('Service defaulting', () => {
  it('allocates cluster IPs and node ports and fills the defaulted policies', async () => {
    const service = (await client.send('POST', SERVICES, loadBalancer('a'))).body;
    expect(service.spec).toMatchObject({
      clusterIP: '10.96.0.1',
      clusterIPs: ['10.96.0.1'],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      sessionAffinity: 'None',
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      allocateLoadBalancerNodePorts: true,
    });
    expect(service.spec.ports[0]).toEqual({ port: 80, protocol: 'TCP', targetPort: 80, nodePort: 30000 });
    const dual = (
      await client.send(
        'POST',
        SERVICES,
        loadBalancer('b', { ipFamilyPolicy: 'PreferDualStack', allocateLoadBalancerNodePorts: false, externalTrafficPolicy: 'Local' }),
      )
    ).body;
    expect(dual.spec.clusterIPs).toEqual(['10.96.0.2', 'fd00:10:96::1']);
    expect(dual.spec.ipFamilies).toEqual(['IPv4', 'IPv6']);
    expect(dual.spec.ports[0].nodePort).toBeUndefined();
    expect(dual.spec.healthCheckNodePort).toBe(30001);
  });

  it('clears load-balancer fields when the type leaves LoadBalancer and keeps loadBalancerClass immutable', async () => {
    await client.send('POST', SERVICES, loadBalancer('a', { loadBalancerClass: 'mlb.io/x' }));
    await client.send('PATCH', `${SERVICES}/a/status`, { status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } } }, MERGE);
    const reclassed = await client.send('PATCH', `${SERVICES}/a`, { spec: { loadBalancerClass: 'other' } }, MERGE);
    expect(reclassed.code).toBe(422);
    const clusterIP = await client.send('PATCH', `${SERVICES}/a`, { spec: { type: 'ClusterIP' } }, MERGE);
    expect(clusterIP.body.spec.loadBalancerClass).toBeUndefined();
    expect(clusterIP.body.spec.ports[0].nodePort).toBeUndefined();
    expect(clusterIP.body.status.loadBalancer).toEqual({});
  });

  it('leaves ipMode alone when the server imitates Kubernetes before 1.30', async () => {
    await api.close();
    api = await startFakeApiServer({ defaultIPMode: false, serviceCIDRs: ['10.0.0.0/24'] });
    client = rawClient(api.url);
    await client.send('POST', SERVICES, loadBalancer('a'));
    const written = await client.send(
      'PATCH',
      `${SERVICES}/a/status`,
      { status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } } },
      MERGE,
    );
    expect(written.body.status.loadBalancer.ingress).toEqual([{ ip: '192.0.2.10' }]);
    const required = await client.send('POST', SERVICES, loadBalancer('b', { ipFamilyPolicy: 'RequireDualStack' }));
    expect(required.code).toBe(422);
  });
});

describe('selectors', () => {
  it('filters lists by label and field selectors and refuses unsupported field labels', async () => {
    const pods = '/api/v1/namespaces/metallb-system/pods';
    await client.send('POST', pods, {
      metadata: { name: 's1', labels: { app: 'metallb', component: 'speaker' } },
      spec: { nodeName: 'n1' },
    });
    await client.send('POST', pods, {
      metadata: { name: 's2', labels: { app: 'metallb', component: 'speaker' } },
      spec: { nodeName: 'n2' },
    });
    await client.send('POST', pods, {
      metadata: { name: 'c', labels: { app: 'metallb', component: 'controller' } },
      spec: { nodeName: 'n1' },
    });
    await client.send('POST', pods, { metadata: { name: 'other' }, spec: { nodeName: 'n1' } });
    const names = async (query: string): Promise<string[]> =>
      (await client.send('GET', `${pods}?${query}`)).body.items.map((item: { metadata: { name: string } }) => item.metadata.name);
    expect(await names('labelSelector=app%3Dmetallb,component%3Dspeaker')).toEqual(['s1', 's2']);
    expect(await names('labelSelector=component%20in%20(speaker,controller),component!%3Dcontroller')).toEqual(['s1', 's2']);
    expect(await names('labelSelector=component%20notin%20(speaker)')).toEqual(['c', 'other']);
    expect(await names('labelSelector=!app')).toEqual(['other']);
    expect(await names('labelSelector=app')).toEqual(['c', 's1', 's2']);
    expect(await names('fieldSelector=spec.nodeName%3Dn1,metadata.name!%3Dother')).toEqual(['c', 's1']);
    const refused = await client.send('GET', `${pods}?fieldSelector=spec.hostname%3Dx`);
    expect(refused.code).toBe(400);
    expect(refused.body.message).toBe('field label not supported: spec.hostname');
  });

  it('finds events by involvedObject fields, as kubectl describe asks', async () => {
    const events = '/api/v1/namespaces/default/events';
    const event = (name: string, object: string, reason: string): unknown => ({
      metadata: { name },
      involvedObject: { kind: 'Service', namespace: 'default', name: object, apiVersion: 'v1' },
      reason,
      source: { component: 'metallb-controller' },
      type: 'Normal',
    });
    await client.send('POST', events, event('a.1', 'a', 'IPAllocated'));
    await client.send('POST', events, event('b.1', 'b', 'IPAllocated'));
    await client.send('POST', events, event('a.2', 'a', 'nodeAssigned'));
    const found = await client.send(
      'GET',
      `${events}?fieldSelector=involvedObject.kind%3DService,involvedObject.name%3Da,source%3Dmetallb-controller,reason%3DIPAllocated`,
    );
    expect(found.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['a.1']);
  });
});
