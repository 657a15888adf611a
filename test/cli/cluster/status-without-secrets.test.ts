/**
 * An operator whose role may read everything but Secrets (as Kubernetes' built-in `view` ClusterRole): `mlb status`
 * and `mlb validate --kubeconfig` still answer whole, say that BGP peers' passwordSecret references could not be
 * checked, and raise no false "secret not found" for a peer whose Secret exists.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMlbInProcess } from '../run-cli';
import { rbacFromManifestText, startFakeApiServer, type FakeApiServer, type KubeObject } from '../../support/fake-apiserver';
import { basicCluster } from '../../sources/k8s/cluster-fixtures';

const NS = 'metallb-system';
const VIEWER = 'jane';
/** Read access to every resource the commands list, except Secrets. */
const VIEWER_RBAC = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: viewer }
rules:
  - apiGroups: ['', 'discovery.k8s.io', 'metallb.io']
    resources: [services, nodes, namespaces, pods, events, endpointslices, ipaddresspools, l2advertisements, bgpadvertisements, bgppeers, bfdprofiles, communities, servicel2statuses, servicebgpstatuses, configurationstates]
    verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: viewer }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: viewer }
subjects: [{ kind: User, name: ${VIEWER} }]
`;

let api: FakeApiServer;
let dir: string;
beforeEach(async () => {
  api = await startFakeApiServer({ rbac: rbacFromManifestText(VIEWER_RBAC) });
  dir = mkdtempSync(join(tmpdir(), 'mlb-viewer-'));
  const cluster = basicCluster();
  const put = (group: string, plural: string, apiVersion: string, kind: string, object: unknown): void => {
    api.store.create(api.resourceType(group, plural), { ...(object as object), apiVersion, kind } as unknown as KubeObject);
  };
  for (const p of cluster.ipaddresspools) put('metallb.io', 'ipaddresspools', 'metallb.io/v1beta1', 'IPAddressPool', p);
  for (const a of cluster.l2advertisements) put('metallb.io', 'l2advertisements', 'metallb.io/v1beta1', 'L2Advertisement', a);
  for (const s of cluster.services) put('', 'services', 'v1', 'Service', s);
  put('metallb.io', 'bgppeers', 'metallb.io/v1beta2', 'BGPPeer', {
    metadata: { name: 'router', namespace: NS },
    spec: { myASN: 64500, peerASN: 64501, peerAddress: '192.0.2.254', passwordSecret: { name: 'bgp-password', namespace: NS } },
  });
  put('', 'secrets', 'v1', 'Secret', {
    metadata: { name: 'bgp-password', namespace: NS },
    type: 'kubernetes.io/basic-auth',
    data: { password: Buffer.from('s3cret').toString('base64') },
  });
});
afterEach(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('mlb status and validate for a user who may not read Secrets', () => {
  it('answers, says the peer passwords are unchecked, and reports no missing Secret', async () => {
    const kubeconfig = api.kubeconfigPath(dir, VIEWER);
    const status = await runMlbInProcess(['status', '--kubeconfig', kubeconfig, '--once']);
    expect(status.stderr).toBe('');
    expect(status.stdout).toContain(
      "you may not list Secrets in the MetalLB namespace: BGP peers' passwordSecret references are not checked",
    );
    expect(status.status).toBe(0);

    const validate = await runMlbInProcess(['validate', '--kubeconfig', kubeconfig, '--json']);
    const result = JSON.parse(validate.stdout) as { errors: { code: string }[] };
    expect(result.errors.map((e) => e.code)).not.toContain('secretNotFound');
    // One refused list per command, and nothing else refused.
    expect(api.audit.forbidden().map((entry) => entry.path)).toEqual([
      `/api/v1/namespaces/${NS}/secrets`,
      `/api/v1/namespaces/${NS}/secrets`,
    ]);
  });
});
