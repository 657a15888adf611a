/**
 * The allocation outcomes a MetalLB v0.16 tutorial lab recorded (a real cluster), reproduced through
 * `mlb validate --json`: the same objects must give the same addresses and the same AllocationFailed texts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMlb } from './run-cli';

const POOL = `apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  name: default
  namespace: metallb-system
spec:
  addresses:
    - 192.168.10.200-192.168.10.220
  autoAssign: true
---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata:
  name: default
  namespace: metallb-system
spec:
  ipAddressPools:
    - default
  interfaces:
    - ens18
`;

function service(
  namespace: string,
  name: string,
  port: number,
  extra: { annotations?: Record<string, string>; ingress?: string } = {},
): string {
  const annotations = Object.entries(extra.annotations ?? {})
    .map(([k, v]) => `    ${k}: "${v}"`)
    .join('\n');
  return `---
apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: ${namespace}
${annotations ? `  annotations:\n${annotations}\n` : ''}spec:
  type: LoadBalancer
  selector:
    app.kubernetes.io/name: hello
  ports:
    - name: http
      port: ${port}
      protocol: TCP
${extra.ingress ? `status:\n  loadBalancer:\n    ingress:\n      - ip: ${extra.ingress}\n` : ''}`;
}

// hello-lb already holds .200 (it was created first in the lab); hello-a and hello-b share .210; 19 other
// services (namespace "busy", allocated before "demo") take the rest of the 21 addresses, so hello-c finds none.
const fillers = Array.from({ length: 19 }, (_, i) => service('busy', `filler-${String(i + 1).padStart(2, '0')}`, 80)).join('');
const CONFIG =
  POOL +
  service('demo', 'hello-lb', 80, { ingress: '192.168.10.200' }) +
  service('demo', 'hello-a', 8080, {
    annotations: { 'metallb.io/loadBalancerIPs': '192.168.10.210', 'metallb.io/allow-shared-ip': 'hello-shared' },
  }) +
  service('demo', 'hello-b', 8081, {
    annotations: { 'metallb.io/loadBalancerIPs': '192.168.10.210', 'metallb.io/allow-shared-ip': 'hello-shared' },
  }) +
  fillers +
  service('demo', 'hello-c', 80) +
  service('demo', 'hello-d', 80, { annotations: { 'metallb.io/loadBalancerIPs': '192.168.10.230' } }) +
  service('demo', 'hello-e', 80, { annotations: { 'metallb.io/address-pool': 'special' } });

const dir = mkdtempSync(join(tmpdir(), 'mlb-tutorial-cluster-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface ServiceJSON {
  service: string;
  status: string;
  ips?: string[];
  error?: string;
  event?: string;
}

describe("a MetalLB tutorial lab's outcomes through mlb validate --json", () => {
  const file = join(dir, 'metallb-config.yaml');
  writeFileSync(file, CONFIG);
  const run = runMlb(['validate', '--config', file, '--json']);
  const report = JSON.parse(run.stdout) as {
    valid: boolean;
    errors: { message: string }[];
    services: ServiceJSON[];
    pools: { pool: string; inUse: number }[];
  };
  const byName = new Map(report.services.map((s) => [s.service, s]));

  // On a plain host the file is the whole truth: the three services without an address are errors of the file.
  it('loads, with the three services MetalLB could not allocate as errors of the file (exit 1)', () => {
    expect(run.status).toBe(1);
    expect(report.valid).toBe(false);
    expect(report.errors.map((e) => e.message)).toEqual([
      'service demo/hello-c gets no IP: no available IPs (every address of the autoAssign pools is taken: add addresses, or share one with metallb.io/allow-shared-ip)',
      'service demo/hello-d gets no IP: ["192.168.10.230"] is not allowed in config (192.168.10.230 is in no pool; the pools: "default" 192.168.10.200-192.168.10.220)',
      'service demo/hello-e gets no IP: unknown pool "special" (the pools are "default")',
    ]);
  });

  it('keeps hello-lb on 192.168.10.200', () => {
    expect(byName.get('demo/hello-lb')).toMatchObject({ status: 'assigned', ips: ['192.168.10.200'] });
  });

  it('lets hello-a and hello-b share 192.168.10.210 (same key, ports 8080/8081)', () => {
    expect(byName.get('demo/hello-a')).toMatchObject({ status: 'assigned', ips: ['192.168.10.210'] });
    expect(byName.get('demo/hello-b')).toMatchObject({ status: 'assigned', ips: ['192.168.10.210'] });
  });

  it('gives "no available IPs" once the pool is exhausted', () => {
    expect(byName.get('demo/hello-c')).toMatchObject({
      status: 'failed',
      error: 'no available IPs',
      event: 'Failed to allocate IP for "demo/hello-c": no available IPs',
    });
    expect(report.pools.find((p) => p.pool === 'default')?.inUse).toBe(21);
  });

  it("refuses an address outside every pool with MetalLB's text", () => {
    expect(byName.get('demo/hello-d')?.event).toBe('Failed to allocate IP for "demo/hello-d": ["192.168.10.230"] is not allowed in config');
  });

  it('names an unknown pool', () => {
    expect(byName.get('demo/hello-e')?.event).toBe('Failed to allocate IP for "demo/hello-e": unknown pool "special"');
  });

  it('prints the same outcome for people without --json', () => {
    const plain = runMlb(['validate', '--config', file]);
    expect(plain.status).toBe(1);
    expect(plain.stdout).toMatch(/demo\/hello-a\s+192\.168\.10\.210\s+default/);
    expect(plain.stdout).toContain('Failed to allocate IP for "demo/hello-e": unknown pool "special"');
  });
});
