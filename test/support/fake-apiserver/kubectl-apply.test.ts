import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe.skipIf(!kubectlAvailable())('kubectl 1.32 writing to the fake', () => {
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

  it('applies client-side (create, then a strategic merge patch) and server-side', async () => {
    expect(await kubectl.ok(['apply', '--validate=false', '-f', join(dir, 'pool.yaml')])).toContain(
      'ipaddresspool.metallb.io/first created',
    );
    writeFileSync(join(dir, 'pool.yaml'), POOL_YAML.replace('192.0.2.0/28', '192.0.2.0/27'));
    expect(await kubectl.ok(['apply', '--validate=false', '-f', join(dir, 'pool.yaml')])).toContain(
      'ipaddresspool.metallb.io/first configured',
    );
    expect(await kubectl.ok(['apply', '--validate=false', '-f', join(dir, 'service.yaml')])).toContain('service/web created');
    await client.send(
      'PATCH',
      '/api/v1/namespaces/default/services/web/status',
      { status: { loadBalancer: { ingress: [{ ip: '192.0.2.20' }] } } },
      'application/merge-patch+json',
    );
    writeFileSync(join(dir, 'service.yaml'), SERVICE_YAML.replace('port: 80}', 'port: 80}\n  - {name: https, port: 443}'));
    expect(await kubectl.ok(['apply', '--validate=false', '-f', join(dir, 'service.yaml')])).toContain('service/web configured');
    const service = JSON.parse(await kubectl.ok(['get', 'svc', 'web', '-o', 'json']));
    expect(service.spec.ports.map((port: { port: number }) => port.port)).toEqual([80, 443]);
    expect(service.status.loadBalancer.ingress[0].ip).toBe('192.0.2.20');
    const serverSide = POOL_YAML.replace('name: first', 'name: second');
    writeFileSync(join(dir, 'second.yaml'), serverSide);
    expect(await kubectl.ok(['apply', '--server-side', '--validate=false', '-f', join(dir, 'second.yaml')])).toContain(
      'ipaddresspool.metallb.io/second serverside-applied',
    );
    writeFileSync(join(dir, 'second.yaml'), serverSide.replace('192.0.2.0/28', '198.51.100.0/28'));
    await kubectl.ok(['apply', '--server-side', '--validate=false', '-f', join(dir, 'second.yaml')]);
    const pools = JSON.parse(await kubectl.ok(['get', 'ipaddresspools', '-n', 'metallb-system', '-o', 'json']));
    expect(
      pools.items.map((item: { metadata: { name: string; generation: number }; spec: { addresses: string[] } }) => [
        item.metadata.name,
        item.metadata.generation,
        item.spec.addresses,
      ]),
    ).toEqual([
      ['first', 2, ['192.0.2.0/27']],
      ['second', 2, ['198.51.100.0/28']],
    ]);
  });

  it('prints MetalLB kinds with their CRD printer columns', async () => {
    await client.send('POST', '/apis/metallb.io/v1beta1/namespaces/metallb-system/servicel2statuses', {
      metadata: { name: 'l2-abcde' },
      spec: {},
    });
    await client.send(
      'PATCH',
      '/apis/metallb.io/v1beta1/namespaces/metallb-system/servicel2statuses/l2-abcde/status',
      { status: { node: 'n1', serviceName: 'web', serviceNamespace: 'default' } },
      'application/merge-patch+json',
    );
    const printed = await kubectl.ok(['get', 'servicel2statuses', '-A']);
    expect(printed.split('\n')[0]).toMatch(/^NAMESPACE\s+NAME\s+ALLOCATED NODE\s+SERVICE NAME\s+SERVICE NAMESPACE\s+AGE$/);
    expect(printed.split('\n')[1]?.split(/\s+/).slice(0, 5)).toEqual(['metallb-system', 'l2-abcde', 'n1', 'web', 'default']);
  });

  it('patches a custom resource status and deletes objects', async () => {
    await kubectl.ok([
      'patch',
      'ipaddresspool',
      'first',
      '-n',
      'metallb-system',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"assignedIPv4":3}}',
    ]);
    expect(await kubectl.ok(['get', 'ipaddresspool', 'first', '-n', 'metallb-system', '-o', 'jsonpath={.status.assignedIPv4}'])).toBe('3');
    expect(await kubectl.ok(['delete', 'svc', 'web'])).toContain('service "web" deleted');
    const gone = await kubectl.run(['get', 'svc', 'web']);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('services "web" not found');
  });
});
