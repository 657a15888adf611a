import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rbacFromManifestText, startFakeApiServer, tokenFor, type FakeApiServer } from './index';
import { kubectlAvailable, kubectlFor } from './kubectl';
import { rawClient } from './raw-client';

const CONTROLLER = 'system:serviceaccount:metallb-system:controller';
const SPEAKER = 'system:serviceaccount:metallb-system:speaker';

/** Shaped like `kubectl kustomize` output: a stream of documents, the RBAC ones among others that are ignored. */
const MANIFESTS = `apiVersion: v1
kind: Namespace
metadata: {name: metallb-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: 'metallb-system:controller'}
rules:
- apiGroups: ['']
  resources: [services, namespaces]
  verbs: [get, list, watch]
- apiGroups: ['']
  resources: [services/status]
  verbs: [update]
- apiGroups: ['']
  resources: [events]
  verbs: [create, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: controller, namespace: metallb-system}
rules:
- apiGroups: ['']
  resources: [secrets]
  verbs: [create]
- apiGroups: ['']
  resources: [secrets]
  resourceNames: [memberlist]
  verbs: [list, get]
- apiGroups: [metallb.io]
  resources: ['*/status']
  verbs: [update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: 'metallb-system:controller'}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: 'metallb-system:controller'}
subjects:
- {kind: ServiceAccount, name: controller, namespace: metallb-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: controller, namespace: metallb-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: controller}
subjects:
- {kind: ServiceAccount, name: controller}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: node-reader}
rules:
- apiGroups: ['']
  resources: [nodes]
  verbs: [list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: node-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: node-reader}
subjects:
- {kind: Group, name: 'system:serviceaccounts:metallb-system'}
`;

let api: FakeApiServer;
let dir: string;

beforeEach(async () => {
  api = await startFakeApiServer({ rbac: rbacFromManifestText(MANIFESTS) });
  dir = mkdtempSync(join(tmpdir(), 'fka-'));
  await rawClient(api.url).send('POST', '/api/v1/namespaces/default/services', {
    metadata: { name: 'web' },
    spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
  });
});
afterEach(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('RBAC from manifests', () => {
  it('allows what the bound roles grant and answers anything else with 403 Forbidden, recorded in the audit log', async () => {
    const controller = rawClient(api.url, CONTROLLER);
    const service = await controller.send('GET', '/api/v1/namespaces/default/services/web');
    expect(service.code).toBe(200);
    const status = await controller.send('PUT', '/api/v1/namespaces/default/services/web/status', {
      ...service.body,
      status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } },
    });
    expect(status.code).toBe(200);
    const patch = await controller.send(
      'PATCH',
      '/api/v1/namespaces/default/services/web',
      { metadata: { labels: { a: 'b' } } },
      'application/merge-patch+json',
    );
    expect(patch.code).toBe(403);
    expect(patch.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message: `services "web" is forbidden: User "${CONTROLLER}" cannot patch resource "services" in API group "" in the namespace "default"`,
    });
    expect(api.audit.forbidden().map((entry) => [entry.subject, entry.verb, entry.resource, entry.namespace, entry.name])).toEqual([
      [CONTROLLER, 'patch', 'services', 'default', 'web'],
    ]);
  });

  it('scopes a RoleBinding to its namespace and honours resourceNames only for named requests', async () => {
    const controller = rawClient(api.url, CONTROLLER);
    const secrets = '/api/v1/namespaces/metallb-system/secrets';
    expect((await controller.send('GET', `${secrets}?fieldSelector=metadata.name%3Dmemberlist`)).code).toBe(200);
    expect((await controller.send('GET', secrets)).code).toBe(403);
    expect((await controller.send('POST', secrets, { metadata: { name: 'memberlist' }, data: {} })).code).toBe(201);
    expect((await controller.send('GET', `${secrets}/memberlist`)).code).toBe(200);
    expect((await controller.send('GET', `${secrets}/other`)).code).toBe(403);
    expect((await controller.send('POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'memberlist' }, data: {} })).code).toBe(
      403,
    );
    const pools = '/apis/metallb.io/v1beta1/namespaces/metallb-system/ipaddresspools';
    expect((await controller.send('GET', pools)).code).toBe(403);
    expect((await controller.send('PUT', `${pools}/p/status`, { metadata: { name: 'p', resourceVersion: '1' } })).code).toBe(404);
  });

  it('grants through groups, lets the admin do anything and refuses tokens it did not issue', async () => {
    expect((await rawClient(api.url, SPEAKER).send('GET', '/api/v1/nodes')).code).toBe(200);
    expect((await rawClient(api.url, SPEAKER).send('GET', '/api/v1/namespaces/default/services')).code).toBe(403);
    expect((await rawClient(api.url).send('DELETE', '/api/v1/namespaces/default/services/web')).code).toBe(200);
    const stranger = rawClient(api.url, 'nobody');
    expect((await stranger.send('GET', '/api/v1/nodes')).code).toBe(403);
    const response = await fetch(`${api.url}/api/v1/nodes`, { headers: { Authorization: 'Bearer not-issued-here' } });
    expect(response.status).toBe(401);
    // Impersonation (how kubectl names its subject over plain http) is refused to a token of another subject.
    const borrowed = await fetch(`${api.url}/api/v1/nodes`, {
      headers: { Authorization: `Bearer ${tokenFor(SPEAKER)}`, 'Impersonate-User': 'kubernetes-admin' },
    });
    expect(borrowed.status).toBe(403);
  });

  it.skipIf(!kubectlAvailable())('shows kubectl the apiserver 403 text', async () => {
    const kubectl = kubectlFor(api.kubeconfigPath(dir, CONTROLLER));
    try {
      expect(await kubectl.ok(['get', 'svc', 'web', '-o', 'name'])).toBe('service/web\n');
      const refused = await kubectl.run(['delete', 'svc', 'web']);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(
        `Error from server (Forbidden): services "web" is forbidden: User "${CONTROLLER}" cannot delete resource "services" in API group "" in the namespace "default"`,
      );
    } finally {
      kubectl.cleanup();
    }
  });
});
