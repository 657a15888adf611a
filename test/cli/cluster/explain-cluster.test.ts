/**
 * `mlb explain --kubeconfig PATH [SERVICE]`: which node answers for a service and why, elected from the
 * cluster's own objects (the Service status the controller wrote, its EndpointSlices, the Nodes, the nodes with
 * a Running speaker Pod), beside what the speakers wrote (ServiceL2Status); a pending service gets the
 * allocator's reason in one line, and the command exits 1 for it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMlbInProcess } from '../run-cli';
import { seedPendingAndAnnounced, startTestCluster, type TestCluster } from './cluster-setup';

let c: TestCluster;
beforeEach(async () => {
  c = await startTestCluster();
  seedPendingAndAnnounced(c);
});
afterEach(async () => c.close());

interface ExplanationJSON {
  service: string;
  winner: string | null;
  candidates: { node: string; reason: string }[];
  notes: string[];
}

describe('mlb explain --kubeconfig', () => {
  it('names the node that answers, why the other does not, and what the speakers wrote', async () => {
    const run = await runMlbInProcess(['explain', '--kubeconfig', c.kubeconfig, 'web']);
    expect(run.stdout).toContain('default/web 192.0.2.1 (layer2): owner node-b\n');
    expect(run.stdout).toContain('note: the speakers say: node-b announces it (ServiceL2Status/l2-759gw)');
    expect(run.stdout).toMatch(/node-a\s+noLocalEndpoints\s+externalTrafficPolicy Local and no serving endpoint on node-a/);
    expect(run.status).toBe(0);
  });

  it('explains a pending service with the allocator reason, and exits 1', async () => {
    const run = await runMlbInProcess(['explain', '--kubeconfig', c.kubeconfig, 'default/api']);
    expect(run.stdout).toBe(
      'default/api: PENDING, no IP: the controller says (AllocationFailed, 2026-12-01T10:05:00Z): Failed to allocate IP for "default/api": ' +
        'no available IPs (every address of the autoAssign pools is taken: add addresses, or share one with metallb.io/allow-shared-ip)\n',
    );
    expect(run.status).toBe(1);
  });

  it('says when the speakers disagree with the election from the objects (a failover in progress)', async () => {
    const l2 = c.api.resourceType('metallb.io', 'servicel2statuses');
    const stored = c.api.store.get(l2, 'metallb-system', 'l2-759gw')!;
    c.api.store.update(l2, { ...stored, status: { node: 'node-a', serviceName: 'web', serviceNamespace: 'default' } } as typeof stored);
    const run = await runMlbInProcess(['explain', '--kubeconfig', c.kubeconfig, 'web', '--json']);
    const [e] = JSON.parse(run.stdout) as ExplanationJSON[];
    expect(e?.winner).toBe('node-b');
    expect(e?.notes).toEqual([
      'the speakers say: node-a announces it (ServiceL2Status/l2-759gw); the election from the objects now picks node-b: a failover in progress, or a speaker that has not caught up',
    ]);
  });

  it('elects among the nodes with a Running speaker Pod only', async () => {
    const pods = c.api.resourceType('', 'pods');
    c.api.store.delete(pods, 'metallb-system', 'speaker-node-b');
    const run = await runMlbInProcess(['explain', '--kubeconfig', c.kubeconfig, 'web', '--json']);
    const [e] = JSON.parse(run.stdout) as ExplanationJSON[];
    expect(e?.winner).toBeNull();
    expect(e?.candidates.find((x) => x.node === 'node-b')?.reason).not.toBe('owner');
    expect(run.status).toBe(1);
  });
});
