/**
 * A small cluster on the fake API server, as MetalLB's components leave it: a one-address pool held by
 * default/web (announced in layer 2 by node-b, its only endpoint, externalTrafficPolicy Local), default/api
 * pending because the pool is full (the controller's AllocationFailed event), node-a and node-b with a speaker
 * Pod each, a ServiceL2Status naming node-b, the pool's status and a ConfigurationState per component.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiObject } from '../../../src/sources/k8s/api-object';
import { startFakeApiServer, type FakeApiServer, type KubeObject } from '../../support/fake-apiserver';
import { l2Advertisement, node, pool, service, slice } from '../../sources/k8s/cluster-fixtures';

export interface TestCluster {
  readonly api: FakeApiServer;
  readonly kubeconfig: string;
  put(group: string, plural: string, apiVersion: string, kind: string, object: ApiObject): void;
  close(): Promise<void>;
}

const NS = 'metallb-system';

export async function startTestCluster(): Promise<TestCluster> {
  const api = await startFakeApiServer();
  const dir = mkdtempSync(join(tmpdir(), 'mlb-ktl-cluster-'));
  const put = (group: string, plural: string, apiVersion: string, kind: string, object: ApiObject): void => {
    api.store.create(api.resourceType(group, plural), { ...object, apiVersion, kind } as unknown as KubeObject);
  };
  return {
    api,
    kubeconfig: api.kubeconfigPath(dir),
    put,
    close: async () => (await api.close(), rmSync(dir, { recursive: true, force: true })),
  };
}

export function seedPendingAndAnnounced(c: TestCluster): void {
  const full = pool('public', ['192.0.2.1/32']);
  c.put('metallb.io', 'ipaddresspools', 'metallb.io/v1beta1', 'IPAddressPool', {
    ...full,
    status: { assignedIPv4: 1, assignedIPv6: 0, availableIPv4: 0, availableIPv6: 0 },
  });
  c.put('metallb.io', 'l2advertisements', 'metallb.io/v1beta1', 'L2Advertisement', l2Advertisement('l2', { ipAddressPools: ['public'] }));
  const web = service('web', { ingress: ['192.0.2.1'], policy: 'Local', annotations: { 'metallb.io/ip-allocated-from-pool': 'public' } });
  c.put('', 'services', 'v1', 'Service', web);
  c.put('', 'services', 'v1', 'Service', service('api'));
  c.put('', 'nodes', 'v1', 'Node', node('node-a'));
  c.put('', 'nodes', 'v1', 'Node', node('node-b'));
  c.put(
    'discovery.k8s.io',
    'endpointslices',
    'discovery.k8s.io/v1',
    'EndpointSlice',
    slice('web-1', 'web', [{ ip: '10.244.1.5', node: 'node-b' }]),
  );
  for (const name of ['node-a', 'node-b']) {
    c.put('', 'pods', 'v1', 'Pod', {
      metadata: { name: `speaker-${name}`, namespace: NS, labels: { app: 'metallb', component: 'speaker' } },
      spec: { nodeName: name, containers: [{ name: 'speaker', image: 'mlb:0.1.0' }] },
      status: { phase: 'Running', podIP: '172.18.0.2', conditions: [{ type: 'Ready', status: 'True' }] },
    });
  }
  c.put('metallb.io', 'servicel2statuses', 'metallb.io/v1beta1', 'ServiceL2Status', {
    metadata: {
      name: 'l2-759gw',
      namespace: NS,
      labels: { 'metallb.io/node': 'node-b', 'metallb.io/service-name': 'web', 'metallb.io/service-namespace': 'default' },
    },
    spec: {},
    status: { node: 'node-b', serviceName: 'web', serviceNamespace: 'default' },
  });
  c.put('metallb.io', 'configurationstates', 'metallb.io/v1beta1', 'ConfigurationState', {
    metadata: { name: 'controller', namespace: NS, labels: { 'metallb.io/component-type': 'controller' } },
    status: {
      conditions: [
        { type: 'poolReconcilerValid', status: 'True', reason: 'Reconciled', message: '', lastTransitionTime: '2026-12-01T10:00:00Z' },
      ],
      result: 'Valid',
      errorSummary: '',
    },
  });
  c.put('', 'events', 'v1', 'Event', {
    metadata: { name: 'api.1872a', namespace: 'default' },
    involvedObject: { kind: 'Service', namespace: 'default', name: 'api', apiVersion: 'v1' },
    reason: 'AllocationFailed',
    message: 'Failed to allocate IP for "default/api": no available IPs',
    type: 'Warning',
    source: { component: 'metallb-controller' },
    count: 3,
    firstTimestamp: '2026-12-01T10:00:00Z',
    lastTimestamp: '2026-12-01T10:05:00Z',
  });
  c.put('', 'events', 'v1', 'Event', {
    metadata: { name: 'web.1872b', namespace: 'default' },
    involvedObject: { kind: 'Service', namespace: 'default', name: 'web', apiVersion: 'v1' },
    reason: 'nodeAssigned',
    message: 'announcing from node "node-b" with protocol "layer2"',
    type: 'Normal',
    source: { component: 'metallb-speaker', host: 'node-b' },
    count: 1,
    firstTimestamp: '2026-12-01T10:01:00Z',
    lastTimestamp: '2026-12-01T10:01:00Z',
  });
}
