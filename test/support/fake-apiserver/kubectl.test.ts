import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../until';
import { startFakeApiServer, type FakeApiServer } from './index';
import { kubectlAvailable, kubectlFor, type Kubectl } from './kubectl';
import { rawClient, type RawClient } from './raw-client';

const SERVICE_YAML = `apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
  labels: {app: web}
spec:
  type: LoadBalancer
  selector: {app: web}
  ports:
  - {name: http, port: 80}
`;

const POOL_YAML = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  name: first
  namespace: metallb-system
spec:
  addresses: [192.0.2.0/28]
`;

describe.skipIf(!kubectlAvailable())('kubectl 1.32 reading from the fake', () => {
  let api: FakeApiServer;
  let client: RawClient;
  let kubectl: Kubectl;
  let dir: string;

  beforeAll(async () => {
    api = await startFakeApiServer();
    client = rawClient(api.url);
    dir = mkdtempSync(join(tmpdir(), 'fka-'));
    kubectl = kubectlFor(api.kubeconfigPath(dir));
    writeFileSync(join(dir, 'service.yaml'), SERVICE_YAML);
    writeFileSync(join(dir, 'pool.yaml'), POOL_YAML);
  });
  afterAll(async () => {
    await api.close();
    kubectl.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates from a file after discovery falls back to the legacy documents, and gets what the server defaulted', async () => {
    expect(await kubectl.ok(['create', '--validate=false', '-f', join(dir, 'service.yaml')])).toContain('service/web created');
    const service = JSON.parse(await kubectl.ok(['get', 'svc', 'web', '-o', 'json']));
    expect(service.spec.clusterIP).toBe('10.96.0.1');
    expect(service.spec.ports[0]).toMatchObject({ protocol: 'TCP', targetPort: 80 });
    expect(await kubectl.ok(['get', 'services'])).toMatch(
      /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\nweb\s+LoadBalancer\s+10\.96\.0\.1\s+<pending>\s+80:30000\/TCP\s+\d+s\n$/,
    );
  });

  it('patches a Service through /status and describe shows the ingress, its endpoint slices and its events', async () => {
    await kubectl.ok([
      'patch',
      'svc',
      'web',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.10"}]}}}',
    ]);
    const service = JSON.parse(await kubectl.ok(['get', 'svc', 'web', '-o', 'json']));
    await client.send('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
      metadata: { name: 'web-abcde', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.244.1.5'], conditions: { ready: true }, nodeName: 'n1' }],
      ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
    });
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await client.send('POST', '/api/v1/namespaces/default/events', {
      metadata: { name: 'web.1' },
      involvedObject: { kind: 'Service', namespace: 'default', name: 'web', uid: service.metadata.uid, apiVersion: 'v1' },
      reason: 'IPAllocated',
      message: 'Assigned IP ["192.0.2.10"]',
      source: { component: 'metallb-controller' },
      reportingComponent: 'metallb-controller',
      type: 'Normal',
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
    });
    const described = await kubectl.ok(['describe', 'svc', 'web']);
    expect(described).toMatch(/LoadBalancer Ingress:\s+192\.0\.2\.10 \(VIP\)/);
    expect(described).toMatch(/Endpoints:\s+10\.244\.1\.5:80/);
    expect(described).toMatch(/Normal\s+IPAllocated\s+.*metallb-controller\s+Assigned IP \["192\.0\.2\.10"\]/);
    const events = await kubectl.ok(['events', '--for', 'svc/web']);
    expect(events).toMatch(/Normal\s+IPAllocated\s+Service\/web\s+Assigned IP/);
  });

  it('streams changes with get -w (as server-printed table rows) until the request timeout ends it', async () => {
    const watching = kubectl.run(['get', 'svc', '-w', '--request-timeout=3s']);
    await until('kubectl watching', () => api.audit.count({ verb: 'watch', resource: 'services' }) >= 1);
    await client.send('POST', '/api/v1/namespaces/default/services', {
      metadata: { name: 'second' },
      spec: { ports: [{ port: 53, protocol: 'UDP' }] },
    });
    const result = await watching;
    const rows = result.stdout.split('\n').filter((line) => line !== '');
    expect(rows[0]).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP/);
    expect(rows.slice(1).map((row) => row.split(/\s+/).slice(0, 4))).toEqual([
      ['web', 'LoadBalancer', '10.96.0.1', '192.0.2.10'],
      ['second', 'ClusterIP', '10.96.0.2', '<none>'],
    ]);
  });

  it('waits for a jsonpath condition that a later status write makes true', async () => {
    const waiting = kubectl.run(['wait', 'svc/web', '--for=jsonpath={.status.loadBalancer.ingress[0].ip}=192.0.2.20', '--timeout=10s']);
    await until('kubectl waiting', () => api.audit.count({ verb: 'watch', resource: 'services', name: undefined }) >= 2);
    await kubectl.ok([
      'patch',
      'svc',
      'web',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.20"}]}}}',
    ]);
    const result = await waiting;
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('service/web condition met');
  });
});
