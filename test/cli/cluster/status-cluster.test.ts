/**
 * `mlb status --kubeconfig PATH`: the cluster's view in one command. Which node announces each service (the
 * ServiceL2Status the speaker wrote), why a service is pending (the controller's AllocationFailed event, and
 * what mlb's allocator says of the same objects), the pools' usage (IPAddressPool status), the configuration
 * state of each component (ConfigurationState) and MetalLB's recent events; --json gives the same as data.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMlbInProcess } from '../run-cli';
import { service } from '../../sources/k8s/cluster-fixtures';
import { seedPendingAndAnnounced, startTestCluster, type TestCluster } from './cluster-setup';

let c: TestCluster;
beforeEach(async () => {
  c = await startTestCluster();
  seedPendingAndAnnounced(c);
});
afterEach(async () => c.close());

describe('mlb status --kubeconfig', () => {
  it('says which node announces each service and why the other is pending', async () => {
    const run = await runMlbInProcess(['status', '--kubeconfig', c.kubeconfig, '--once']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`cluster   ${c.api.url} (namespace metallb-system); speakers running on node-a, node-b`);
    expect(lines[1]).toBe('config    controller Valid');
    expect(run.stdout).toMatch(/^default\/web\s+192\.0\.2\.1\s+public\s+node-b \(layer2\)$/m);
    expect(run.stdout).toMatch(/^default\/api\s+-\s+-\s+PENDING: no IP \(why below\)$/m);
    expect(run.stdout).toContain(
      'why pending:\n  default/api: the controller says (AllocationFailed, 2026-12-01T10:05:00Z): Failed to allocate IP for "default/api": no available IPs ' +
        '(every address of the autoAssign pools is taken: add addresses, or share one with metallb.io/allow-shared-ip)\n',
    );
    expect(run.stdout).toMatch(/^public\s+1\s+0\s+0\s+0$/m);
    expect(run.stdout).toMatch(
      /^2026-12-01T10:05:00Z\s+Warning\s+AllocationFailed\s+Service default\/api\s+Failed to allocate IP .* \(x3\)$/m,
    );
    expect(run.stdout).toMatch(
      /^2026-12-01T10:01:00Z\s+Normal\s+nodeAssigned\s+Service default\/web\s+announcing from node "node-b" with protocol "layer2"$/m,
    );
  });

  it('gives the same view as JSON', async () => {
    const run = await runMlbInProcess(['status', '--kubeconfig', c.kubeconfig, '--json']);
    const status = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(status).toMatchObject({
      apiVersion: 'mlb.io/v1',
      kind: 'ClusterStatus',
      speakers: ['node-a', 'node-b'],
      services: [
        { service: 'default/api', ips: [], pool: null, announcedBy: [], pending: expect.stringContaining('no available IPs') },
        {
          service: 'default/web',
          ips: ['192.0.2.1'],
          pool: 'public',
          announcedBy: [{ node: 'node-b', protocol: 'layer2', object: 'ServiceL2Status/l2-759gw', via: [] }],
          pending: null,
        },
      ],
      pools: [{ pool: 'public', assignedIPv4: 1, availableIPv4: 0, assignedIPv6: 0, availableIPv6: 0 }],
      configuration: [{ component: 'controller', result: 'Valid', errorSummary: '' }],
    });
    expect((status.events as { reason: string }[]).map((e) => e.reason)).toEqual(['AllocationFailed', 'nodeAssigned']);
  });

  it('shows an invalid component configuration with its error summary', async () => {
    c.put('metallb.io', 'configurationstates', 'metallb.io/v1beta1', 'ConfigurationState', {
      metadata: { name: 'speaker-node-a', namespace: 'metallb-system', labels: { 'metallb.io/component-type': 'speaker' } },
      status: { result: 'Invalid', errorSummary: 'configuration error: pool "x" has no prefixes defined' },
    });
    const run = await runMlbInProcess(['status', '--kubeconfig', c.kubeconfig, '--once']);
    expect(run.stdout.split('\n')[1]).toBe(
      'config    controller Valid, speaker-node-a Invalid: configuration error: pool "x" has no prefixes defined',
    );
  });

  it("leaves out another implementation's Services, and shows them with their --lb-class", async () => {
    const other = service('kvip', { ingress: ['203.0.113.5'] });
    c.put('', 'services', 'v1', 'Service', {
      ...other,
      spec: { ...(other.spec as object), loadBalancerClass: 'kube-vip.io/kube-vip-class' },
    });
    const plain = await runMlbInProcess(['status', '--kubeconfig', c.kubeconfig, '--json']);
    expect((JSON.parse(plain.stdout) as { services: { service: string }[] }).services.map((s) => s.service)).toEqual([
      'default/api',
      'default/web',
    ]);
    const classed = await runMlbInProcess(['status', '--kubeconfig', c.kubeconfig, '--lb-class', 'kube-vip.io/kube-vip-class', '--json']);
    expect((JSON.parse(classed.stdout) as { services: { service: string }[] }).services.map((s) => s.service)).toEqual(['default/kvip']);
  });

  it('reads the cluster of KUBECONFIG with --kubernetes, and lists every BGP announcer with its peers', async () => {
    c.put('metallb.io', 'servicebgpstatuses', 'metallb.io/v1beta1', 'ServiceBGPStatus', {
      metadata: { name: 'bgp-x1y2z', namespace: 'metallb-system' },
      spec: {},
      status: { node: 'node-a', serviceName: 'web', serviceNamespace: 'default', peers: ['tor-1', 'tor-2'] },
    });
    const run = await runMlbInProcess(['status', '--kubernetes', '--once'], { KUBECONFIG: c.kubeconfig });
    expect(run.stdout).toMatch(/^default\/web\s+192\.0\.2\.1\s+public\s+node-b \(layer2\), node-a \(bgp via tor-1,tor-2\)$/m);
    expect(run.status).toBe(0);
  });
});
