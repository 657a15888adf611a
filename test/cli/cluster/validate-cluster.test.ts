/**
 * `mlb validate --kubeconfig PATH`: the live cluster's metallb.io objects, LoadBalancer Services and Nodes go
 * through the checks a file does, each finding naming its object; a service the pool cannot serve is reported
 * with MetalLB's AllocationFailed text; an unreachable API server is a one-line error, not a stack trace.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMlbInProcess } from '../run-cli';
import { pool } from '../../sources/k8s/cluster-fixtures';
import { seedPendingAndAnnounced, startTestCluster, type TestCluster } from './cluster-setup';

let c: TestCluster;
beforeEach(async () => (c = await startTestCluster()));
afterEach(async () => c.close());

describe('mlb validate --kubeconfig', () => {
  it("validates the cluster's objects and says which service gets no IP and why", async () => {
    seedPendingAndAnnounced(c);
    const run = await runMlbInProcess(['validate', '--kubeconfig', c.kubeconfig, '--json']);
    const result = JSON.parse(run.stdout) as {
      valid: boolean;
      file: string;
      errors: { code: string; object: string }[];
      services: unknown[];
    };
    expect(result.file).toBe(`the Kubernetes API ${c.api.url} (namespace metallb-system)`);
    expect(result.errors).toEqual([expect.objectContaining({ code: 'serviceGetsNoIP', object: 'Service/default/api' })]);
    expect(result.services).toEqual([
      expect.objectContaining({
        service: 'default/api',
        status: 'failed',
        event: 'Failed to allocate IP for "default/api": no available IPs',
      }),
      expect.objectContaining({ service: 'default/web', status: 'assigned', ips: ['192.0.2.1'], pool: 'public' }),
    ]);
    expect(run.status).toBe(1);
  });

  it('names the object of a configuration error (no file, no line)', async () => {
    c.put('metallb.io', 'ipaddresspools', 'metallb.io/v1beta1', 'IPAddressPool', pool('a', ['192.0.2.0/28']));
    c.put('metallb.io', 'ipaddresspools', 'metallb.io/v1beta1', 'IPAddressPool', pool('b', ['192.0.2.8/29']));
    const run = await runMlbInProcess(['validate', '--kubeconfig', c.kubeconfig]);
    expect(run.stdout).toMatch(/error: .*overlap/i);
    expect(run.stdout).toContain('IPAddressPool');
    expect(run.stdout).toContain(`the Kubernetes API ${c.api.url} (namespace metallb-system): invalid`);
    expect(run.status).toBe(1);
  });

  it('is valid (exit 0) when every service has its IP', async () => {
    c.put('metallb.io', 'ipaddresspools', 'metallb.io/v1beta1', 'IPAddressPool', pool('a', ['192.0.2.0/28']));
    const run = await runMlbInProcess(['validate', '--kubeconfig', c.kubeconfig]);
    expect(run.stdout).toContain('valid (1 pools, 0 advertisements, 0 BGP peers, 0 services, 0 nodes; ');
    expect(run.status).toBe(0);
  });

  it('says plainly when the API server cannot be reached', async () => {
    await c.api.close();
    const run = await runMlbInProcess(['validate', '--kubeconfig', c.kubeconfig]);
    expect(run.stderr).toContain(`cannot read the cluster from the Kubernetes API ${c.api.url}`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.status).toBe(1);
  });

  it('refuses a file and a cluster at once (exit 2) rather than ignoring one', async () => {
    const run = await runMlbInProcess(['validate', 'examples/plain-host.yaml', '--kubeconfig', c.kubeconfig]);
    expect(run.stderr).toContain('a file and --kubeconfig/--kubernetes name different sources: give one');
    expect(run.status).toBe(2);
  });
});
