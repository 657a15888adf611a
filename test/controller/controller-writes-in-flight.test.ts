// The controller writes many Service statuses without waiting for each answer before sending the next, and
// never floods the API server: against an API server that answers slowly, several writes are pending at once,
// and no more than the controller's bound. (One awaited write after another made 10,000 services wait on
// 20,000 round trips.)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MetalLBController } from '../../src/controller/controller-loop';
import { SILENT_LOG } from '../../src/runtime/log';
import { kubeClient, loadKubeConfig } from '../../src/sources/k8s/api/kube-client';
import { type FakeApiServer, type KubeObject, startFakeApiServer } from '../support/fake-apiserver';
import { until } from '../support/until';
import { pool, service } from '../sources/k8s/cluster-fixtures';

const NS = 'metallb-system';
const SERVICES = 60;
/** Long enough that writes sent one after the other could never overlap. */
const ANSWER_DELAY_MS = 400;
/** The controller's bound: status writes (16) and events (4) side by side, plus its watches reopening. */
const MOST_IN_FLIGHT = 16 + 4 + 2;
const STEP_TIMEOUT_MS = 60_000;

let api: FakeApiServer | undefined;
let controller: MetalLBController | undefined;
afterEach(async () => {
  api?.faults.delayResponses(0);
  await controller?.stop();
  await api?.close();
  controller = undefined;
  api = undefined;
});

function ingressCount(server: FakeApiServer): number {
  return server.store
    .list(server.resourceType('', 'services'))
    .filter((s) => ((s as { status?: { loadBalancer?: { ingress?: unknown[] } } }).status?.loadBalancer?.ingress ?? []).length > 0).length;
}

describe('the controller writing many statuses', () => {
  it('keeps several writes in flight at once, never more than its bound', async () => {
    api = await startFakeApiServer();
    const server = api;
    const put = (group: string, plural: string, apiVersion: string, kind: string, object: object) =>
      server.store.create(server.resourceType(group, plural), { ...object, apiVersion, kind } as unknown as KubeObject);
    put('', 'namespaces', 'v1', 'Namespace', { metadata: { name: NS } });
    put('metallb.io', 'ipaddresspools', 'metallb.io/v1beta1', 'IPAddressPool', pool('main', ['192.0.2.0/25']));
    const client = kubeClient(await loadKubeConfig(server.kubeconfigPath(mkdtempSync(join(tmpdir(), 'mlb-inflight-')))));
    controller = new MetalLBController({ client, namespace: NS, secretName: 'memberlist', deploymentName: 'controller', log: SILENT_LOG });
    controller.start();
    await until('the controller ready', () => controller!.ready, STEP_TIMEOUT_MS);

    server.faults.delayResponses(ANSWER_DELAY_MS);
    for (let i = 0; i < SERVICES; i++) put('', 'services', 'v1', 'Service', service(`s${String(i).padStart(3, '0')}`));
    let most = 0;
    await until(
      'every status written',
      () => {
        most = Math.max(most, server.faults.pendingDelays());
        return ingressCount(server) === SERVICES;
      },
      STEP_TIMEOUT_MS,
    );
    expect(most).toBeGreaterThanOrEqual(8);
    expect(most).toBeLessThanOrEqual(MOST_IN_FLIGHT);
  });
});
