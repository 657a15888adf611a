// The controller as its service account, with deploy/'s RBAC loaded into the fake API server: every request a
// real run makes (watches, Service status, events, pool status, ConfigurationState, memberlist Secret) is allowed,
// and it never touches the Service's main resource.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type FakeApiServer, rbacFromManifestText, startFakeApiServer } from '../support/fake-apiserver';
import { rawClient } from '../support/fake-apiserver/raw-client';
import { INSTALL_NAMESPACE as NS, kubectl, kubectlMissing } from '../support/deploy-manifests';
import { until } from '../support/until';
import { MetalLBController } from '../../src/controller/controller-loop';
import { kubeClient, loadKubeConfig } from '../../src/sources/k8s/api/kube-client';
import { SILENT_LOG } from '../../src/runtime/log';

const skip = kubectlMissing();
const SUBJECT = `system:serviceaccount:${NS}:controller`;

let api: FakeApiServer | undefined;
let controller: MetalLBController | undefined;
afterAll(async () => {
  await controller?.stop();
  await api?.close();
});

describe.skipIf(skip !== undefined)(`mlb controller under deploy/'s RBAC${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('makes only requests its ClusterRole and Roles allow', async () => {
    const { stdout } = await kubectl(['kustomize', 'deploy/']);
    api = await startFakeApiServer({ rbac: rbacFromManifestText(stdout) });
    const admin = rawClient(api.url);
    await admin.send('POST', '/api/v1/namespaces', { metadata: { name: NS } });
    await admin.send('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'controller', namespace: NS },
      spec: { selector: { matchLabels: { app: 'metallb' } }, template: { metadata: { labels: {} }, spec: { containers: [] } } },
    });
    await admin.send('POST', `/apis/metallb.io/v1beta1/namespaces/${NS}/ipaddresspools`, {
      apiVersion: 'metallb.io/v1beta1',
      kind: 'IPAddressPool',
      metadata: { name: 'lan', namespace: NS },
      spec: { addresses: ['192.0.2.0/30'] },
    });
    await admin.send('POST', '/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default', annotations: { 'metallb.io/address-pool': 'nope' } },
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
    });
    const kubeconfig = api.kubeconfigPath(mkdtempSync(join(tmpdir(), 'mlb-ctl-rbac-')), SUBJECT);
    controller = new MetalLBController({
      client: kubeClient(await loadKubeConfig(kubeconfig)),
      namespace: NS,
      secretName: 'memberlist',
      deploymentName: 'controller',
      log: SILENT_LOG,
    });
    controller.start();
    await until('a failure event', async () => (await admin.send('GET', '/api/v1/namespaces/default/events')).body.items.length === 1);
    // Fix the Service: the address is written, the first event stays, a second one comes.
    const web = (await admin.send('GET', '/api/v1/namespaces/default/services/web')).body;
    await admin.send('PUT', '/api/v1/namespaces/default/services/web', { ...web, metadata: { ...web.metadata, annotations: {} } });
    await until('web has its address', async () => {
      const s = await admin.send('GET', '/api/v1/namespaces/default/services/web');
      return (s.body.status?.loadBalancer?.ingress ?? []).length > 0;
    });
    await until('the memberlist secret', async () => (await admin.send('GET', `/api/v1/namespaces/${NS}/secrets/memberlist`)).code === 200);
    await controller.settled();
    const mine = api.audit.filter({ subject: SUBJECT });
    expect(mine.filter((e) => e.code === 403)).toEqual([]);
    const writes = new Set(
      mine
        .filter((e) => !['get', 'list', 'watch'].includes(e.verb))
        .map((e) => `${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ''}`),
    );
    expect([...writes].sort()).toEqual([
      'create configurationstates',
      'create events',
      'create secrets',
      'patch configurationstates/status',
      'update ipaddresspools/status',
      'update services/status',
    ]);
  });
});
