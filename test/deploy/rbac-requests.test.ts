/**
 * The RBAC of deploy/ evaluated the way the API server does (test/support/fake-apiserver, loaded with the rendered
 * Roles, ClusterRoles and bindings): every write listed in docs/kubernetes.md ("Every write mlb makes") and the
 * reads behind it succeed as the service account that makes it, and requests mlb must not need are refused with
 * 403, as a real cluster would refuse them. A rule dropped from deploy/ fails here, not in a cluster.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeApiServer, rbacFromManifestText, type FakeApiServer, type KubeObject } from '../support/fake-apiserver';
import { rawClient, type RawClient } from '../support/fake-apiserver/raw-client';
import { INSTALL_NAMESPACE, kubectl, kubectlMissing } from '../support/deploy-manifests';

const skip = kubectlMissing();
const NS = INSTALL_NAMESPACE;
const CONTROLLER = `system:serviceaccount:${NS}:controller`;
const SPEAKER = `system:serviceaccount:${NS}:speaker`;
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';

const POOL = {
  apiVersion: 'metallb.io/v1beta1',
  kind: 'IPAddressPool',
  metadata: { name: 'lan', namespace: NS },
  spec: { addresses: ['192.0.2.0/28'] },
};
const SERVICE = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'default' },
  spec: { type: 'LoadBalancer', ports: [{ port: 80 }], selector: { app: 'web' } },
};
const CONTROLLER_DEPLOYMENT = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'controller', namespace: NS, labels: { app: 'metallb', component: 'controller' } },
  spec: {
    selector: { matchLabels: { app: 'metallb', component: 'controller' } },
    template: { metadata: { labels: {} }, spec: { containers: [] } },
  },
};
const SPEAKER_POD: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'speaker-abcde', namespace: NS, labels: { app: 'metallb', component: 'speaker' } },
  spec: { nodeName: 'node-1', containers: [{ name: 'speaker', image: 'mlb:0.1.0' }] },
  status: { podIP: '192.0.2.201' },
};

function event(name: string, component: string): object {
  const now = '2026-12-01T00:00:00Z';
  return {
    metadata: { name },
    involvedObject: { kind: 'Service', namespace: 'default', name: 'web', apiVersion: 'v1' },
    reason: 'IPAllocated',
    message: 'Assigned IP ["192.0.2.1"]',
    type: 'Normal',
    source: { component },
    count: 1,
    firstTimestamp: now,
    lastTimestamp: now,
  };
}

function statusObject(kind: string, prefix: string, status: object): object {
  return {
    apiVersion: 'metallb.io/v1beta1',
    kind,
    metadata: { generateName: prefix, namespace: NS, labels: { 'metallb.io/node': 'node-1' } },
    spec: {},
    status,
  };
}

describe.skipIf(skip !== undefined)(`deploy/'s RBAC against the requests mlb makes${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let api: FakeApiServer;
  let admin: RawClient;
  let controller: RawClient;
  let speaker: RawClient;

  beforeAll(async () => {
    const { stdout } = await kubectl(['kustomize', 'deploy/']);
    api = await startFakeApiServer({ rbac: rbacFromManifestText(stdout), objects: [SPEAKER_POD] });
    admin = rawClient(api.url);
    controller = rawClient(api.url, CONTROLLER);
    speaker = rawClient(api.url, SPEAKER);
    for (const [path, body] of [
      ['/api/v1/namespaces', { metadata: { name: NS } }],
      [`/apis/metallb.io/v1beta1/namespaces/${NS}/ipaddresspools`, POOL],
      ['/api/v1/namespaces/default/services', SERVICE],
      [`/apis/apps/v1/namespaces/${NS}/deployments`, CONTROLLER_DEPLOYMENT],
    ] as const) {
      expect((await admin.send('POST', path, body)).code, path).toBe(201);
    }
  });
  afterAll(async () => {
    await api?.close();
  });

  it('lets the controller make every write of its row in docs/kubernetes.md, and the reads they rest on', async () => {
    // The body is any, as RawResponse's: the test reads and edits arbitrary fields of what the server returned.
    const ok = async (method: string, path: string, body?: unknown, type?: string): Promise<any> => {
      const response = await controller.send(method, path, body, type);
      expect(response.code, `${method} ${path}: ${JSON.stringify(response.body).slice(0, 300)}`).toBeLessThan(300);
      return response.body;
    };
    await ok('GET', '/api/v1/services');
    await ok('GET', '/api/v1/namespaces');
    await ok('GET', `/apis/metallb.io/v1beta1/namespaces/${NS}/ipaddresspools`);
    await ok('GET', `/apis/metallb.io/v1beta2/namespaces/${NS}/bgppeers`);
    // Service status and the pool annotation, one PUT of the whole object to /status.
    const service = await ok('GET', '/api/v1/namespaces/default/services/web');
    service.metadata.annotations = { 'metallb.io/ip-allocated-from-pool': 'lan' };
    service.status = { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } };
    await ok('PUT', '/api/v1/namespaces/default/services/web/status', service);
    await ok('POST', '/api/v1/namespaces/default/events', event('web.controller', 'metallb-controller'));
    await ok('PATCH', '/api/v1/namespaces/default/events/web.controller', { count: 2 }, STRATEGIC_MERGE_PATCH);
    // The memberlist secret: looked for, the owner read, then created.
    await ok('GET', `/api/v1/namespaces/${NS}/secrets?fieldSelector=metadata.name%3Dmemberlist`);
    await ok('GET', `/apis/apps/v1/namespaces/${NS}/deployments/controller`);
    await ok('POST', `/api/v1/namespaces/${NS}/secrets`, {
      metadata: { name: 'memberlist' },
      data: { secretkey: 'MDEyMzQ1Njc4OWFiY2RlZg' },
    });
    const pool = await ok('GET', `/apis/metallb.io/v1beta1/namespaces/${NS}/ipaddresspools/lan`);
    pool.status = { assignedIPv4: 1, assignedIPv6: 0, availableIPv4: 15, availableIPv6: 0 };
    await ok('PUT', `/apis/metallb.io/v1beta1/namespaces/${NS}/ipaddresspools/lan/status`, pool);
    await ok('GET', `/api/v1/namespaces/${NS}/pods/speaker-abcde`);
    await ok('POST', `/apis/metallb.io/v1beta1/namespaces/${NS}/configurationstates`, {
      apiVersion: 'metallb.io/v1beta1',
      kind: 'ConfigurationState',
      metadata: { name: 'controller', labels: { 'metallb.io/component-type': 'controller' } },
    });
    await ok(
      'PATCH',
      `/apis/metallb.io/v1beta1/namespaces/${NS}/configurationstates/controller/status`,
      { status: { result: 'Valid' } },
      MERGE_PATCH,
    );
  });

  it('lets the speaker make every write of its rows, and list the speaker pods of its namespace to join memberlist', async () => {
    // The body is any, as RawResponse's: the test reads and edits arbitrary fields of what the server returned.
    const ok = async (method: string, path: string, body?: unknown, type?: string): Promise<any> => {
      const response = await speaker.send(method, path, body, type);
      expect(response.code, `${method} ${path}: ${JSON.stringify(response.body).slice(0, 300)}`).toBeLessThan(300);
      return response.body;
    };
    for (const path of ['/api/v1/services', '/api/v1/nodes', '/api/v1/namespaces', '/apis/discovery.k8s.io/v1/endpointslices'])
      await ok('GET', path);
    const pods = await ok('GET', `/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dmetallb%2Ccomponent%3Dspeaker`);
    expect(pods.items.map((p: { status: { podIP: string } }) => p.status.podIP)).toEqual(['192.0.2.201']);
    // Then watched (a new speaker is joined at once), with its own Node (a change rejoins).
    await ok('GET', `/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dmetallb%2Ccomponent%3Dspeaker&watch=true&timeoutSeconds=1`);
    await ok('GET', '/api/v1/nodes?fieldSelector=metadata.name%3Dnode-1&watch=true&timeoutSeconds=1');
    // BGPPeer passwordSecret: the Secrets of the namespace, listed and watched.
    await ok('GET', `/api/v1/namespaces/${NS}/secrets`);
    await ok('GET', `/api/v1/namespaces/${NS}/secrets?watch=true&timeoutSeconds=1`);
    await ok('GET', `/apis/metallb.io/v1beta1/namespaces/${NS}/l2advertisements`);
    for (const [plural, kind, prefix, status] of [
      ['servicel2statuses', 'ServiceL2Status', 'l2-', { node: 'node-1', serviceName: 'web', serviceNamespace: 'default' }],
      [
        'servicebgpstatuses',
        'ServiceBGPStatus',
        'bgp-',
        { node: 'node-1', serviceName: 'web', serviceNamespace: 'default', peers: ['tor'] },
      ],
    ] as const) {
      const base = `/apis/metallb.io/v1beta1/namespaces/${NS}/${plural}`;
      const created = await ok('POST', base, statusObject(kind, prefix, status));
      await ok('PATCH', `${base}/${created.metadata.name}/status`, { status }, MERGE_PATCH);
      await ok('GET', `${base}?labelSelector=metallb.io%2Fnode%3Dnode-1`);
      await ok('DELETE', `${base}/${created.metadata.name}`);
    }
    await ok('POST', `/apis/metallb.io/v1beta1/namespaces/${NS}/configurationstates`, {
      apiVersion: 'metallb.io/v1beta1',
      kind: 'ConfigurationState',
      metadata: { name: 'speaker-node-1', labels: { 'metallb.io/component-type': 'speaker', 'metallb.io/node-name': 'node-1' } },
    });
    await ok(
      'PATCH',
      `/apis/metallb.io/v1beta1/namespaces/${NS}/configurationstates/speaker-node-1/status`,
      { status: { result: 'Valid' } },
      MERGE_PATCH,
    );
    await ok('POST', '/api/v1/namespaces/default/events', event('web.speaker', 'metallb-speaker'));
    await ok('GET', `/api/v1/namespaces/${NS}/secrets/memberlist`);
  });

  it.each([
    ['controller', 'PUT a Service spec', 'PUT', '/api/v1/namespaces/default/services/web'],
    ['controller', 'PATCH a Service', 'PATCH', '/api/v1/namespaces/default/services/web'],
    ['controller', 'read ConfigMaps', 'GET', `/api/v1/namespaces/${NS}/configmaps`],
    ['controller', 'list Nodes (only MetalLB webhook needed it)', 'GET', '/api/v1/nodes'],
    ['controller', 'delete the memberlist secret', 'DELETE', `/api/v1/namespaces/${NS}/secrets/memberlist`],
    ['controller', 'write a ServiceL2Status', 'POST', `/apis/metallb.io/v1beta1/namespaces/${NS}/servicel2statuses`],
    ['speaker', 'write a Service status', 'PUT', '/api/v1/namespaces/default/services/web/status'],
    ['speaker', 'create a Secret', 'POST', `/api/v1/namespaces/${NS}/secrets`],
    ['speaker', 'write pool status', 'PUT', `/apis/metallb.io/v1beta1/namespaces/${NS}/ipaddresspools/lan/status`],
    ['speaker', 'list pods of every namespace', 'GET', '/api/v1/pods'],
    ['speaker', 'read Endpoints (EndpointSlices only)', 'GET', '/api/v1/endpoints'],
    ['speaker', 'change a pool', 'PATCH', `/apis/metallb.io/v1beta1/namespaces/${NS}/ipaddresspools/lan`],
  ])('refuses the %s to %s (403)', async (who, _what, method, path) => {
    const client = who === 'controller' ? controller : speaker;
    const body = method === 'GET' || method === 'DELETE' ? undefined : { metadata: { name: 'x' } };
    const response = await client.send(method, path, body, method === 'PATCH' ? MERGE_PATCH : undefined);
    expect(response.code, JSON.stringify(response.body)).toBe(403);
  });
});
